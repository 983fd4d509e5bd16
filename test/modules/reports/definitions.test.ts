import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlerOf, type JobServices } from '../../../src/jobs/catalogue.js';
import { JobWorker } from '../../../src/jobs/worker.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp, TestClock } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';
import { readPdf } from './pdf-text.js';

describe.each(DB_KINDS)('report definitions and scheduled reports [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let smtp: TestSmtpServer;
  let analyst: Credentials;
  let outsider: Credentials;
  let worker: JobWorker;
  // Friday 2026-11-20, 12:00 UTC.
  const clock = new TestClock(new Date('2026-11-20T12:00:00Z'));

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  const weekly = {
    SchedulingMode: 'Weekly',
    StartTime: '2026-11-16T07:00:00Z',
    DaysOfWeek: ['Monday'],
    TimeZone: 'Europe/Berlin',
  };
  const definition = (extra: Record<string, unknown> = {}) => ({
    Name: 'Weekly executive summary',
    Kind: 'Executive',
    Format: 'Pdf',
    Schedule: weekly,
    Recipients: ['ciso@example.com', 'soc@example.com'],
    ...extra,
  });

  beforeAll(async () => {
    smtp = await startSmtpServer({ user: 'rampart', password: 'secret' });
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      clock,
      env: {
        RAMPART_SMTP_URL: smtp.url({ user: 'rampart', password: 'secret' }),
        RAMPART_MAIL_FROM: 'Rampart <rampart@example.com>',
        RAMPART_SMTP_TLS_REJECT_UNAUTHORIZED: 'false',
      },
    });
    analyst = await t.userWithKey('Analyst');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    worker = new JobWorker(t.services.jobs, { pollMs: 20 });
    worker.register('report-generate', handlerOf('report-generate', t.services as unknown as JobServices));
    worker.start();
    const asset = (
      await send('POST', '/assets', analyst, {
        Kind: 'Host',
        Name: 'mail-gw.example',
        Hostname: 'mail-gw.example',
        Tags: ['dmz'],
      })
    ).json().Id;
    const res = await send('POST', '/findings', analyst, {
      AssetId: asset,
      Vulnerability: { Title: 'Open relay', Severity: 'High' },
    });
    expect(res.statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await tdb?.drop();
    await smtp?.close();
  });

  it('saves a scheduled definition with its next run in its time zone, and changes and lists it', async () => {
    const res = await send(
      'POST',
      '/reportdefinitions',
      analyst,
      definition({ Filter: { Severity: ['High'] } }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const d = res.json();
    // Mondays at 08:00 in Berlin (07:00 UTC in winter): the next after Friday the 20th is the 23rd.
    expect(d).toMatchObject({
      Name: 'Weekly executive summary',
      Scope: { Kind: 'Organization' },
      Filter: { Severity: ['High'] },
      NextRunAt: '2026-11-23T07:00:00.000Z',
      Recipients: ['ciso@example.com', 'soc@example.com'],
    });
    const changed = await send(
      'PUT',
      `/reportdefinitions/${d.Id}`,
      analyst,
      definition({ Tag: 'dmz', Format: 'Html' }),
    );
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      Scope: { Kind: 'Tag', Tag: 'dmz' },
      Format: 'Html',
      Filter: null,
    });
    const list = (await send('GET', '/reportdefinitions', analyst)).json();
    expect(list.Items.map((i: { Id: string }) => i.Id)).toContain(d.Id);
    expect((await send('GET', `/reportdefinitions/${d.Id}`, outsider)).statusCode).toBe(404);
    expect((await send('GET', '/reportdefinitions', outsider)).json().TotalCount).toBe(0);
    expect((await send('DELETE', `/reportdefinitions/${d.Id}`, analyst)).statusCode).toBe(204);
    expect((await send('GET', `/reportdefinitions/${d.Id}`, analyst)).statusCode).toBe(404);
    expect(await t.services.scheduler.get(t.org.id, `report:${d.Id}`)).toBeUndefined();
  });

  it('refuses a bad schedule, bad addresses, recipients without a schedule and an unknown scan group', async () => {
    const bad = async (body: unknown, pointer: string) => {
      const res = await send('POST', '/reportdefinitions', analyst, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.stringify(res.json().errors)).toContain(pointer);
    };
    await bad(
      definition({ Schedule: { SchedulingMode: 'Daily', StartTime: '2026-11-16T07:00:00Z' } }),
      '/Schedule/SchedulingMode',
    );
    await bad(definition({ Schedule: { ...weekly, TimeZone: 'Mars/Olympus' } }), '/Schedule/TimeZone');
    await bad(definition({ Schedule: { SchedulingMode: 'Weekly' } }), '/Schedule/StartTime');
    await bad(definition({ Recipients: ['ciso@example.com', 'not an address'] }), '/Recipients/1');
    await bad(definition({ Schedule: null }), '/Recipients');
    await bad(definition({ ScanGroupId: '0190a0a0-0000-7000-8000-000000000000' }), '/ScanGroupId');
    await bad(
      definition({ Tag: 'dmz', ScanGroupId: '0190a0a0-0000-7000-8000-000000000000' }),
      '/ScanGroupId',
    );
    await bad({ ...definition(), Kind: 'Quarterly' }, '/Kind');
  });

  it('makes and mails the report when the schedule fires, and keeps it in the history', async () => {
    const d = (await send('POST', '/reportdefinitions', analyst, definition())).json();
    clock.now = new Date('2026-11-23T07:00:30Z');
    const fired = await t.services.scheduler.tick();
    expect(fired.map((f) => f.key)).toContain(`report:${d.Id}`);
    const [mail] = await smtp.waitFor(1, 30_000);
    expect(mail!.to.sort()).toEqual(['ciso@example.com', 'soc@example.com']);
    expect(mail!.subject).toBe('Rampart report: Weekly executive summary');
    expect(mail!.raw).toContain('application/pdf');
    // The delivery is recorded just after the server accepted the message.
    let history = (await send('GET', `/reports?DefinitionId=${d.Id}`, analyst)).json();
    for (let i = 0; i < 100 && !history.Items[0]?.DeliveredAt; i++) {
      await new Promise((r) => setTimeout(r, 50));
      history = (await send('GET', `/reports?DefinitionId=${d.Id}`, analyst)).json();
    }
    expect(history.Items).toHaveLength(1);
    const run = history.Items[0];
    expect(run).toMatchObject({ State: 'Completed', DefinitionId: d.Id, DeliveryError: null });
    expect(run.DeliveredAt).toBe('2026-11-23T07:00:30.000Z');
    const file = await send('GET', `/reports/${run.Id}/download`, analyst);
    const pdf = await readPdf(file.rawPayload);
    expect(pdf.text.join(' ')).toContain('mail-gw.example');
    // The schedule moved on a week.
    expect((await send('GET', `/reportdefinitions/${d.Id}`, analyst)).json().NextRunAt).toBe(
      '2026-11-30T07:00:00.000Z',
    );
  });

  it('runs a definition by hand without mailing it', async () => {
    const d = (
      await send(
        'POST',
        '/reportdefinitions',
        analyst,
        definition({ Name: 'By hand', Kind: 'Technical', Format: 'Csv' }),
      )
    ).json();
    const before = smtp.received.length;
    const res = await send('POST', `/reportdefinitions/${d.Id}/run`, analyst);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ DefinitionId: d.Id, Name: 'By hand', State: 'Queued' });
    for (let i = 0; i < 200; i++) {
      if ((await send('GET', `/reports/${res.json().Id}`, analyst)).json().State === 'Completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const run = (await send('GET', `/reports/${res.json().Id}`, analyst)).json();
    expect(run).toMatchObject({ State: 'Completed', RowsWritten: 1, DeliveredAt: null });
    expect(smtp.received.length).toBe(before);
    expect((await send('POST', `/reportdefinitions/${d.Id}/run`, outsider)).statusCode).toBe(404);
  });
  it('keeps the newest 10 reports of a definition, and no finished report older than 90 days', async () => {
    const d = (
      await send(
        'POST',
        '/reportdefinitions',
        analyst,
        definition({ Name: 'Kept', Kind: 'Technical', Format: 'Csv' }),
      )
    ).json();
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = (await send('POST', `/reportdefinitions/${d.Id}/run`, analyst)).json().Id;
      for (let j = 0; j < 200; j++) {
        if ((await send('GET', `/reports/${id}`, analyst)).json().State === 'Completed') break;
        await new Promise((r) => setTimeout(r, 25));
      }
      made.push(id);
    }
    expect(await t.services.reports.purge()).toBe(2);
    const kept = (await send('GET', `/reports?DefinitionId=${d.Id}&PageSize=50`, analyst)).json();
    expect(kept.Items.map((r: { Id: string }) => r.Id)).toEqual(made.slice(2).reverse());
    expect((await send('GET', `/reports/${made[0]}/download`, analyst)).statusCode).toBe(404);
    clock.advanceDays(91);
    await t.services.reports.purge();
    expect((await send('GET', '/reports', analyst)).json().TotalCount).toBe(0);
  });
});
