import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src/modules/notifications/signature.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { nessusReport } from '../imports/nessus-report.js';
import { type Receiver, startReceiver } from './receiver.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

async function until(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const apiKeyData = {
  ApiKey: {
    Id: '01900000-0000-7000-8000-000000000001',
    Name: 'CI',
    AccessKey: 'AKIAEXAMPLE',
    UserId: '01900000-0000-7000-8000-000000000002',
  },
  Actor: { Type: 'system' as const, Id: null },
};

// The notifications API on a server with its background work: the events' dispatch and the
// delivery jobs run as under `rampart serve`, to receivers on 127.0.0.1 (allowed by
// RAMPART_NOTIFY_ALLOW_LOOPBACK, as the tests of scans allow loopback targets).
describe.each(DB_KINDS)('the notifications API [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let analyst: Credentials;
  let outsider: Credentials;
  let receiver: Receiver;

  const call = (who: Credentials | null, method: Method, url: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: {
        ...(who ? authHeaders(who) : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const problem = (res: Awaited<ReturnType<typeof call>>, status: number, slug: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.type).toMatch(new RegExp(`/problems/${slug}$`));
    return body;
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      env: { RAMPART_NOTIFY_ALLOW_LOOPBACK: 'true' },
      background: true,
    });
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    analyst = await t.userWithKey('Analyst');
    const other = await t.services.organizations.create('Other');
    outsider = await t.userWithKey('Admin', other);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    await tdb?.drop();
  });

  let endpointId: string;
  let secret: string;

  it('creates a webhook endpoint and shows its signing secret once', async () => {
    const res = await call(admin, 'POST', '/notifications/endpoints', {
      Name: 'SIEM',
      Kind: 'Webhook',
      Url: receiver.url,
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      Name: 'SIEM',
      Kind: 'Webhook',
      Url: receiver.url,
      Enabled: true,
      Signed: true,
      RatePerMinute: 60,
    });
    expect(created.Secret).toMatch(/^whsec_/);
    endpointId = created.Id;
    secret = created.Secret;
    const one = await call(admin, 'GET', `/notifications/endpoints/${endpointId}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).not.toHaveProperty('Secret');
    expect(one.body).not.toContain(secret);
    const list = await call(admin, 'GET', '/notifications/endpoints');
    expect(list.json()).toMatchObject({ TotalCount: 1, NextCursor: null, Items: [{ Id: endpointId }] });
    expect(list.body).not.toContain(secret);
    // A Slack endpoint has no secret.
    const slack = await call(admin, 'POST', '/notifications/endpoints', {
      Name: 'Chat',
      Kind: 'Slack',
      Url: receiver.url,
    });
    expect(slack.json()).toMatchObject({ Kind: 'Slack', Signed: false, Secret: null });
    expect(
      (
        await call(admin, 'POST', '/notifications/endpoints', {
          Name: 'SIEM',
          Kind: 'Webhook',
          Url: receiver.url,
        })
      ).statusCode,
    ).toBe(409);
  });

  it('refuses a URL to a refused destination with a problem naming the rule', async () => {
    const metadata = problem(
      await call(admin, 'POST', '/notifications/endpoints', {
        Name: 'x',
        Kind: 'Webhook',
        Url: 'http://169.254.169.254/latest/meta-data/',
      }),
      422,
      'notification-destination-refused',
    );
    expect(metadata.detail).toMatch(/\(AlwaysRefused\)$/);
    expect(metadata.errors).toEqual([
      { path: '/Url', message: expect.stringMatching(/^AlwaysRefused: .*169\.254\.169\.254/) },
    ]);
    expect(
      problem(
        await call(admin, 'POST', '/notifications/endpoints', {
          Name: 'x',
          Kind: 'Webhook',
          Url: 'http://[fe80::1]/',
        }),
        422,
        'notification-destination-refused',
      ).errors[0].message.split(':')[0],
    ).toBe('AlwaysRefused');
    expect(
      problem(
        await call(admin, 'POST', '/notifications/endpoints', {
          Name: 'x',
          Kind: 'Webhook',
          Url: 'file:///etc/passwd',
        }),
        422,
        'notification-destination-refused',
      ).errors[0].message.split(':')[0],
    ).toBe('Scheme');
    expect(
      problem(
        await call(admin, 'POST', '/notifications/endpoints', {
          Name: 'x',
          Kind: 'Teams',
          Url: 'ftp://example.com/',
        }),
        422,
        'notification-destination-refused',
      ).errors[0].message.split(':')[0],
    ).toBe('Scheme');
    expect(
      problem(
        await call(admin, 'POST', '/notifications/endpoints', {
          Name: 'x',
          Kind: 'Webhook',
          Url: 'http://10.0.0.1/',
        }),
        422,
        'notification-destination-refused',
      ).errors[0].message.split(':')[0],
    ).toBe('Private');
    expect(
      problem(
        await call(admin, 'PATCH', `/notifications/endpoints/${endpointId}`, {
          Url: 'http://metadata.google.internal/',
        }),
        422,
        'notification-destination-refused',
      ).errors[0].message.split(':')[0],
    ).toBe('Metadata');
  });

  it('refuses other bad input by name', async () => {
    const kind = problem(
      await call(admin, 'POST', '/notifications/endpoints', { Name: 'x', Kind: 'Pager', Url: receiver.url }),
      400,
      'validation-failed',
    );
    expect(JSON.stringify(kind.errors)).toContain('/Kind');
    // An Email endpoint's address is a mailto: URL of addresses (the email channel checks it).
    const email = problem(
      await call(admin, 'POST', '/notifications/endpoints', {
        Name: 'x',
        Kind: 'Email',
        Url: 'a@example.com',
      }),
      422,
      'notification-destination-refused',
    );
    expect(email.errors[0]).toEqual({
      path: '/Url',
      message: 'EmailAddress: An Email endpoint’s address is a mailto: URL, e.g. mailto:soc@example.com.',
    });
    const miscased = problem(
      await call(admin, 'POST', '/notifications/endpoints', {
        name: 'x',
        Kind: 'Webhook',
        Url: receiver.url,
      }),
      400,
      'validation-failed',
    );
    expect(JSON.stringify(miscased)).toContain('Name');
    problem(
      await call(admin, 'PATCH', `/notifications/endpoints/${endpointId}`, {}),
      400,
      'validation-failed',
    );
    problem(await call(admin, 'GET', '/notifications/endpoints/not-a-uuid'), 400, 'validation-failed');
    problem(
      await call(admin, 'GET', '/notifications/endpoints/01900000-0000-7000-8000-000000000000'),
      404,
      'not-found',
    );
    const cursor = await call(
      admin,
      'GET',
      `/notifications/endpoints/${endpointId}/deliveries?Cursor=nonsense`,
    );
    problem(cursor, 400, 'validation-failed');
  });

  let ruleId: string;

  it('creates rules, naming each unknown event type and endpoint', async () => {
    const unknown = problem(
      await call(admin, 'POST', '/notifications/rules', {
        Name: 'Keys',
        EventTypes: ['apikey.created', 'finding.craeted'],
        EndpointIds: [endpointId, '01900000-0000-7000-8000-000000000000'],
      }),
      400,
      'validation-failed',
    );
    expect(unknown.errors).toEqual([
      {
        path: '/EventTypes/1',
        message: expect.stringContaining(
          'finding.craeted is not an event type (did you mean finding.created?)',
        ),
      },
      {
        path: '/EndpointIds/1',
        message: expect.stringContaining('no notification endpoint 01900000-0000-7000-8000-000000000000'),
      },
    ]);
    problem(
      await call(admin, 'POST', '/notifications/rules', {
        Name: 'x',
        EventTypes: [],
        EndpointIds: [endpointId],
      }),
      400,
      'validation-failed',
    );
    problem(
      await call(admin, 'POST', '/notifications/rules', {
        Name: 'x',
        EventTypes: ['scan.started'],
        EndpointIds: [endpointId],
        MinSeverity: 'Severe',
      }),
      400,
      'validation-failed',
    );
    const res = await call(admin, 'POST', '/notifications/rules', {
      Name: 'Keys',
      EventTypes: ['apikey.created', 'apikey.revoked'],
      EndpointIds: [endpointId],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      Name: 'Keys',
      EventTypes: ['apikey.created', 'apikey.revoked'],
      MinSeverity: null,
      KevOnly: false,
      Enabled: true,
    });
    ruleId = res.json().Id;
    const patched = await call(admin, 'PATCH', `/notifications/rules/${ruleId}`, {
      MinSeverity: 'High',
      Tag: 'pci',
    });
    expect(patched.json()).toMatchObject({ MinSeverity: 'High', Tag: 'pci' });
    const reset = await call(admin, 'PATCH', `/notifications/rules/${ruleId}`, {
      MinSeverity: null,
      Tag: null,
    });
    expect(reset.json()).toMatchObject({ MinSeverity: null, Tag: null });
    expect((await call(manager, 'GET', '/notifications/rules')).json()).toMatchObject({ TotalCount: 1 });
  });

  it('lets Admins change notifications, Managers read rules, and no one else', async () => {
    problem(
      await call(manager, 'POST', '/notifications/rules', {
        Name: 'y',
        EventTypes: ['scan.started'],
        EndpointIds: [endpointId],
      }),
      403,
      'forbidden',
    );
    problem(await call(manager, 'GET', '/notifications/endpoints'), 403, 'forbidden');
    problem(await call(analyst, 'GET', '/notifications/rules'), 403, 'forbidden');
    problem(await call(null, 'GET', '/notifications/rules'), 401, 'unauthenticated');
    expect((await call(manager, 'GET', '/notifications/options')).json().EventTypes).toContainEqual(
      expect.objectContaining({ Name: 'finding.created', Facets: expect.arrayContaining(['severity']) }),
    );
  });

  it('delivers a published event to the rule’s endpoint through the background jobs, signed', async () => {
    const eventId = await t.services.events.publish(tdb.database.db, t.org.id, 'apikey.created', apiKeyData);
    await until(() => receiver.received.some((r) => r.headers['rampart-event-id'] === eventId));
    const request = receiver.received.find((r) => r.headers['rampart-event-id'] === eventId)!;
    expect(
      verifySignature(secret, request.headers['rampart-signature'] as string, request.body, t.clock.now).ok,
    ).toBe(true);
    expect(JSON.parse(request.body)).toMatchObject({
      type: 'rampart.apikey.created',
      data: { ApiKey: { Name: 'CI' } },
    });
    await until(async () => {
      const log = (await call(admin, 'GET', `/notifications/endpoints/${endpointId}/deliveries`)).json();
      return log.Items.some(
        (d: { EventId: string; State: string }) => d.EventId === eventId && d.State === 'Succeeded',
      );
    });
    const log = (await call(admin, 'GET', `/notifications/endpoints/${endpointId}/deliveries`)).json();
    const delivery = log.Items.find((d: { EventId: string }) => d.EventId === eventId);
    expect(delivery).toMatchObject({
      EventType: 'apikey.created',
      RuleId: ruleId,
      State: 'Succeeded',
      Attempts: 1,
      LastStatusCode: 200,
      NextAttemptAt: null,
      AttemptLog: [
        { Attempt: 1, StatusCode: 200, Error: null, At: expect.any(String), DurationMs: expect.any(Number) },
      ],
    });
    const detail = (await call(admin, 'GET', `/notifications/deliveries/${delivery.Id}`)).json();
    expect(detail.Event).toMatchObject({ id: eventId, specversion: '1.0' });

    // Redelivered by hand: the same event again.
    const again = await call(admin, 'POST', `/notifications/deliveries/${delivery.Id}/redeliver`);
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ State: 'Pending', Attempts: 0 });
    await until(
      () => receiver.received.filter((r) => r.headers['rampart-event-id'] === eventId).length === 2,
    );
  });

  it('tells the receiver of an import and the findings it made, signed, as the changes commit', async () => {
    const before = receiver.received.length;
    const created = await call(admin, 'POST', '/notifications/rules', {
      Name: 'Imports and new findings',
      EventTypes: ['import.completed', 'finding.created'],
      EndpointIds: [endpointId],
    });
    expect(created.statusCode, created.body).toBe(201);
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports?FileName=weekly.nessus',
      headers: { ...authHeaders(admin), 'content-type': 'application/xml' },
      payload: nessusReport([
        { ip: '10.66.0.7', items: [{ plugin: '990077', name: 'Notified plugin', severity: 4 }] },
      ]),
    });
    expect(upload.statusCode, upload.body).toBe(202);
    const importId = upload.json().Id;
    const types = () => receiver.received.slice(before).map((r) => JSON.parse(r.body).type as string);
    await until(
      () => types().includes('rampart.import.completed') && types().includes('rampart.finding.created'),
    );
    for (const request of receiver.received.slice(before))
      expect(
        verifySignature(secret, request.headers['rampart-signature'] as string, request.body, t.clock.now).ok,
      ).toBe(true);
    const completed = receiver.received
      .slice(before)
      .find((r) => JSON.parse(r.body).type === 'rampart.import.completed')!;
    expect(JSON.parse(completed.body).data.Import).toMatchObject({ Id: importId, FileName: 'weekly.nessus' });
    const finding = receiver.received
      .slice(before)
      .find((r) => JSON.parse(r.body).type === 'rampart.finding.created')!;
    expect(JSON.parse(finding.body).data.Finding).toMatchObject({ Severity: 'Critical' });
    expect((await call(admin, 'DELETE', `/notifications/rules/${created.json().Id}`)).statusCode).toBe(204);
  });

  it('sends a test event on request and logs it', async () => {
    const before = receiver.received.length;
    const res = await call(admin, 'POST', `/notifications/endpoints/${endpointId}/test`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ EventType: 'notification.test', RuleId: null });
    await until(() => receiver.received.length > before);
    const request = receiver.received[receiver.received.length - 1]!;
    expect(JSON.parse(request.body)).toMatchObject({
      type: 'rampart.notification.test',
      data: { Endpoint: { Id: endpointId } },
    });
    expect(
      verifySignature(secret, request.headers['rampart-signature'] as string, request.body, t.clock.now).ok,
    ).toBe(true);
    // Paged with the usual cursor.
    const page = (
      await call(admin, 'GET', `/notifications/endpoints/${endpointId}/deliveries?PageSize=1`)
    ).json();
    expect(page.Items).toHaveLength(1);
    expect(page.NextCursor).toEqual(expect.any(String));
    expect(page.TotalCount).toBeGreaterThanOrEqual(2);
    const next = (
      await call(
        admin,
        'GET',
        `/notifications/endpoints/${endpointId}/deliveries?PageSize=1&Cursor=${page.NextCursor}`,
      )
    ).json();
    expect(next.Items[0].Id).not.toBe(page.Items[0].Id);
  });

  it('keeps each organisation’s notifications to itself', async () => {
    problem(await call(outsider, 'GET', `/notifications/endpoints/${endpointId}`), 404, 'not-found');
    problem(
      await call(outsider, 'GET', `/notifications/endpoints/${endpointId}/deliveries`),
      404,
      'not-found',
    );
    problem(await call(outsider, 'POST', `/notifications/endpoints/${endpointId}/test`), 404, 'not-found');
    problem(
      await call(outsider, 'PATCH', `/notifications/rules/${ruleId}`, { Name: 'mine' }),
      404,
      'not-found',
    );
    problem(await call(outsider, 'DELETE', `/notifications/endpoints/${endpointId}`), 404, 'not-found');
    expect((await call(outsider, 'GET', '/notifications/endpoints')).json().TotalCount).toBe(0);
    expect((await call(outsider, 'GET', '/notifications/rules')).json().TotalCount).toBe(0);
    const foreign = problem(
      await call(outsider, 'POST', '/notifications/rules', {
        Name: 'steal',
        EventTypes: ['apikey.created'],
        EndpointIds: [endpointId],
      }),
      400,
      'validation-failed',
    );
    expect(foreign.errors[0].path).toBe('/EndpointIds/0');
    const log = (
      await call(admin, 'GET', `/notifications/endpoints/${endpointId}/deliveries?PageSize=1`)
    ).json();
    problem(
      await call(outsider, 'POST', `/notifications/deliveries/${log.Items[0].Id}/redeliver`),
      404,
      'not-found',
    );
    // Another organisation's events never reach this one's endpoints.
    const before = receiver.received.length;
    const otherOrg = (await t.services.organizations.list()).find((o) => o.name === 'Other')!;
    await t.services.events.publish(tdb.database.db, otherOrg.id, 'apikey.created', apiKeyData);
    await new Promise((r) => setTimeout(r, 3000));
    expect(receiver.received.length).toBe(before);
  });

  it('disables, enables and removes endpoints; one a rule sends to is kept', async () => {
    const off = await call(admin, 'PATCH', `/notifications/endpoints/${endpointId}`, { Enabled: false });
    expect(off.json()).toMatchObject({ Enabled: false, DisabledReason: null });
    problem(await call(admin, 'POST', `/notifications/endpoints/${endpointId}/test`), 409, 'conflict');
    const on = await call(admin, 'POST', `/notifications/endpoints/${endpointId}/enable`);
    expect(on.json()).toMatchObject({ Enabled: true, ConsecutiveFailures: 0 });
    const kept = problem(
      await call(admin, 'DELETE', `/notifications/endpoints/${endpointId}`),
      409,
      'conflict',
    );
    expect(kept.detail).toContain('Keys');
    expect((await call(admin, 'DELETE', `/notifications/rules/${ruleId}`)).statusCode).toBe(204);
    expect((await call(admin, 'DELETE', `/notifications/endpoints/${endpointId}`)).statusCode).toBe(204);
    problem(await call(admin, 'GET', `/notifications/endpoints/${endpointId}`), 404, 'not-found');
  });
});
