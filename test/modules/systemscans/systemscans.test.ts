import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGuid } from '../../../src/scanning/checks/index.js';
import type { RunExecutor, SystemHostResult, SystemSpec } from '../../../src/scanning/types.js';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall, enrolNode, expectBadRequest } from '../../helpers/scan-nodes.js';

// System scans through the API. The local scan node runs them with a test executor
// that emits SystemHostResult items exactly as the contract says (the real node protocol between
// the node and the server); the engines themselves are tested on their own and in the lab.

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'intel');
const NGINX_CPE = 'cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*';

function host(address: string, extra: Partial<SystemHostResult> = {}): SystemHostResult {
  return {
    address,
    hostname: null,
    answered: true,
    openPorts: [23, 80],
    closedPorts: [],
    filtered: 0,
    unscannedPorts: [],
    services: [
      {
        port: 80,
        protocol: 'tcp',
        service: 'http',
        product: 'nginx',
        version: '1.18.0',
        cpes: [NGINX_CPE],
        confidence: 0.9,
        banner: 'Server: nginx/1.18.0',
        evidence: 'Server header',
        tls: false,
        detectedBy: 'rampart',
      },
    ],
    checks: [{ checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' }],
    budgetExhausted: null,
    ...extra,
  };
}

describe.each(DB_KINDS)('system scans [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let analyst: Credentials;
  let reader: Credentials;
  /** What the executor emits next, and the specs it was given. */
  let emit: unknown[] = [];
  const specs: SystemSpec[] = [];
  const executor: RunExecutor = async (spec, context) => {
    specs.push(spec as SystemSpec);
    await context.emit(emit);
  };

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Credentials, body?: unknown) =>
    apiCall(t, method, url, { who, body });

  /** Starts (or verifies), waits (bounded) until the run's findings are stored, answers the report. */
  const runWith = async (scanId: string, hosts: unknown[]) => {
    emit = hosts;
    // Runs are ordered by when they were queued: each one a minute after the one before.
    t.clock.now = new Date(t.clock.now.getTime() + 60_000);
    const started = await call('POST', `/systemscans/${scanId}/start`, analyst);
    expect(started.statusCode, started.body).toBe(201);
    return settled(scanId);
  };
  const settled = async (scanId: string) => {
    await expect
      .poll(async () => (await call('GET', `/systemscans/${scanId}/runs/latest`, reader)).json().Import, {
        timeout: 30_000,
      })
      .not.toBeNull();
    return (await call('GET', `/systemscans/${scanId}/runs/latest`, reader)).json();
  };
  const findingsOn = async (address: string) => {
    const assets = await call('GET', `/assets?Search=${address}`, reader);
    const id = assets
      .json()
      .Items.find((a: { IpAddresses: string[] }) => a.IpAddresses.includes(address))?.Id;
    if (!id) return [];
    return (await call('GET', `/findings?AssetId=${id}&PageSize=100`, reader)).json().Items as {
      Id: string;
      Title: string;
      State: string;
      Port: number | null;
    }[];
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
      scanExecutors: new Map([['System', executor]]),
    });
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
    await t.services.intel.loadFile(join(FIXTURES, 'nvd', 'CVE-2021-23017.json'), { feed: 'nvd' });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('refuses targets outside the allowed ones, naming the field, and bad input on every field', async () => {
    const outside = await call('POST', '/systemscans', manager, {
      Name: 'Lab',
      ScanTargets: [{ Range: '198.18.30.0/28' }],
    });
    expect(outside.statusCode).toBe(422);
    expect(outside.json().errors[0].path).toBe('/ScanTargets/0/Range');
    expect(
      (await call('POST', '/allowedtargets', admin, { Kind: 'Allowed', Target: '198.18.30.0/24' }))
        .statusCode,
    ).toBe(201);

    const refused: [Record<string, unknown>, number, string][] = [
      [{ Name: 'x' }, 400, 'ScanTargets'],
      [{ Name: 'x', ScanTargets: [] }, 400, 'ScanTargets'],
      [{ Name: ' ', ScanTargets: [{ Range: '198.18.30.1' }] }, 400, 'Name'],
      [{ Name: 'x', ScanTargets: [{ Range: '10.0.0.0/24' }] }, 422, 'NotAllowed'],
      // A name that means loopback is refused like 127.0.0.1.
      [{ Name: 'x', ScanTargets: [{ Range: 'localhost' }] }, 422, 'Loopback'],
      [{ Name: 'x', ScanTargets: [{ Range: 'db.localhost.' }] }, 422, 'Loopback'],
      [{ Name: 'x', ScanTargets: [{ Range: '198.18.30.1' }], TemplateId: 'nope' }, 400, 'TemplateId'],
      // A discovery template is not a system one.
      [
        {
          Name: 'x',
          ScanTargets: [{ Range: '198.18.30.1' }],
          TemplateId: '01900000-0000-7000-8000-0000000000d1',
        },
        400,
        'TemplateId',
      ],
      [
        {
          Name: 'x',
          ScanTargets: [{ Range: '198.18.30.1' }],
          TemplateId: '0193a5c4-7f10-7c3e-9d41-000000000000',
        },
        404,
        'template',
      ],
      [
        {
          Name: 'x',
          ScanTargets: [{ Range: '198.18.30.1' }],
          ScanNodeId: '0193a5c4-7f10-7c3e-9d41-000000000000',
        },
        404,
        'node',
      ],
      [{ Name: 'x', AssetId: '0193a5c4-7f10-7c3e-9d41-000000000000' }, 404, 'asset'],
      [{ Name: 'x', ScanTargets: [{ Range: '198.18.30.1' }], Surprise: 1 }, 400, 'Surprise'],
      [
        { Name: 'x', ScanTargets: [{ Range: '198.18.30.1' }], Schedule: { SchedulingMode: 'Sometimes' } },
        400,
        'Schedule',
      ],
    ];
    for (const [body, status, named] of refused) {
      const res = await call('POST', '/systemscans', manager, body);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(status);
      expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      expect(res.body.toLowerCase()).toContain(named.toLowerCase());
    }
    expect(
      (await call('POST', '/systemscans', analyst, { Name: 'x', ScanTargets: [{ Range: '198.18.30.1' }] }))
        .statusCode,
    ).toBe(403);
    expectBadRequest(await call('GET', '/systemscans/not-a-uuid', reader), 'Id');
    expectBadRequest(await call('GET', '/systemscans?PageSize=0', reader), 'PageSize');
    expectBadRequest(await call('GET', '/systemscans?Cursor=garbage', reader), 'ursor');
  });

  it('creates, changes, lists and deletes a scan; another organisation sees none of it', async () => {
    const res = await call('POST', '/systemscans', manager, {
      Name: 'Lab hosts',
      ScanTargets: [{ Range: '198.18.30.0/28', Name: 'lab' }],
      ScanGroupId: '0193a5c4-7f10-7c3e-9d41-00000000aaaa',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      Name: 'Lab hosts',
      TemplateId: '01900000-0000-7000-8000-0000000000e1',
      RunState: 'Idle',
      LastRun: null,
      ScanGroupId: '0193a5c4-7f10-7c3e-9d41-00000000aaaa',
    });
    const id = res.json().Id;
    const changed = await call('PUT', `/systemscans/${id}`, manager, {
      Name: 'Lab hosts, all ports',
      ScanTargets: [{ Range: '198.18.30.0/28' }],
      TemplateId: '01900000-0000-7000-8000-0000000000e2',
    });
    expect(changed.json()).toMatchObject({ Name: 'Lab hosts, all ports', ScanGroupId: null });
    const inGroup = await t.services.systemScans.listByGroup(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      '0193a5c4-7f10-7c3e-9d41-00000000aaaa',
    );
    expect(inGroup).toEqual([]);
    expect(
      (await call('GET', '/systemscans', reader)).json().Items.map((s: { Id: string }) => s.Id),
    ).toContain(id);
    expect((await call('GET', `/systemscans/${id}/runs/latest`, reader)).statusCode).toBe(404);
    expect((await call('POST', `/systemscans/${id}/stop`, analyst)).statusCode).toBe(409);

    const other = await t.services.organizations.create(`Other ${kind}`);
    const stranger = await t.userWithKey('Admin', other);
    for (const [method, url] of [
      ['GET', `/systemscans/${id}`],
      ['POST', `/systemscans/${id}/start`],
      ['POST', `/systemscans/${id}/stop`],
      ['GET', `/systemscans/${id}/runs/latest`],
      ['DELETE', `/systemscans/${id}`],
    ] as const)
      expect((await call(method, url, stranger)).statusCode, `${method} ${url}`).toBe(404);
    expect((await call('GET', '/systemscans', stranger)).json().TotalCount).toBe(0);

    expect((await call('DELETE', `/systemscans/${id}`, manager)).statusCode).toBe(204);
    expect((await call('GET', `/systemscans/${id}`, reader)).statusCode).toBe(404);
  });

  it('runs: services on the asset, findings with evidence, re-scan Fixed, back Reopened, budgets respected', async () => {
    const scan = await call('POST', '/systemscans', manager, {
      Name: 'Lab run',
      ScanTargets: [{ Range: '198.18.30.16/28' }],
    });
    const id = scan.json().Id;
    const address = '198.18.30.17';
    // A node has no business sending a host outside the organisation's policy: dropped. (Junk
    // refuses the whole batch: test/modules/scanruns/batch-contract.test.ts.)
    const report = await runWith(id, [host(address), host('10.9.9.9')]);
    expect(report.Run.State).toBe('Completed');
    expect(report.Hosts.map((h: { IpAddress: string }) => h.IpAddress)).toEqual([address]);
    expect(report.Import.Counts).toMatchObject({ New: 2, Services: 1 });
    expect(specs.at(-1)).toMatchObject({ template: { ports: 'top1000' }, portsOverride: null });

    let found = await findingsOn(address);
    expect(found.map((f) => f.Title).sort()).toEqual(['CVE-2021-23017', 'Telnet service (cleartext logins)']);
    const telnetId = found.find((f) => f.Title.startsWith('Telnet'))!.Id;
    const telnet = (await call('GET', `/findings/${telnetId}`, reader)).json();
    expect(telnet).toMatchObject({
      Evidence: 'login: ',
      Source: 'Rampart system scan',
      Location: { Kind: 'Port', Port: 23 },
    });
    // The import history shows the scan.
    const imported = (await call('GET', `/imports/${report.Import.Id}`, reader)).json();
    expect(imported).toMatchObject({ Format: 'rampart-system-scan', FileName: 'Lab run' });

    // A budget left port 23 unscanned: its finding is not judged.
    const cut = await runWith(id, [
      host(address, { checks: [], unscannedPorts: [23], budgetExhausted: 'host' }),
    ]);
    expect(cut.Import.Counts.Fixed).toBe(0);
    expect(cut.Hosts[0]).toMatchObject({ UnscannedPorts: [23], BudgetExhausted: 'host' });

    const gone = await runWith(id, [host(address, { checks: [] })]);
    expect(gone.Import.Counts.Fixed).toBe(1);
    found = await findingsOn(address);
    expect(found.find((f) => f.Id === telnetId)?.State).toBe('Fixed');

    const back = await runWith(id, [host(address)]);
    expect(back.Import.Counts.Reopened).toBe(1);
    expect((await findingsOn(address)).find((f) => f.Id === telnetId)?.State).toBe('Reopened');
  });

  it('names the addresses the node refused in the run', async () => {
    const scan = await call('POST', '/systemscans', manager, {
      Name: 'Partly refused',
      ScanTargets: [{ Range: '198.18.30.64/28' }],
    });
    const id = scan.json().Id;
    const refused = {
      refused: true,
      address: '198.18.30.66',
      rule: 'Excluded',
      message: '198.18.30.66 is excluded from scans.',
    };
    const report = await runWith(id, [host('198.18.30.65'), refused]);
    expect(report.Run.State).toBe('Completed');
    expect(report.Run.Refused).toEqual({
      Count: 1,
      Addresses: [
        { Address: '198.18.30.66', Rule: 'Excluded', Message: '198.18.30.66 is excluded from scans.' },
      ],
    });
    expect(report.Hosts.map((h: { IpAddress: string }) => h.IpAddress)).toEqual(['198.18.30.65']);
    const listed = (await call('GET', `/systemscans/${id}`, reader)).json();
    expect(listed.LastRun.Refused.Count).toBe(1);
    const run = (await call('GET', `/scanruns/${report.Run.Id}`, reader)).json();
    expect(run.Refused.Addresses[0].Address).toBe('198.18.30.66');
  });

  it('a host that did not answer is reported so, and is neither an asset nor seen', async () => {
    const scan = await call('POST', '/systemscans', manager, {
      Name: 'Dead hosts',
      ScanTargets: [{ Range: '198.18.30.80/28' }],
    });
    const id = scan.json().Id;
    const [live, dead] = ['198.18.30.81', '198.18.30.82'];
    await runWith(id, [host(live)]);
    const assetOf = async (address: string) =>
      (await call('GET', `/assets?Search=${address}`, reader))
        .json()
        .Items.find((a: { IpAddresses: string[] }) => a.IpAddresses.includes(address));
    const before = await assetOf(live);
    expect(before).toBeDefined();
    const silent = (address: string) =>
      host(address, {
        answered: false,
        openPorts: [],
        closedPorts: [],
        filtered: 1000,
        services: [],
        checks: [],
      });
    const report = await runWith(id, [silent(live), silent(dead)]);
    expect(report.Run.State).toBe('Completed');
    expect(
      report.Hosts.map((h: { IpAddress: string; Answered: boolean }) => [h.IpAddress, h.Answered]),
    ).toEqual([
      [live, false],
      [dead, false],
    ]);
    expect(await assetOf(dead)).toBeUndefined();
    const after = await assetOf(live);
    expect(after.LastSeen).toBe(before.LastSeen);
    // Nothing was learnt of its ports: its findings stay open.
    expect(report.Import.Counts.Fixed).toBe(0);
    expect((await findingsOn(live)).every((f) => f.State !== 'Fixed')).toBe(true);
    // A host that answers with no port open (a refusal, an ARP answer) is still seen.
    const quiet = await runWith(id, [
      host(live, { openPorts: [], services: [], checks: [], closedPorts: [22] }),
    ]);
    expect(quiet.Hosts[0].Answered).toBe(true);
    expect((await assetOf(live)).LastSeen).not.toBe(before.LastSeen);
  });

  it('start and stop: 409 while a run is queued, Stopped after', async () => {
    const node = await enrolNode(t, admin, { Kinds: ['System'] });
    // Pinned to a node that never claims: the run stays Queued.
    const scan = await call('POST', '/systemscans', manager, {
      Name: 'Pinned',
      ScanTargets: [{ Range: '198.18.30.40' }],
      ScanNodeId: node.nodeId,
    });
    expect(scan.statusCode, scan.body).toBe(201);
    const id = scan.json().Id;
    expect((await call('POST', `/systemscans/${id}/start`, analyst)).statusCode).toBe(201);
    expect((await call('POST', `/systemscans/${id}/start`, analyst)).statusCode).toBe(409);
    expect((await call('DELETE', `/systemscans/${id}`, manager)).statusCode).toBe(409);
    const stopped = await call('POST', `/systemscans/${id}/stop`, analyst);
    expect(stopped.json().State).toBe('Stopped');
    expect((await call('GET', `/systemscans/${id}`, reader)).json().RunState).toBe('Stopped');
    expect((await call('POST', `/systemscans/${id}/stop`, reader)).statusCode).toBe(403);
  });

  it('Verify: one finding → a run on its address and port only; it closes when gone, the others stay', async () => {
    const scan = await call('POST', '/systemscans', manager, {
      Name: 'Verify me',
      ScanTargets: [{ Range: '198.18.30.48/28' }],
    });
    const id = scan.json().Id;
    const [a, b] = ['198.18.30.49', '198.18.30.50'];
    await runWith(id, [host(a), host(b)]);
    const telnetA = (await findingsOn(a)).find((f) => f.Title.startsWith('Telnet'))!;
    const telnetB = (await findingsOn(b)).find((f) => f.Title.startsWith('Telnet'))!;

    // An imported finding (another tool's) on the same host.
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    await t.services.imports.ingestRecords(ctx, {
      importId: '01900000-0000-7000-8000-00000000c001',
      source: 'Nessus',
      format: 'nessus',
      scopeName: 'weekly',
      displayName: 'weekly.nessus',
      content: { sha256: '0'.repeat(64), size: 1 },
      records: [
        {
          type: 'finding',
          asset: { kind: 'Host', ipAddresses: [a] },
          vulnerability: { ruleId: '10881', title: 'SSH Protocol Versions Supported' },
          location: { kind: 'Port', port: 22, protocol: 'tcp' },
          severity: 'Info',
        },
      ],
    });
    const imported = (await findingsOn(a)).find((f) => f.Title === 'SSH Protocol Versions Supported')!;

    const bad = await call('POST', '/findings/verify', analyst, { FindingIds: [] });
    expectBadRequest(bad, 'FindingIds');
    expectBadRequest(await call('POST', '/findings/verify', analyst, { FindingIds: ['nope'] }), 'FindingIds');
    expectBadRequest(await call('POST', '/findings/verify', analyst, {}), 'FindingIds');
    expect((await call('POST', '/findings/verify', reader, { FindingIds: [telnetA.Id] })).statusCode).toBe(
      403,
    );

    t.clock.now = new Date(t.clock.now.getTime() + 60_000);
    emit = [host(a, { checks: [], openPorts: [80] })];
    const res = await call('POST', '/findings/verify', analyst, {
      FindingIds: [telnetA.Id, imported.Id, '0193a5c4-7f10-7c3e-9d41-000000000000'],
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().Runs).toEqual([
      { RunId: expect.any(String), ScanId: id, Kind: 'System', FindingIds: [telnetA.Id] },
    ]);
    expect(res.json().Skipped).toEqual(
      expect.arrayContaining([
        {
          FindingId: imported.Id,
          Reason: 'found by Nessus; Rampart can only verify what its own scans found',
        },
        {
          FindingId: '0193a5c4-7f10-7c3e-9d41-000000000000',
          Reason: expect.stringContaining('No such finding'),
        },
      ]),
    );
    const report = await settled(id);
    expect(report.Run.Id).toBe(res.json().Runs[0].RunId);
    expect(report.Verify).toEqual({ FindingIds: [telnetA.Id] });
    expect(specs.at(-1)).toMatchObject({ targets: [{ range: a }], portsOverride: '23' });
    expect(report.Import.Counts.Fixed).toBe(1);
    expect((await findingsOn(a)).find((f) => f.Id === telnetA.Id)?.State).toBe('Fixed');
    // The CVE finding on port 80 of the same host, and host b's finding, were not asked about.
    expect((await findingsOn(a)).find((f) => f.Title === 'CVE-2021-23017')?.State).toBe('Open');
    expect((await findingsOn(b)).find((f) => f.Id === telnetB.Id)?.State).toBe('Open');
    expect((await findingsOn(a)).find((f) => f.Id === imported.Id)?.State).toBe('Open');
  });

  it('Verify of a ticket: its findings checked again, the ticket resolves itself when all are Fixed', async () => {
    const scan = await call('POST', '/systemscans', manager, {
      Name: 'Ticket scan',
      ScanTargets: [{ Range: '198.18.30.64/28' }],
    });
    const id = scan.json().Id;
    const address = '198.18.30.65';
    await runWith(id, [host(address)]);
    const telnet = (await findingsOn(address)).find((f) => f.Title.startsWith('Telnet'))!;
    const ticket = await call('POST', '/tickets', analyst, {
      Title: 'Turn Telnet off',
      FindingIds: [telnet.Id],
    });
    expect(ticket.statusCode, ticket.body).toBe(201);
    const ticketId = ticket.json().Id;

    expect((await call('POST', '/tickets/not-a-uuid/verify', analyst)).statusCode).toBe(400);
    expect(
      (await call('POST', '/tickets/0193a5c4-7f10-7c3e-9d41-000000000000/verify', analyst)).statusCode,
    ).toBe(404);

    t.clock.now = new Date(t.clock.now.getTime() + 60_000);
    emit = [host(address, { checks: [] })];
    const res = await call('POST', `/tickets/${ticketId}/verify`, analyst);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().Runs).toHaveLength(1);
    await settled(id);
    expect((await findingsOn(address)).find((f) => f.Id === telnet.Id)?.State).toBe('Fixed');
    expect((await call('GET', `/tickets/${ticketId}`, reader)).json().State).toBe('Resolved');
  });

  it('radar-compat: a check finding’s PluginGuidId resolves through both detailed calls; ScanId filters', async () => {
    const scan = await call('POST', '/systemscans', manager, {
      Name: 'Compat scan',
      ScanTargets: [{ Range: '198.18.30.80/28' }],
    });
    const id = scan.json().Id;
    const address = '198.18.30.81';
    await runWith(id, [host(address)]);
    const assetId = (await call('GET', `/assets?Search=${address}`, reader))
      .json()
      .Items.find((a: { IpAddresses: string[] }) => a.IpAddresses.includes(address)).Id;
    // A finding another tool reported on the same asset.
    await t.services.imports.ingestRecords(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      {
        importId: '01900000-0000-7000-8000-00000000c002',
        source: 'Nessus',
        format: 'nessus',
        scopeName: 'weekly-compat',
        displayName: 'weekly.nessus',
        content: { sha256: '1'.repeat(64), size: 1 },
        records: [
          {
            type: 'finding',
            asset: { kind: 'Host', ipAddresses: [address] },
            vulnerability: { ruleId: '10882', title: 'SSH Weak Algorithms Supported' },
            location: { kind: 'Port', port: 22, protocol: 'tcp' },
            severity: 'Medium',
          },
        ],
      },
    );
    const report = (body: unknown) =>
      apiCall(
        t,
        'POST',
        `/assets/${assetId}/reports/latest/vulnerabilitiesandfindings/withStartIndex/0/andPageSize/100`,
        { who: reader, body, channel: 'integration' },
      );
    const all = await report({ Findings: 'All' });
    expect(all.json().TotalCount).toBe(3);
    const scoped = await report({ ScanId: id, Findings: 'All' });
    expect(scoped.statusCode, scoped.body).toBe(200);
    const names = scoped
      .json()
      .Items.map((i: { Name: string }) => i.Name)
      .sort();
    expect(names).toEqual(['CVE-2021-23017', 'Telnet service (cleartext logins)']);
    expect(
      (await report({ ScanId: '0193a5c4-7f10-7c3e-9d41-000000000000', Findings: 'All' })).statusCode,
    ).toBe(404);
    expect((await report({ ScanId: 'garbage', Findings: 'All' })).statusCode).toBe(404);

    const telnet = scoped.json().Items.find((i: { Name: string }) => i.Name.startsWith('Telnet'));
    expect(telnet.PluginGuidId).toBe(checkGuid('cleartext.telnet'));
    for (const kind of ['systemscan', 'webscan']) {
      const detailed = await apiCall(t, 'GET', `/vulnerabilities/${kind}/${telnet.PluginGuidId}/detailed`, {
        who: reader,
        channel: 'integration',
      });
      expect(detailed.statusCode, detailed.body).toBe(200);
      expect(detailed.json()).toMatchObject({
        Name: 'Telnet service (cleartext logins)',
        RiskLevel: 'High',
        VulnerabilityCategory: 'Encryption',
        CVSSBaseScore: expect.any(Number),
      });
    }
    // Every PluginGuidId the report answers resolves, the CVE's too.
    for (const item of all.json().Items) {
      const detailed = await apiCall(t, 'GET', `/vulnerabilities/systemscan/${item.PluginGuidId}/detailed`, {
        who: reader,
        channel: 'integration',
      });
      expect(detailed.statusCode, item.Name).toBe(200);
    }
  });
});
