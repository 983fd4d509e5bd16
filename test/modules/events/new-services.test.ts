import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../../src/lib/uuidv7.js';
import { assertEventData } from '../../../src/modules/events/service.js';
import type { StoredEvent } from '../../../src/modules/events/types.js';
import type { RunExecutor, ScannedService, SystemHostResult } from '../../../src/scanning/types.js';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall } from '../../helpers/scan-nodes.js';

// scan.new_services_found: a system run's results are ingested (the local scan node runs the scan
// with a test executor that emits hosts as the node protocol carries them) and the services new
// to their assets make one event per run, written in the merge's transaction.

const service = (port: number, name: string, product: string | null = null): ScannedService => ({
  port,
  protocol: 'tcp',
  service: name,
  product,
  version: product ? '1.0' : null,
  cpes: [],
  confidence: 0.9,
  banner: null,
  evidence: 'test',
  tls: false,
  detectedBy: 'rampart',
});

const host = (
  address: string,
  services: ScannedService[],
  hostname: string | null = null,
): SystemHostResult => ({
  address,
  hostname,
  answered: true,
  openPorts: services.map((s) => s.port),
  closedPorts: [],
  filtered: 0,
  unscannedPorts: [],
  services,
  checks: [],
  budgetExhausted: null,
});

describe.each(DB_KINDS)('scan.new_services_found [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let manager: Credentials;
  let analyst: Credentials;
  let reader: Credentials;
  let emit: unknown[] = [];
  const executor: RunExecutor = async (_spec, context) => {
    await context.emit(emit);
  };
  const call = (method: 'GET' | 'POST', url: string, who: Credentials, body?: unknown) =>
    apiCall(t, method, url, { who, body });

  const eventsOf = async (organizationId: string, subject?: string): Promise<StoredEvent[]> => {
    const events = (
      await t.services.events.listRecent(organizationId, { types: ['scan.new_services_found'], limit: 1000 })
    )
      .reverse()
      .filter((e) => subject === undefined || e.subject === subject);
    for (const e of events) assertEventData(e.type, e.data);
    return events;
  };

  /** Starts a run that reports `hosts`, waits (bounded) until its results are stored; its run id. */
  const runWith = async (scanId: string, hosts: SystemHostResult[]): Promise<string> => {
    emit = hosts;
    t.clock.now = new Date(t.clock.now.getTime() + 60_000);
    const started = await call('POST', `/systemscans/${scanId}/start`, analyst);
    expect(started.statusCode, started.body).toBe(201);
    await expect
      .poll(async () => (await call('GET', `/systemscans/${scanId}/runs/latest`, reader)).json().Import, {
        timeout: 30_000,
      })
      .not.toBeNull();
    return (await call('GET', `/systemscans/${scanId}/runs/latest`, reader)).json().Run.Id;
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
      scanExecutors: new Map([['System', executor]]),
    });
    manager = await t.userWithKey('Manager');
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
    expect(
      (await call('POST', '/allowedtargets', t.admin, { Kind: 'Allowed', Target: '198.18.40.0/24' }))
        .statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('one event per run with the services new to their assets; the same services again make none', async () => {
    const groupId = uuidv7();
    const created = await call('POST', '/systemscans', manager, {
      Name: 'Service watch',
      ScanTargets: [{ Range: '198.18.40.0/28' }],
      ScanGroupId: groupId,
    });
    expect(created.statusCode, created.body).toBe(201);
    const scanId = created.json().Id as string;
    const scanRef = { Kind: 'System', Id: scanId, Name: 'Service watch', ScanGroupId: groupId };

    const first = await runWith(scanId, [
      host('198.18.40.2', [service(22, 'ssh', 'OpenSSH'), service(80, 'http', 'nginx')], 'web.lab.example'),
      host('198.18.40.3', [service(443, 'https')]),
    ]);
    const events = await eventsOf(t.org.id, `scanruns/${first}`);
    expect(events).toHaveLength(1);
    const assets = (await call('GET', '/assets?Search=198.18.40.&PageSize=100', reader)).json().Items as {
      Id: string;
      Name: string;
      IpAddresses: string[];
    }[];
    const assetOf = (address: string) => assets.find((a) => a.IpAddresses.includes(address))!;
    const [a2, a3] = [assetOf('198.18.40.2'), assetOf('198.18.40.3')];
    expect(events[0]!.data).toEqual({
      Scan: scanRef,
      Run: { Id: first },
      Count: 3,
      Services: [
        {
          AssetId: a2.Id,
          AssetName: a2.Name,
          Address: '198.18.40.2',
          Port: 22,
          Protocol: 'tcp',
          Name: 'ssh',
          Product: 'OpenSSH',
          Version: '1.0',
        },
        {
          AssetId: a2.Id,
          AssetName: a2.Name,
          Address: '198.18.40.2',
          Port: 80,
          Protocol: 'tcp',
          Name: 'http',
          Product: 'nginx',
          Version: '1.0',
        },
        {
          AssetId: a3.Id,
          AssetName: a3.Name,
          Address: '198.18.40.3',
          Port: 443,
          Protocol: 'tcp',
          Name: 'https',
          Product: null,
          Version: null,
        },
      ],
    });
    expect(events[0]!.facets).toEqual({
      scanGroupIds: [groupId],
      assetIds: expect.arrayContaining([a2.Id, a3.Id]),
    });
    expect(events[0]!.facets.assetIds).toHaveLength(2);

    // The same services (one with a newer version): nothing new, no event.
    const second = await runWith(scanId, [
      host('198.18.40.2', [service(22, 'ssh', 'OpenSSH'), service(80, 'http', 'nginx')]),
      host('198.18.40.3', [service(443, 'https', 'Apache')]),
    ]);
    expect(await eventsOf(t.org.id, `scanruns/${second}`)).toEqual([]);

    // One port opened on one host: an event of that one service only.
    const third = await runWith(scanId, [
      host('198.18.40.2', [service(22, 'ssh'), service(80, 'http'), service(8080, 'http-proxy')]),
      host('198.18.40.3', [service(443, 'https')]),
    ]);
    const later = await eventsOf(t.org.id, `scanruns/${third}`);
    expect(later.map((e) => e.data)).toMatchObject([
      { Count: 1, Services: [{ AssetId: a2.Id, Address: '198.18.40.2', Port: 8080, Name: 'http-proxy' }] },
    ]);
    expect(later[0]!.facets).toEqual({ scanGroupIds: [groupId], assetIds: [a2.Id] });
  });

  it('lists the first 100 services and counts them all', async () => {
    const created = await call('POST', '/systemscans', manager, {
      Name: 'Many ports',
      ScanTargets: [{ Range: '198.18.40.20' }],
    });
    const scanId = created.json().Id as string;
    const ports = Array.from({ length: 130 }, (_, i) => 10_000 + i);
    const run = await runWith(scanId, [
      host(
        '198.18.40.20',
        ports.map((p) => service(p, 'unknown')),
      ),
    ]);
    const [event, ...more] = await eventsOf(t.org.id, `scanruns/${run}`);
    expect(more).toEqual([]);
    const data = event!.data as { Count: number; Scan: unknown; Services: { Port: number }[] };
    expect(data.Count).toBe(130);
    expect(data.Scan).toMatchObject({ Name: 'Many ports', ScanGroupId: null });
    expect(data.Services.map((s) => s.Port)).toEqual(ports.slice(0, 100));
    expect(event!.facets).not.toHaveProperty('scanGroupIds');
  });

  it("another organisation's services on the same address are its own: neither sees the other's event", async () => {
    const other = await t.services.organizations.create(`Other ${kind}`);
    const otherCtx = { organizationId: other.id, actor: { type: 'system' as const, id: null } };
    // The other organisation already has this address with port 22 (a report's).
    await t.services.imports.ingestRecords(otherCtx, {
      importId: uuidv7(),
      source: 'other-report',
      format: 'other-report',
      scopeName: 'other-report',
      displayName: 'other report',
      content: { sha256: '0'.repeat(64), size: 1 },
      records: [
        { type: 'asset', asset: { kind: 'Host', ipAddresses: ['198.18.40.30'] } },
        {
          type: 'service',
          asset: { kind: 'Host', ipAddresses: ['198.18.40.30'] },
          port: 22,
          protocol: 'tcp',
          name: 'ssh',
        },
      ],
    });
    // A report's import publishes no new_services_found.
    expect(await eventsOf(other.id)).toEqual([]);

    const created = await call('POST', '/systemscans', manager, {
      Name: 'Shared address',
      ScanTargets: [{ Range: '198.18.40.30' }],
    });
    const run = await runWith(created.json().Id, [host('198.18.40.30', [service(22, 'ssh')])]);
    // New to this organisation's asset, whatever the other holds.
    expect((await eventsOf(t.org.id, `scanruns/${run}`)).map((e) => e.data)).toMatchObject([
      { Count: 1, Services: [{ Address: '198.18.40.30', Port: 22 }] },
    ]);
    expect(await eventsOf(other.id)).toEqual([]);
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from event_outbox
      where organization_id = ${other.id} and type = 'scan.new_services_found'`.execute(tdb.database.db);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('keeps no services of a run whose event could not be written, and publishes it on the retry', async () => {
    const created = await call('POST', '/systemscans', manager, {
      Name: 'Atomic',
      ScanTargets: [{ Range: '198.18.40.40' }],
    });
    const scanId = created.json().Id as string;
    const db = tdb.database.db;
    await sql`alter table event_outbox add constraint test_no_new_services check (type <> 'scan.new_services_found') not valid`.execute(
      db,
    );
    try {
      emit = [host('198.18.40.40', [service(25, 'smtp')])];
      t.clock.now = new Date(t.clock.now.getTime() + 60_000);
      expect((await call('POST', `/systemscans/${scanId}/start`, analyst)).statusCode).toBe(201);
      // The ingestion fails (its error is recorded on the run) and nothing of the merge stays.
      await expect
        .poll(
          async () =>
            (
              await t.services.systemScans.latestReport(
                { organizationId: t.org.id, actor: { type: 'system', id: null } },
                scanId,
              )
            ).record?.ingestError ?? null,
          { timeout: 30_000 },
        )
        .not.toBeNull();
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from asset_services where organization_id = ${t.org.id} and port = 25`.execute(
        db,
      );
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await sql`alter table event_outbox drop constraint test_no_new_services`.execute(db);
    }
    const runId = (await call('GET', `/systemscans/${scanId}/runs/latest`, reader)).json().Run.Id;
    await t.services.systemScans.ingestRun(t.org.id, runId);
    expect((await eventsOf(t.org.id, `scanruns/${runId}`)).map((e) => e.data)).toMatchObject([
      { Count: 1, Services: [{ Port: 25, Name: 'smtp' }] },
    ]);
  });
});
