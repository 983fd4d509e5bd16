import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall, enrolNode } from '../../helpers/scan-nodes.js';

// Discovery scans through the API. The node side is the real node protocol
// (claim, numbered batches, finish), spoken here by the test as a scan node would; the engine
// itself is tested against the lab (test/scanning/discovery, test/e2e/discovery-lab).

const host = (address: string, extra: Record<string, unknown> = {}) => ({
  address,
  hostname: null,
  openPorts: [22],
  closedPorts: [80],
  macAddress: null,
  osGuess: null,
  ...extra,
});

describe.each(DB_KINDS)('discovery scans [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let analyst: Credentials;
  let reader: Credentials;
  let node: { nodeId: string; nodeKey: string };

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    who: Credentials,
    body?: unknown,
    channel?: string,
  ) => apiCall(t, method, url, { who, body, channel });
  const create = (body: Record<string, unknown>, who = manager) => call('POST', '/discoveryscans', who, body);
  const claim = () => apiCall(t, 'POST', '/scanruns/claim', { nodeKey: node.nodeKey, body: {} });
  const batch = (run: string, attempt: number, seq: number, items: unknown[]) =>
    apiCall(t, 'PUT', `/scanruns/${run}/attempts/${attempt}/batches/${seq}`, {
      nodeKey: node.nodeKey,
      body: { Items: items, Progress: { Done: items.length, Total: 16, Found: items.length } },
    });
  const finish = (run: string, attempt: number, state = 'Completed') =>
    apiCall(t, 'POST', `/scanruns/${run}/attempts/${attempt}/finish`, {
      nodeKey: node.nodeKey,
      body: { State: state },
    });

  /** Starts the scan and plays a node that reports these hosts, then completes the run. */
  const runWith = async (scanId: string, hosts: unknown[]) => {
    const started = await call('POST', `/discoveryscans/${scanId}/runs`, analyst);
    expect(started.statusCode, started.body).toBe(201);
    const claimed = await claim();
    expect(claimed.statusCode, claimed.body).toBe(200);
    expect(claimed.json().Id).toBe(started.json().Id);
    const { Id, Attempt } = claimed.json();
    expect((await batch(Id, Attempt, 1, hosts)).statusCode).toBe(200);
    // The node retries its batch (the answer was lost): applied once.
    expect((await batch(Id, Attempt, 1, hosts)).json().Applied).toBe(false);
    expect((await finish(Id, Attempt)).statusCode).toBe(200);
    return Id as string;
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
    node = await enrolNode(t, admin);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('refuses every target until an Admin allows a range, naming the target and the rule', async () => {
    const res = await create({ Name: 'Lab', ScanTargets: [{ Range: '198.18.0.0/28' }] });
    expect(res.statusCode).toBe(422);
    expect(res.json().type).toContain('scan-target-refused');
    expect(res.json().errors[0].path).toBe('/ScanTargets/0/Range');
    expect(res.json().detail).toContain('198.18.0.0/28');
    expect((await call('GET', '/discoveryscans', admin)).json().TotalCount).toBe(0);
  });

  it('saves a scan on allowed ranges, lists it Idle with the default template, and refuses bad input', async () => {
    const allowed = await call('POST', '/allowedtargets', admin, {
      Kind: 'Allowed',
      Target: '198.18.0.0/24',
    });
    expect(allowed.statusCode).toBe(201);
    const res = await create({
      Name: 'Lab',
      ScanTargets: [{ Range: '198.18.0.0/28', Name: 'lab', Exclude: ['198.18.0.9'] }],
      Exclusions: ['198.18.0.14'],
      Notifications: [{ EmailAddresses: ['soc@example.com'], NotificationLevel: 'ScanStartsEnds' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      Name: 'Lab',
      ScanTargets: [{ Range: '198.18.0.0/28', Name: 'lab', Exclude: ['198.18.0.9'] }],
      Exclusions: ['198.18.0.14'],
      TemplateId: '01900000-0000-7000-8000-0000000000d1',
      ScanNodeId: null,
      RunState: 'Idle',
      LastRun: null,
      ScanLastCompleted: null,
    });
    const list = await call('GET', '/discoveryscans', reader);
    expect(list.json().Items.map((s: { Id: string }) => s.Id)).toEqual([res.json().Id]);

    const refused: [Record<string, unknown>, number, string][] = [
      [{ Name: 'x', ScanTargets: [] }, 400, 'ScanTargets'],
      [{ Name: '', ScanTargets: [{ Range: '198.18.0.1' }] }, 400, 'Name'],
      [{ Name: 'x', ScanTargets: [{ Range: 'not a range!' }] }, 422, '/ScanTargets/0/Range'],
      [{ Name: 'x', ScanTargets: [{ Range: '198.18.0.0/15' }] }, 422, 'TooLarge'],
      [{ Name: 'x', ScanTargets: [{ Range: '169.254.169.254' }] }, 422, 'AlwaysRefused'],
      [{ Name: 'x', ScanTargets: [{ Range: '127.0.0.1' }] }, 422, 'Loopback'],
      [{ Name: 'x', ScanTargets: [{ Range: '10.0.0.0/24' }] }, 422, 'NotAllowed'],
      [
        {
          Name: 'x',
          ScanTargets: [{ Range: '198.18.0.1' }],
          TemplateId: '0193a5c4-7f10-7c3e-9d41-000000000000',
        },
        404,
        'template',
      ],
      [
        {
          Name: 'x',
          ScanTargets: [{ Range: '198.18.0.1' }],
          ScanNodeId: '0193a5c4-7f10-7c3e-9d41-000000000000',
        },
        404,
        'node',
      ],
      [{ Name: 'x', ScanTargets: [{ Range: '198.18.0.1' }], Surprise: true }, 400, 'Surprise'],
      [
        {
          Name: 'x',
          ScanTargets: [{ Range: '198.18.0.1' }],
          Notifications: [{ EmailAddresses: ['nope'], NotificationLevel: 'Never' }],
        },
        400,
        'EmailAddresses',
      ],
    ];
    for (const [body, status, text] of refused) {
      const r = await create(body);
      expect(r.statusCode, `${JSON.stringify(body)}: ${r.body}`).toBe(status);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(r.body, JSON.stringify(body)).toContain(text);
    }
    expect((await create({ Name: 'x', ScanTargets: [{ Range: '198.18.0.1' }] }, analyst)).statusCode).toBe(
      403,
    );
    expect((await call('GET', '/discoveryscans/nope', admin)).statusCode).toBe(400);
    expect(
      (await call('GET', '/discoveryscans/0193a5c4-7f10-7c3e-9d41-000000000000', admin)).statusCode,
    ).toBe(404);
  });

  it('queues a run, refuses a second while it is under way, and stops it', async () => {
    const scan = (await create({ Name: 'Stop me', ScanTargets: [{ Range: '198.18.0.16/29' }] })).json();
    const started = await call('POST', `/discoveryscans/${scan.Id}/runs`, analyst);
    expect(started.statusCode).toBe(201);
    expect(started.json()).toMatchObject({ State: 'Queued', Attempt: 0 });
    expect((await call('POST', `/discoveryscans/${scan.Id}/runs`, analyst)).statusCode).toBe(409);
    expect((await call('DELETE', `/discoveryscans/${scan.Id}`, manager)).statusCode).toBe(409);
    expect((await call('GET', `/discoveryscans/${scan.Id}`, reader)).json().RunState).toBe('Queued');
    const stopped = await call('POST', `/discoveryscans/${scan.Id}/stop`, analyst);
    expect(stopped.json().State).toBe('Stopped');
    expect((await call('POST', `/discoveryscans/${scan.Id}/stop`, analyst)).statusCode).toBe(409);
    expect((await call('POST', `/discoveryscans/${scan.Id}/runs`, reader)).statusCode).toBe(403);
    expect((await call('DELETE', `/discoveryscans/${scan.Id}`, manager)).statusCode).toBe(204);
    // Nothing left for a node to claim.
    expect((await claim()).statusCode).toBe(204);
  });

  it('reports the hosts a run found, New then Seen and Gone, and makes them assets', async () => {
    const scan = (await create({ Name: 'Report', ScanTargets: [{ Range: '198.18.0.32/28' }] })).json();
    const first = await runWith(scan.Id, [
      host('198.18.0.33', {
        hostname: 'web1.lab.example',
        macAddress: '02:00:00:00:00:21',
        osGuess: 'Linux',
      }),
      host('198.18.0.34'),
      // A host outside what the run was allowed to scan is dropped, not stored. (A malformed
      // item refuses the whole batch: test/modules/scanruns/batch-contract.test.ts.)
      host('10.9.8.7'),
    ]);
    const after = (await call('GET', `/discoveryscans/${scan.Id}`, reader)).json();
    expect(after).toMatchObject({ RunState: 'Completed', LastCompletedRunId: first });
    expect(after.ScanLastCompleted).toBe(t.clock.now.toISOString());
    const report = await call('GET', `/discoveryscans/${scan.Id}/reports/latest/hosts`, reader);
    expect(report.statusCode, report.body).toBe(200);
    expect(report.json().Counts).toEqual({ New: 2, Seen: 0, Gone: 0, Found: 0 });
    expect(report.json().Items.map((h: { IpAddress: string }) => h.IpAddress)).toEqual([
      '198.18.0.33',
      '198.18.0.34',
    ]);
    const web1 = report.json().Items[0];
    expect(web1).toMatchObject({
      Hostname: 'web1.lab.example',
      MacAddress: '02:00:00:00:00:21',
      OperatingSystem: 'Linux',
      OpenPorts: [22],
      ClosedPorts: [80],
      Status: 'New',
    });
    const asset = (await call('GET', `/assets/${web1.AssetId}`, reader)).json();
    expect(asset.IpAddresses).toContain('198.18.0.33');
    expect(asset.Fqdn).toBe('web1.lab.example');

    t.clock.now = new Date(t.clock.now.getTime() + 3600_000);
    const second = await runWith(scan.Id, [host('198.18.0.33'), host('198.18.0.40')]);
    const again = (await call('GET', `/discoveryscans/${scan.Id}/reports/${second}/hosts`, reader)).json();
    expect(again.Counts).toEqual({ New: 1, Seen: 1, Gone: 1, Found: 0 });
    const byAddress = Object.fromEntries(
      again.Items.map((h: { IpAddress: string; Status: string }) => [h.IpAddress, h]),
    );
    expect(byAddress['198.18.0.33']).toMatchObject({ Status: 'Seen', AssetId: web1.AssetId });
    expect(byAddress['198.18.0.34'].Status).toBe('Gone');
    expect(byAddress['198.18.0.40'].Status).toBe('New');
    expect(byAddress['198.18.0.33'].FirstSeen < byAddress['198.18.0.33'].LastSeen).toBe(true);
    const gone = await call('GET', `/discoveryscans/${scan.Id}/reports/${second}/hosts?Status=Gone`, reader);
    expect(gone.json().Items.map((h: { IpAddress: string }) => h.IpAddress)).toEqual(['198.18.0.34']);
    // The first run's report stays as it was.
    const old = (await call('GET', `/discoveryscans/${scan.Id}/reports/${first}/hosts`, reader)).json();
    expect(old.Counts.New).toBe(2);
    // The same host seen twice is one asset.
    const assets = await call('GET', '/assets?Search=198.18.0.33', reader);
    expect(assets.json().Items).toHaveLength(1);
  });

  it('fails a run when its targets are no longer allowed when a node claims it', async () => {
    const scan = (await create({ Name: 'Revoked', ScanTargets: [{ Range: '198.18.0.128/28' }] })).json();
    expect((await call('POST', `/discoveryscans/${scan.Id}/runs`, analyst)).statusCode).toBe(201);
    const allowed = (await call('GET', '/allowedtargets', admin)).json().Items;
    for (const a of allowed) await call('DELETE', `/allowedtargets/${a.Id}`, admin);
    expect((await claim()).statusCode).toBe(204);
    const after = (await call('GET', `/discoveryscans/${scan.Id}`, reader)).json();
    expect(after.RunState).toBe('Failed');
    expect(after.LastRun.Error).toContain('198.18.0.128/28');
    await call('POST', '/allowedtargets', admin, { Kind: 'Allowed', Target: '198.18.0.0/24' });
  });

  it('starts a scheduled scan at each occurrence, once, and refuses a schedule it cannot keep', async () => {
    const start = new Date(t.clock.now.getTime() + 3600_000);
    const res = await create({
      Name: 'Nightly',
      ScanTargets: [{ Range: '198.18.0.192/28' }],
      Schedule: { SchedulingMode: 'Daily', StartTime: start.toISOString(), TimeZone: 'UTC' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().Schedule).toMatchObject({ SchedulingMode: 'Daily' });
    expect(res.json().NextRunAt).toBe(start.toISOString());
    t.clock.now = new Date(start.getTime() + 1000);
    // Two instances' schedulers tick: the occurrence fires once.
    const fired = [...(await t.services.scheduler.tick()), ...(await t.services.scheduler.tick())];
    expect(fired.filter((f) => f.key.startsWith('discovery-scan:'))).toHaveLength(1);
    await expect
      .poll(async () => (await call('GET', `/discoveryscans/${res.json().Id}`, reader)).json().RunState)
      .toBe('Queued');
    const after = (await call('GET', `/discoveryscans/${res.json().Id}`, reader)).json();
    expect(after.NextRunAt).toBe(new Date(start.getTime() + 86_400_000).toISOString());
    await call('POST', `/discoveryscans/${res.json().Id}/stop`, analyst);

    const bad: [Record<string, unknown>, string][] = [
      [{ SchedulingMode: 'Daily' }, 'StartTime'],
      [{ SchedulingMode: 'Cron', Cron: 'every day' }, 'Cron'],
      [{ SchedulingMode: 'Daily', StartTime: start.toISOString(), TimeZone: 'Mars/Olympus' }, 'TimeZone'],
      [{ SchedulingMode: 'Sometimes' }, 'SchedulingMode'],
    ];
    for (const [Schedule, field] of bad) {
      const r = await create({ Name: 'Bad schedule', ScanTargets: [{ Range: '198.18.0.192/28' }], Schedule });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.body).toContain(field);
    }
    // None: on demand only.
    const none = await call('PUT', `/discoveryscans/${res.json().Id}`, manager, {
      Name: 'Nightly',
      ScanTargets: [{ Range: '198.18.0.192/28' }],
      Schedule: { SchedulingMode: 'None' },
    });
    expect(none.json()).toMatchObject({ Schedule: { SchedulingMode: 'None' }, NextRunAt: null });
  });

  it('answers the original service’s discovery calls as its clients read them', async () => {
    const body = {
      CanStartScan: 'true',
      Exclude: '',
      Id: null,
      LastReportId: null,
      Name: 'From the original',
      Range: '198.18.0.64/28',
      ReportId: null,
      ResponsibleUser: null,
      ScanLastCompleted: null,
      ScanLastSeen: null,
      ScanNode: { Name: 'test node', Id: node.nodeId },
      ScanNodeId: node.nodeId,
      ScanRunState: 'Idle',
      ScanStatistics: null,
      ScanTemplate: { Name: 'Host Discovery [T1]', Id: null },
      ScheduleOption: { SchedulingMode: 'None' },
      AssetMonitorings: [],
      TemplateId: null,
      scanTargets: [
        { Range: '198.18.0.64/28', Name: 'lab', Exclude: '198.18.0.70', invalidRangeSize: false },
      ],
      scanMode: 'hostDiscovery',
      MessageNotification: [
        { EmailAddresses: 'soc@example.com', NotificationLevel: 'ScanStartsEnds', NotificationLevelId: '6' },
      ],
    };
    const created = await call('POST', '/DiscoveryScans', manager, body, 'integration');
    expect(created.statusCode, created.body).toBe(200);
    const id = created.body.replace(/["[\]]/g, '');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const scan = (await call('GET', `/discoveryscans/${id}`, reader)).json();
    expect(scan).toMatchObject({
      ScanTargets: [{ Range: '198.18.0.64/28', Name: 'lab', Exclude: ['198.18.0.70'] }],
      ScanNodeId: node.nodeId,
      TemplateId: '01900000-0000-7000-8000-0000000000d1',
      Notifications: [{ EmailAddresses: ['soc@example.com'], NotificationLevel: 'ScanStartsEnds' }],
    });

    const nodes = await call('GET', '/scannodes/discoveryScan', reader, undefined, 'integration');
    expect(nodes.json()).toContainEqual({ Name: 'test node', Value: node.nodeId });
    expect(
      (await call('GET', '/scantemplates/systemscan/simple', reader, undefined, 'integration')).json(),
    ).toContainEqual({
      Name: 'System scan, well-known ports [S1]',
      Id: '01900000-0000-7000-8000-0000000000e1',
    });
    expect((await call('GET', '/discoveryscans/any', reader, undefined, 'integration')).json()).toBe(true);
    const simple = (await call('GET', '/discoveryscans/simple', reader, undefined, 'integration')).json();
    expect(simple).toContainEqual({ Name: 'From the original', Id: id });
    const page = await apiCall(t, 'POST', '/discoveryscans/withstartindex/0/andpagesize/100', {
      who: reader,
      channel: 'integration',
      body: '',
    });
    expect(page.statusCode, page.body).toBe(200);
    const item = page.json().Items.find((s: { Id: string }) => s.Id === id);
    expect(item).toEqual({
      Id: id,
      Name: 'From the original',
      Range: '198.18.0.64/28',
      LastReportId: null,
      ScanLastCompleted: null,
    });

    const start = await apiCall(t, 'PUT', `/discoveryscans/%20${id}/start`, {
      who: analyst,
      channel: 'integration',
    });
    expect(start.statusCode, start.body).toBe(200);
    const claimed = (await claim()).json();
    await batch(claimed.Id, claimed.Attempt, 1, [
      host('198.18.0.65', { hostname: 'radar.lab.example', osGuess: 'Linux' }),
    ]);
    await finish(claimed.Id, claimed.Attempt);
    const hosts = await call(
      'POST',
      `/discoveryscans/${id}/reports/latest/hosts/withStartIndex/0/andPageSize/1000`,
      reader,
      {},
      'integration',
    );
    expect(hosts.statusCode, hosts.body).toBe(200);
    expect(hosts.json().Items).toEqual([
      { IPAddress: '198.18.0.65', Hostname: 'radar.lab.example', OperatingSystem: 'Linux', MacAddress: null },
    ]);
    const listed = (
      await apiCall(t, 'POST', '/discoveryscans/withstartindex/0/andpagesize/100', {
        who: reader,
        channel: 'integration',
      })
    ).json();
    expect(listed.Items.find((s: { Id: string }) => s.Id === id).LastReportId).toBe(claimed.Id);

    const bad = await call(
      'POST',
      '/DiscoveryScans',
      manager,
      { ...body, scanTargets: [], Range: '' },
      'integration',
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('scanTargets');
    const badLevel = await call(
      'POST',
      '/discoveryscans',
      manager,
      { ...body, MessageNotification: [{ EmailAddresses: 'a@b.example', NotificationLevel: 'Sometimes' }] },
      'integration',
    );
    expect(badLevel.statusCode).toBe(400);
    expect(badLevel.body).toContain('NotificationLevel');
    const badTemplate = await call(
      'POST',
      '/discoveryscans',
      manager,
      { ...body, ScanTemplate: { Name: 'No such' } },
      'integration',
    );
    expect(badTemplate.statusCode).toBe(400);
  });

  it('takes a batch that names one host twice, keeping its later facts (a node is another program)', async () => {
    const scan = (await create({ Name: 'Twice', ScanTargets: [{ Range: '198.18.0.80/29' }] })).json();
    await runWith(scan.Id, [
      host('198.18.0.81', { hostname: 'first.lab.example' }),
      host('198.18.0.81', { hostname: 'second.lab.example' }),
    ]);
    const report = await call('GET', `/discoveryscans/${scan.Id}/reports/latest/hosts`, reader);
    expect(report.statusCode, report.body).toBe(200);
    expect(
      report.json().Items.map((h: { IpAddress: string; Hostname: string }) => [h.IpAddress, h.Hostname]),
    ).toEqual([['198.18.0.81', 'second.lab.example']]);
  });
});
