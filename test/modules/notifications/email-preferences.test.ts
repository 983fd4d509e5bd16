import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlerOf, type JobServices } from '../../../src/jobs/catalogue.js';
import type { DispatchedEvent } from '../../../src/modules/emailnotifications/service.js';
import type { Organization } from '../../../src/modules/organizations/service.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { closedPort, smtpEnv, startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

let sequence = 0;
/** An event as the dispatch hands it over, with its CloudEvents envelope. */
function event(
  organizationId: string,
  type: string,
  data: Record<string, unknown>,
  time: Date,
): DispatchedEvent {
  sequence++;
  const id = `0193a5c4-0000-7000-8000-${String(sequence).padStart(12, '0')}`;
  return {
    organizationId,
    id,
    type,
    envelope: {
      specversion: '1.0',
      id,
      source: '/rampart',
      type: `rampart.${type}`,
      time: time.toISOString(),
      datacontenttype: 'application/json',
      data,
    },
  };
}

const scanEvent = (org: string, type: string, name: string, at: Date) =>
  event(
    org,
    type,
    { Scan: { Id: '0193a5c4-7f10-7c3e-9d41-0000000000aa', Kind: 'Discovery', Name: name } },
    at,
  );

describe.each(DB_KINDS)('email notifications of people [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let smtp: TestSmtpServer;
  let analyst: Credentials;
  let other: Organization;
  let outsider: Credentials;

  const call = (method: 'GET' | 'PUT', who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: '/api/latest/account/notifications',
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** Dispatches events as the outbox's dispatch does: in one transaction. */
  const dispatch = (events: DispatchedEvent[]) =>
    tdb.database.db.transaction().execute((trx) => t.services.emailNotifications.dispatch(trx, events));

  /** Runs the queued notification-email jobs once each, as a worker would (their catalogue handler). */
  const runEmailJobs = async () => {
    const jobs = await t.services.jobs.claim('test-worker', ['notification-email'], 60_000, 100);
    const handler = handlerOf('notification-email', t.services as unknown as JobServices);
    const outcomes: unknown[] = [];
    for (const job of jobs) {
      const outcome = await handler(job, new AbortController().signal).catch((e: unknown) => e);
      if (outcome) await t.services.jobs.fail(job.id, 'test-worker', outcome);
      else await t.services.jobs.complete(job.id, 'test-worker');
      outcomes.push(outcome);
    }
    return outcomes;
  };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: await smtpEnv(smtp) });
    analyst = await t.userWithKey('Analyst');
    other = await t.services.organizations.create('Other');
    outsider = await t.userWithKey('Analyst', other);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    await smtp?.close();
  });

  it('answers the defaults, saves a choice and reads it back', async () => {
    const first = await call('GET', analyst);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      EventTypes: [],
      Mode: 'Immediate',
      UpdatedAt: null,
      Email: { Configured: true },
      Recent: [],
    });
    const types = first.json().AvailableEventTypes.map((a: { Type: string }) => a.Type);
    expect(types).toContain('scan.failed');
    // Keys, roles and endpoints are the Admins' business.
    expect(types).not.toContain('apikey.created');
    expect(first.json().AvailableEventTypes).toContainEqual({ Type: 'scan.started', Title: 'Scan started' });

    const saved = await call('PUT', analyst, {
      EventTypes: ['scan.failed', 'scan.started'],
      Mode: 'Immediate',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    // Kept in the catalogue's order.
    expect(saved.json()).toMatchObject({ EventTypes: ['scan.started', 'scan.failed'], Mode: 'Immediate' });
    expect(saved.json().UpdatedAt).toBe(t.clock.now.toISOString());
    expect((await call('GET', analyst)).json().EventTypes).toEqual(['scan.started', 'scan.failed']);
  });

  it.each([
    [
      { EventTypes: ['scan.exploded'], Mode: 'Immediate' },
      '/EventTypes/0',
      "'scan.exploded' is not an event type",
    ],
    [
      { EventTypes: ['scan.failed', 'apikey.created'], Mode: 'Immediate' },
      '/EventTypes/1',
      'Only Admins receive apikey.created events.',
    ],
    [{ EventTypes: ['scan.failed'], Mode: 'Weekly' }, '/Mode', ''],
    [{ EventTypes: ['scan.failed', 'scan.failed'], Mode: 'Immediate' }, '/EventTypes', ''],
    [{ EventTypes: ['scan.failed'], mode: 'Immediate' }, '/mode', 'Mode'],
    [{ EventTypes: 'scan.failed', Mode: 'Immediate' }, '/EventTypes', ''],
  ])('refuses %j with a problem naming %s', async (body, path, text) => {
    const res = await call('PUT', analyst, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = res.json();
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(res.body).toContain(text);
    // Nothing changed.
    expect((await call('GET', analyst)).json().EventTypes).toEqual(['scan.started', 'scan.failed']);
  });

  it('lets an Admin choose the Admins’ event types', async () => {
    const res = await call('PUT', t.admin, { EventTypes: ['apikey.created'], Mode: 'DailyDigest' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ EventTypes: ['apikey.created'], Mode: 'DailyDigest' });
  });

  it('keeps each organisation’s preferences and email to itself', async () => {
    expect((await call('GET', outsider)).json()).toMatchObject({ EventTypes: [], UpdatedAt: null });
    expect(
      (await call('PUT', outsider, { EventTypes: ['scan.started'], Mode: 'Immediate' })).statusCode,
    ).toBe(200);
    expect((await call('GET', analyst)).json().EventTypes).toEqual(['scan.started', 'scan.failed']);
    const before = smtp.received.length;
    // The other organisation's scan starts: only its own subscriber hears of it.
    await dispatch([scanEvent(other.id, 'scan.started', 'Elsewhere', t.clock.now)]);
    expect(await runEmailJobs()).toEqual([undefined]);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    const outsiderUser = await t.services.users.get(
      { organizationId: other.id, actor: { type: 'system', id: null } },
      outsider.userId,
    );
    expect(mail.to).toEqual([outsiderUser.email]);
    expect((await call('GET', analyst)).json().Recent).toEqual([]);
  });

  it('sends an immediate email per event: subject, text and HTML, escaped, linking to the web app', async () => {
    const before = smtp.received.length;
    await dispatch([
      scanEvent(t.org.id, 'scan.started', 'Office <b>LAN</b>', t.clock.now),
      scanEvent(t.org.id, 'scan.completed', 'Office', t.clock.now), // not asked for
    ]);
    expect(await runEmailJobs()).toEqual([undefined]);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    const user = await t.services.users.get(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      analyst.userId,
    );
    expect(mail).toMatchObject({
      to: [user.email],
      subject: '[Rampart] Scan started: Office <b>LAN</b>',
      secure: true,
    });
    expect(mail!.text).toContain('The discovery scan “Office <b>LAN</b>” started.');
    expect(mail!.text).toContain(
      'Open in Rampart: https://rampart.example.com/discovery/0193a5c4-7f10-7c3e-9d41-0000000000aa',
    );
    expect(mail!.html).toContain('The discovery scan “Office &lt;b&gt;LAN&lt;/b&gt;” started.');
    expect(mail!.html).not.toContain('<b>LAN</b>');
    expect(mail!.html).toContain(
      'href="https://rampart.example.com/discovery/0193a5c4-7f10-7c3e-9d41-0000000000aa"',
    );
    const recent = (await call('GET', analyst)).json().Recent;
    expect(recent).toHaveLength(1);
    expect(recent[0]).toMatchObject({
      EventType: 'scan.started',
      State: 'Sent',
      Attempts: 1,
      LastError: null,
    });
  });

  it('collects a digest subscriber’s events and sends them in one email once their day has ended', async () => {
    const reader = await t.userWithKey('ReadOnly');
    expect(
      (await call('PUT', reader, { EventTypes: ['scan.failed', 'scan.completed'], Mode: 'DailyDigest' }))
        .statusCode,
    ).toBe(200);
    const day = new Date(t.clock.now);
    await dispatch([
      scanEvent(t.org.id, 'scan.completed', 'Office', day),
      event(
        t.org.id,
        'scan.failed',
        { Scan: { Id: 'x', Kind: 'System', Name: 'DMZ' }, Run: { Error: 'node lost' } },
        day,
      ),
    ]);
    t.clock.now = new Date(t.clock.now.getTime() + 3_600_000);
    await dispatch([scanEvent(t.org.id, 'scan.completed', 'Branch', t.clock.now)]);
    const digest = handlerOf('notification-digest', t.services as unknown as JobServices);
    const job = { id: 'j', kind: 'notification-digest', payload: null, attempts: 1, maxAttempts: 1 } as never;
    const before = smtp.received.length;
    // The day has not ended: nothing yet (the analyst's immediate scan.failed went at once).
    await runEmailJobs();
    await digest(job, new AbortController().signal);
    const afterImmediate = smtp.received.length;
    expect(smtp.received.slice(before).every((m) => !m.subject.includes('digest'))).toBe(true);
    // The next day (UTC, the organisation's zone): one email with the three events.
    t.clock.advanceDays(1);
    await digest(job, new AbortController().signal);
    const mails = await smtp.waitFor(afterImmediate + 1);
    const mail = mails[afterImmediate]!;
    const user = await t.services.users.get(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      reader.userId,
    );
    expect(mail.to).toEqual([user.email]);
    expect(mail.subject).toBe('[Rampart] Daily digest for 2026-11-21: 3 events');
    expect(mail.text).toContain('Scan completed (2)');
    expect(mail.text).toContain('Scan failed (1)');
    expect(mail.text).toContain('The system scan “DMZ” failed: node lost.');
    expect(mail.html).toContain('The discovery scan “Branch” completed.');
    // Sent once: the next run has nothing to send.
    await digest(job, new AbortController().signal);
    expect(smtp.received.length).toBe(afterImmediate + 1);
    expect((await call('GET', reader)).json().Recent.map((r: { State: string }) => r.State)).toEqual([
      'Sent',
      'Sent',
      'Sent',
    ]);
  });

  it('tells every Admin of a disabled endpoint at once, whatever their preferences', async () => {
    const second = await t.userWithKey('Admin');
    const before = smtp.received.length;
    await dispatch([
      event(
        t.org.id,
        'notification.endpoint_disabled',
        { Endpoint: { Id: 'e', Name: 'SIEM webhook', Kind: 'Webhook' }, Failures: 20 },
        t.clock.now,
      ),
    ]);
    await runEmailJobs();
    const mails = (await smtp.waitFor(before + 2)).slice(before);
    const emails = await Promise.all(
      [t.admin, second].map(
        async (c) =>
          (
            await t.services.users.get(
              { organizationId: t.org.id, actor: { type: 'system', id: null } },
              c.userId,
            )
          ).email,
      ),
    );
    expect(mails.map((m) => m.to[0]).sort()).toEqual(emails.sort());
    expect(mails[0]!.subject).toBe('[Rampart] Notification endpoint disabled: SIEM webhook');
    expect(mails[0]!.text).toContain('was disabled after repeated failed deliveries');
  });
});

describe('email when the SMTP server is down or refuses', () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it('keeps the email while the server is down and sends it when it is back; says why meanwhile', async () => {
    const port = await closedPort();
    const model = await startSmtpServer();
    const env = {
      ...(await smtpEnv(model)),
      RAMPART_SMTP_URL: `smtp://rampart:${encodeURIComponent('correct horse battery staple')}@localhost:${port}`,
    };
    await model.close();
    const t = await buildTestApp(tdb.database, { env });
    try {
      const user = await t.userWithKey('Analyst');
      await t.app.inject({
        method: 'PUT',
        url: '/api/latest/account/notifications',
        headers: { ...authHeaders(user), 'content-type': 'application/json' },
        payload: JSON.stringify({ EventTypes: ['import.failed'], Mode: 'Immediate' }),
      });
      await tdb.database.db
        .transaction()
        .execute((trx) =>
          t.services.emailNotifications.dispatch(trx, [
            event(
              t.org.id,
              'import.failed',
              { Import: { Id: 'i', FileName: 'scan.nessus', Error: 'truncated' } },
              t.clock.now,
            ),
          ]),
        );
      const [job] = (await t.services.jobs.list({ kind: 'notification-email', pageSize: 10 })).items;
      expect(job).toMatchObject({ state: 'Queued', maxAttempts: 8 });
      const handler = handlerOf('notification-email', t.services as unknown as JobServices);
      const error = await handler({ ...job!, attempts: 1 }, new AbortController().signal).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ kind: 'ConnectionFailed' });
      const recent = async () =>
        (
          await t.app.inject({
            method: 'GET',
            url: '/api/latest/account/notifications',
            headers: authHeaders(user),
          })
        ).json().Recent[0];
      expect(await recent()).toMatchObject({
        State: 'Pending',
        Attempts: 1,
        LastError: `The SMTP server smtp://localhost:${port} refused the connection: is it running, and is RAMPART_SMTP_URL right?`,
      });
      // The server comes up: the retry delivers it.
      const smtp = await startSmtpServer({ port });
      try {
        await handler({ ...job!, attempts: 2 }, new AbortController().signal);
        const [mail] = await smtp.waitFor(1);
        expect(mail!.subject).toBe('[Rampart] Import failed: scan.nessus');
        expect(mail!.text).toContain('The import “scan.nessus” failed: truncated.');
        expect(await recent()).toMatchObject({ State: 'Sent', Attempts: 2, LastError: null });
      } finally {
        await smtp.close();
      }
    } finally {
      await t.close();
    }
  });

  it('records a refused password on the email and gives up after the last attempt', async () => {
    const smtp = await startSmtpServer();
    const t = await buildTestApp(tdb.database, {
      env: await smtpEnv(smtp, { user: 'rampart', password: 'wrong' }),
    });
    try {
      const user = await t.userWithKey('Analyst');
      await t.app.inject({
        method: 'PUT',
        url: '/api/latest/account/notifications',
        headers: { ...authHeaders(user), 'content-type': 'application/json' },
        payload: JSON.stringify({ EventTypes: ['import.completed'], Mode: 'Immediate' }),
      });
      const earlier = new Set(
        (await t.services.jobs.list({ kind: 'notification-email', pageSize: 100 })).items.map((j) => j.id),
      );
      await tdb.database.db
        .transaction()
        .execute((trx) =>
          t.services.emailNotifications.dispatch(trx, [
            event(t.org.id, 'import.completed', { Import: { Id: 'i2', FileName: 'ok.nessus' } }, t.clock.now),
          ]),
        );
      const jobs = (await t.services.jobs.list({ kind: 'notification-email', pageSize: 10 })).items;
      const job = jobs.find((j) => !earlier.has(j.id))!;
      const handler = handlerOf('notification-email', t.services as unknown as JobServices);
      await expect(handler({ ...job, attempts: 1 }, new AbortController().signal)).rejects.toMatchObject({
        kind: 'AuthRefused',
      });
      // The last attempt ends it as Failed, with the reason kept.
      await handler({ ...job, attempts: job.maxAttempts }, new AbortController().signal);
      const recent = (
        await t.app.inject({
          method: 'GET',
          url: '/api/latest/account/notifications',
          headers: authHeaders(user),
        })
      ).json().Recent[0];
      expect(recent).toMatchObject({ State: 'Failed', Attempts: 2 });
      expect(recent.LastError).toMatch(
        /refused the user name and password \(535 5\.7\.8 Authentication credentials invalid\)/,
      );
      expect(smtp.received).toHaveLength(0);
    } finally {
      await t.close();
      await smtp.close();
    }
  });

  it('keeps email waiting, without using its attempts, while no SMTP server is configured', async () => {
    const t = await buildTestApp(tdb.database);
    try {
      const user = await t.userWithKey('Analyst');
      const saved = await t.app.inject({
        method: 'PUT',
        url: '/api/latest/account/notifications',
        headers: { ...authHeaders(user), 'content-type': 'application/json' },
        payload: JSON.stringify({ EventTypes: ['scan.failed'], Mode: 'Immediate' }),
      });
      expect(saved.json().Email.Configured).toBe(false);
      const earlier = new Set(
        (await t.services.jobs.list({ kind: 'notification-email', pageSize: 100 })).items.map((j) => j.id),
      );
      await tdb.database.db
        .transaction()
        .execute((trx) =>
          t.services.emailNotifications.dispatch(trx, [
            event(t.org.id, 'scan.failed', { Scan: { Id: 's', Kind: 'Web', Name: 'Shop' } }, t.clock.now),
          ]),
        );
      const job = (await t.services.jobs.list({ kind: 'notification-email', pageSize: 100 })).items.find(
        (j) => !earlier.has(j.id),
      )!;
      const handler = handlerOf('notification-email', t.services as unknown as JobServices);
      await expect(handler({ ...job, attempts: 1 }, new AbortController().signal)).rejects.toMatchObject({
        name: 'JobDeferred',
        delayMs: 900_000,
      });
      const recent = (
        await t.app.inject({
          method: 'GET',
          url: '/api/latest/account/notifications',
          headers: authHeaders(user),
        })
      ).json().Recent[0];
      expect(recent).toMatchObject({
        State: 'Pending',
        Attempts: 0,
        LastError:
          'Email is not configured: set RAMPART_SMTP_URL and RAMPART_MAIL_FROM on the server. The email waits.',
      });
    } finally {
      await t.close();
    }
  });
});
