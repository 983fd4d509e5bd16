import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportRecord } from '../../../src/importers/types.js';
import { uuidv7 } from '../../../src/lib/uuidv7.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { EventType } from '../../../src/modules/events/catalogue.js';
import { assertEventData } from '../../../src/modules/events/service.js';
import type { StoredEvent } from '../../../src/modules/events/types.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall, enrolNode } from '../../helpers/scan-nodes.js';

// The events of API keys, users, tickets, imports and scans, each published in the transaction of
// its change, driven through the API and the services as a client and a scan node would.
describe.each(DB_KINDS)('events of keys, users, tickets, imports and scans [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let analyst: Credentials;
  let ctx: ServiceContext;

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
    url: string,
    who: Credentials,
    body?: unknown,
  ) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** The organisation's events of `type` about `subject`, oldest first, checked against the schema. */
  const eventsOf = async (type: EventType, subject?: string): Promise<StoredEvent[]> => {
    const events = (await t.services.events.listRecent(t.org.id, { types: [type], limit: 10_000 }))
      .reverse()
      .filter((e) => subject === undefined || e.subject === subject);
    for (const e of events) assertEventData(e.type, e.data);
    return events;
  };

  const ingest = (records: ImportRecord[], extra: { verify?: boolean; fixOnly?: string[] } = {}) =>
    t.services.imports.ingestRecords(ctx, {
      importId: uuidv7(),
      source: 'emission-test',
      format: 'emission-test',
      scopeName: 'emission-test',
      displayName: 'emission test',
      content: { sha256: '0'.repeat(64), size: 1 },
      records,
      ...extra,
    });
  const finding = (
    i: number,
    more: Partial<Extract<ImportRecord, { type: 'finding' }>> = {},
  ): ImportRecord => ({
    type: 'finding',
    asset: { kind: 'Host', ipAddresses: ['10.6.0.1'] },
    vulnerability: { ruleId: `emission-${i}`, title: `Emission ${i}` },
    location: { kind: 'Port', port: 2000 + i, protocol: 'tcp' },
    severity: 'Medium',
    ...more,
  });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    admin = t.admin;
    analyst = await t.userWithKey('Analyst');
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('publishes apikey.created and apikey.revoked, never the secret', async () => {
    const user = await t.services.users.create(ctx, { email: 'keys@example.com', role: 'Analyst' });
    const { key, secretKey } = await t.services.apiKeys.create(ctx, { userId: user.id, name: 'ci' });
    await t.services.apiKeys.revoke(ctx, key.id);
    await t.services.apiKeys.revoke(ctx, key.id);
    const created = await eventsOf('apikey.created', `apikeys/${key.id}`);
    const revoked = await eventsOf('apikey.revoked', `apikeys/${key.id}`);
    expect(created).toHaveLength(1);
    expect(revoked).toHaveLength(1);
    expect(created[0]!.data).toEqual({
      ApiKey: { Id: key.id, Name: 'ci', AccessKey: key.accessKey, UserId: user.id },
      Actor: { Type: 'system', Id: null },
    });
    expect(JSON.stringify([created, revoked])).not.toContain(secretKey);
  });

  it('publishes user.role_changed for a role change only, and none for a refused one', async () => {
    const user = await t.services.users.create(ctx, { email: 'role@example.com', role: 'Analyst' });
    expect((await call('PATCH', `/users/${user.id}`, admin, { Name: 'Renamed' })).statusCode).toBe(200);
    expect(await eventsOf('user.role_changed', `users/${user.id}`)).toEqual([]);
    expect((await call('PATCH', `/users/${user.id}`, admin, { Role: 'Manager' })).statusCode).toBe(200);
    const changed = await eventsOf('user.role_changed', `users/${user.id}`);
    expect(changed.map((e) => e.data)).toEqual([
      {
        User: { Id: user.id, Email: 'role@example.com', Name: 'Renamed' },
        FromRole: 'Analyst',
        ToRole: 'Manager',
        Actor: { Type: 'apikey', Id: admin.apiKeyId },
      },
    ]);
    expect(JSON.stringify(changed)).not.toMatch(/password|hash/i);
    // The last Admin cannot lose the role: 409, and no event.
    const res = await call('PATCH', `/users/${admin.userId}`, admin, { Role: 'Analyst' });
    expect(res.statusCode).toBe(409);
    expect(await eventsOf('user.role_changed', `users/${admin.userId}`)).toEqual([]);
  });

  it('never keeps a change whose event could not be written', async () => {
    const user = await t.services.users.create(ctx, { email: 'atomic@example.com', role: 'Analyst' });
    const db = tdb.database.db;
    await sql`alter table event_outbox add constraint test_no_roles check (type <> 'user.role_changed') not valid`.execute(
      db,
    );
    try {
      expect((await call('PATCH', `/users/${user.id}`, admin, { Role: 'Manager' })).statusCode).toBe(500);
    } finally {
      await sql`alter table event_outbox drop constraint test_no_roles`.execute(db);
    }
    expect((await t.services.users.get(ctx, user.id)).role).toBe('Analyst');
    expect(await eventsOf('user.role_changed', `users/${user.id}`)).toEqual([]);
  });

  it('publishes ticket.created, assigned and changed, and resolved_by_verify when a Verify run fixes its findings', async () => {
    await ingest([finding(1), finding(2)]);
    const findings = (await call('GET', '/findings?Search=Emission', analyst)).json().Items as {
      Id: string;
    }[];
    expect(findings).toHaveLength(2);
    const created = await call('POST', '/tickets', analyst, {
      Title: 'Patch the host',
      Priority: 'High',
      FindingIds: findings.map((f) => f.Id),
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().Id;
    const subject = `tickets/${id}`;
    expect((await eventsOf('ticket.created', subject)).map((e) => e.data)).toEqual([
      {
        Ticket: {
          Id: id,
          Number: created.json().Number,
          Title: 'Patch the host',
          State: 'Open',
          Priority: 'High',
          AssigneeUserId: null,
        },
        Actor: { Type: 'apikey', Id: analyst.apiKeyId },
      },
    ]);
    await call('PATCH', `/tickets/${id}`, analyst, { AssigneeId: analyst.userId });
    expect((await eventsOf('ticket.assigned', subject)).map((e) => e.data)).toMatchObject([
      { Ticket: { AssigneeUserId: analyst.userId }, FromAssigneeUserId: null },
    ]);
    expect(await eventsOf('ticket.changed', subject)).toEqual([]);
    await call('PATCH', `/tickets/${id}`, analyst, { Priority: 'Critical', State: 'InProgress' });
    expect(
      (await eventsOf('ticket.changed', subject)).map((e) => (e.data as { Changed: string[] }).Changed),
    ).toEqual([['Priority', 'State']]);
    // A Verify run's results find both findings gone: the ticket is resolved, by Verify.
    await ingest([], { verify: true, fixOnly: findings.map((f) => f.Id) });
    expect((await call('GET', `/tickets/${id}`, analyst)).json().State).toBe('Resolved');
    const resolved = await eventsOf('ticket.resolved_by_verify', subject);
    expect(resolved).toHaveLength(1);
    expect((resolved[0]!.data as { FindingIds: string[] }).FindingIds.sort()).toEqual(
      findings.map((f) => f.Id).sort(),
    );
    expect((await eventsOf('ticket.changed', subject)).at(-1)!.data).toMatchObject({
      Ticket: { State: 'Resolved' },
      Changed: ['State'],
      Actor: { Type: 'system' },
    });
  });

  it('publishes import.completed, needs_attention for Unconfirmed findings or warnings, and failed', async () => {
    const done = await ingest([finding(10)]);
    const completed = await eventsOf('import.completed', `imports/${done.importId}`);
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({
      Import: { Id: done.importId, ScopeName: 'emission-test' },
      Counts: { New: 1 },
      WarningCount: 0,
    });
    expect(await eventsOf('import.needs_attention', `imports/${done.importId}`)).toEqual([]);
    const unsure = await ingest([finding(11, { confidence: 'Unconfirmed' })]);
    expect(
      (await eventsOf('import.needs_attention', `imports/${unsure.importId}`)).map((e) => e.data),
    ).toMatchObject([{ Reasons: ['1 finding Unconfirmed'], Warnings: [] }]);
    // A report that cannot be read: its Import fails, with its event.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports?Format=nessus&FileName=broken.nessus',
      headers: { ...authHeaders(analyst), 'content-type': 'application/xml' },
      payload: '<NessusClientData_v2><Report name="x"><ReportHost name="10.0.0.1"><broken',
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const failed = await eventsOf('import.failed', `imports/${res.json().Id}`);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({
      Import: { Id: res.json().Id, Format: 'nessus', FileName: 'broken.nessus' },
    });
    expect((failed[0]!.data as { Error: string }).Error.length).toBeGreaterThan(0);
    expect(await eventsOf('import.completed', `imports/${res.json().Id}`)).toEqual([]);
  });

  it('publishes scan.started, scan.completed with new hosts, and scan.failed, from the node protocol', async () => {
    const node = await enrolNode(t, admin);
    expect(
      (await call('POST', '/allowedtargets', admin, { Kind: 'Allowed', Target: '198.18.5.0/24' })).statusCode,
    ).toBe(201);
    const scan = (
      await call('POST', '/discoveryscans', admin, {
        Name: 'Events lab',
        ScanTargets: [{ Range: '198.18.5.0/28' }],
      })
    ).json();
    const nodeCall = (method: 'POST' | 'PUT', url: string, body: unknown) =>
      apiCall(t, method, url, { nodeKey: node.nodeKey, body });
    const run = async (state: 'Completed' | 'Failed', hosts: unknown[]) => {
      expect((await call('POST', `/discoveryscans/${scan.Id}/runs`, analyst)).statusCode).toBe(201);
      const claimed = (await nodeCall('POST', '/scanruns/claim', {})).json();
      await nodeCall('PUT', `/scanruns/${claimed.Id}/attempts/${claimed.Attempt}/batches/1`, {
        Items: hosts,
        Progress: { Done: 16, Total: 16, Found: hosts.length },
      });
      const body =
        state === 'Failed' ? { State: state, Error: 'the node ran out of sockets' } : { State: state };
      expect(
        (await nodeCall('POST', `/scanruns/${claimed.Id}/attempts/${claimed.Attempt}/finish`, body))
          .statusCode,
      ).toBe(200);
      return claimed.Id as string;
    };
    const host = (address: string) => ({
      address,
      hostname: `h${address.split('.').at(-1)}.lab`,
      openPorts: [22],
      closedPorts: [],
      macAddress: null,
      osGuess: null,
    });
    const first = await run('Completed', [host('198.18.5.2'), host('198.18.5.3')]);
    const subject = `scanruns/${first}`;
    const scanRef = { Kind: 'Discovery', Id: scan.Id, Name: 'Events lab', ScanGroupId: null };
    expect((await eventsOf('scan.started', subject)).map((e) => e.data)).toEqual([
      { Scan: scanRef, Run: { Id: first, Attempt: 1, State: 'Running' } },
    ]);
    expect((await eventsOf('scan.completed', subject)).map((e) => e.data)).toEqual([
      { Scan: scanRef, Run: { Id: first, Attempt: 1, State: 'Completed' } },
    ]);
    expect((await eventsOf('scan.new_hosts_found', subject)).map((e) => e.data)).toMatchObject([
      {
        Count: 2,
        Hosts: [
          { Address: '198.18.5.2', Hostname: 'h2.lab' },
          { Address: '198.18.5.3', Hostname: 'h3.lab' },
        ],
      },
    ]);
    // The same hosts again: Seen, not New; no new_hosts_found.
    const second = await run('Completed', [host('198.18.5.2'), host('198.18.5.3')]);
    expect(await eventsOf('scan.new_hosts_found', `scanruns/${second}`)).toEqual([]);
    const third = await run('Failed', []);
    expect((await eventsOf('scan.failed', `scanruns/${third}`)).map((e) => e.data)).toEqual([
      {
        Scan: scanRef,
        Run: { Id: third, Attempt: 1, State: 'Failed' },
        Error: 'the node ran out of sockets',
      },
    ]);
    expect(await eventsOf('scan.completed', `scanruns/${third}`)).toEqual([]);
  });

  it("names a system scan's group in its scan events and their facets", async () => {
    const node = await enrolNode(t, admin, { Kinds: ['System'] });
    expect(
      (await call('POST', '/allowedtargets', admin, { Kind: 'Allowed', Target: '198.18.6.0/24' })).statusCode,
    ).toBe(201);
    const groupId = uuidv7();
    const scan = await call('POST', '/systemscans', admin, {
      Name: 'Grouped system scan',
      ScanTargets: [{ Range: '198.18.6.1' }],
      ScanGroupId: groupId,
    });
    expect(scan.statusCode, scan.body).toBe(201);
    const started = await call('POST', `/systemscans/${scan.json().Id}/start`, analyst);
    expect(started.statusCode, started.body).toBe(201);
    const claimed = (await apiCall(t, 'POST', '/scanruns/claim', { nodeKey: node.nodeKey, body: {} })).json();
    const events = await eventsOf('scan.started', `scanruns/${claimed.Id}`);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      Scan: { Kind: 'System', Id: scan.json().Id, ScanGroupId: groupId },
    });
    expect(events[0]!.facets).toEqual({ scanGroupIds: [groupId] });
  });
});
