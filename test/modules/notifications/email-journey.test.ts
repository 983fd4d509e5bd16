import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type TestApp } from '../../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { smtpEnv, startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

// The journey an integration of the original makes: it creates a discovery scan with a
// MessageNotification (ScanStartsEnds, one address) through the original's route shape, starts it,
// and a mail arrives for the start, then the end, at a real SMTP server (STARTTLS, AUTH) on
// loopback. The scan is real too: the local scan node probes 127.0.0.1, which the server allows.

describe('an integration’s MessageNotification gets its mail', () => {
  let tdb: TestDatabase;
  let t: TestApp;
  let smtp: TestSmtpServer;

  const send = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/integration/${path}`,
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: body === undefined ? '""' : JSON.stringify(body),
    });

  beforeAll(async () => {
    smtp = await startSmtpServer();
    tdb = await newTestDatabase('embedded');
    t = await buildTestApp(tdb.database, {
      background: true,
      env: {
        ...(await smtpEnv(smtp)),
        RAMPART_SCAN_ALLOW_LOOPBACK: 'true',
        RAMPART_LOCAL_SCAN_NODE: 'true',
      },
    });
    const allowed = await t.app.inject({
      method: 'POST',
      url: '/api/latest/allowedtargets',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: JSON.stringify({ Kind: 'Allowed', Target: '127.0.0.1/32' }),
    });
    expect(allowed.statusCode, allowed.body).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    await smtp?.close();
  });

  it('creates the scan with ScanStartsEnds, starts it, and mail arrives for its start and end', async () => {
    const created = await send('POST', 'DiscoveryScans', {
      Id: null,
      Name: null,
      Range: null,
      ScanNodeId: null,
      TemplateId: null,
      ScheduleOption: { SchedulingMode: 'None' },
      scanTargets: [{ Range: '127.0.0.1', Name: 'Loopback', Exclude: '', invalidRangeSize: false }],
      scanMode: 'hostDiscovery',
      MessageNotification: [
        { EmailAddresses: 'soc@example.com', NotificationLevel: 'ScanStartsEnds', NotificationLevelId: '6' },
      ],
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.body.replace(/["[\]]/g, '');
    const started = await send('PUT', `discoveryscans/${id}/start`);
    expect(started.statusCode, started.body).toBe(200);

    const mails = await smtp.waitFor(2, 60_000);
    // Both events may leave the outbox in one dispatch, and an endpoint's deliveries made at one
    // moment go in the order of their ids, not of their events: each mail is found by its subject.
    const start = mails.find((m) => m.subject.includes('started'));
    const end = mails.find((m) => m.subject.includes('completed'));
    expect(start).toMatchObject({
      to: ['soc@example.com'],
      from: 'rampart@example.com',
      subject: '[Rampart] Scan started: Loopback',
      secure: true,
      user: 'rampart',
    });
    expect(start!.text).toContain('The discovery scan “Loopback” started.');
    expect(start!.text).toContain(`Open in Rampart: https://rampart.example.com/discovery/${id}`);
    expect(start!.html).toContain('The discovery scan “Loopback” started.');
    expect(start!.html).toContain(`href="https://rampart.example.com/discovery/${id}"`);
    expect(end).toMatchObject({ to: ['soc@example.com'], subject: '[Rampart] Scan completed: Loopback' });
    expect(end!.text).toContain('The discovery scan “Loopback” completed.');
  }, 90_000);
});
