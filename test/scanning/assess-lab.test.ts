// Assess and verify, from the original's calls to the hosts, in a lab of network namespaces the
// test builds (test/lab): a scan group follows a discovery scan of the lab; the system and web
// scans it creates run on the server's own node with the real engines and become findings with
// evidence; the lab is fixed (TLS 1.0 off, .git removed) and Verify closes exactly what was fixed.
// Traffic goes only to the lab, which the test first proves is routed only there.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInExecutors } from '../../src/scanning/node/executors.js';
import { buildTestApp, type Credentials, type TestApp, TestClock } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { apiCall } from '../helpers/scan-nodes.js';
import { createLab, type Lab, labAvailable } from '../lab/lab.js';

const DISCOVERY = {
  Ports: [22, 80, 443, 6379],
  TimeoutMs: 1000,
  Retries: 1,
  MaxInFlight: 64,
  ConnectionsPerSecond: 500,
  PerHostInFlight: 4,
  ReverseDns: false,
  UseNmap: false,
};

interface Finding {
  Id: string;
  Title: string;
  State: string;
  Source: string;
  AssetId: string;
  PluginGuidId: string;
  Location: { Kind: string; Port: number | null; Url: string | null };
}

describe.runIf(labAvailable()).each(DB_KINDS)('[lab] assess and verify through the server [%s]', (kind) => {
  let lab: Lab;
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  const clock = new TestClock();
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    apiCall(t, method, url, { who: admin, body });
  const original = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    apiCall(t, method, url, { who: admin, body, channel: 'integration' });

  beforeAll(async () => {
    lab = await createLab(
      [
        { name: 'ssh', index: 20, daemons: ['sshd'] },
        { name: 'legacy', index: 21, daemons: ['nginx-legacy-tls'] },
        { name: 'soft', index: 22, daemons: ['nginx-soft404'] },
        { name: 'redis', index: 23, daemons: ['redis'] },
      ],
      { clock: clock.fn },
    );
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      clock,
      env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
      // The engines every node runs, on the application's clock (the lab's certificate expired by it).
      scanExecutors: builtInExecutors(clock.fn),
    });
    admin = t.admin;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    lab?.teardown();
  });

  const address = (name: string) => lab.hosts.get(name)!.address;
  const findings = async (): Promise<Finding[]> => {
    const page = await call('GET', '/findings?PageSize=500');
    expect(page.statusCode, page.body).toBe(200);
    return page.json().Items;
  };

  it('a scan group follows discovery; its scans find what is wrong; Verify closes exactly what was fixed', async () => {
    lab.assertRoutedIntoLab();
    expect((await call('POST', '/allowedtargets', { Kind: 'Allowed', Target: lab.subnet })).statusCode).toBe(
      201,
    );
    const discoveryTemplate = (
      await call('POST', '/scantemplates', { Name: 'Lab', Settings: DISCOVERY })
    ).json();
    const systemTemplate = await call('POST', '/scantemplates', {
      Name: 'Lab system',
      Kind: 'System',
      Settings: {
        Ports: '22,80,443,6379',
        TimeoutMs: 1000,
        Retries: 0,
        MaxInFlight: 64,
        ConnectionsPerSecond: 500,
        PerHostInFlight: 8,
        PortBudgetMs: 30_000,
        HostBudgetMs: 120_000,
        RunBudgetMs: 600_000,
        ServiceDetection: true,
        TlsChecks: true,
        SafeChecks: true,
        UseNmapVersionDetection: false,
      },
    });
    expect(systemTemplate.statusCode, systemTemplate.body).toBe(201);

    // The discovery scan and the group, as the original's clients create them.
    const discovery = await call('POST', '/discoveryscans', {
      Name: 'Lab',
      ScanTargets: [{ Range: `${address('ssh')}-${address('redis')}` }],
      TemplateId: discoveryTemplate.Id,
    });
    expect(discovery.statusCode, discovery.body).toBe(201);
    const discoveryId = discovery.json().Id;
    const group = await original('POST', '/scangroups/', {
      ScanningMode: 'RegularScan',
      ScanGroupName: 'Lab servers',
      ScanDescription: 'Everything the lab discovery finds',
      ResponsiblePersonId: admin.userId,
      ScanTargets: [],
      AssetMonitoringConfigurations: [
        {
          Id: null,
          IsActive: 'true',
          AssetSourceType: 'DiscoveryScan',
          DiscoveryScanId: discoveryId,
          ScheduleId: null,
          TrackSystemScans: 'True',
          RemoveSystemScanWhenUndiscovered: 'true',
          RunSystemScanImmediatelyAfterAdd: 'true',
          RunSystemScanImmediatelyIfNewServicesDiscovered: 'false',
        },
        {
          Id: null,
          IsActive: 'true',
          AssetSourceType: 'DiscoveryScan',
          DiscoveryScanId: discoveryId,
          ScheduleId: null,
          TrackWebScans: 'true',
          RemoveWebScanWhenUndiscovered: 'true',
          RunWebScanImmediatelyAfterAdd: 'true',
          TrackedHttpPortRangeForWebScan: '80',
          TrackedHttpsPortRangeForWebScan: '443',
        },
      ],
      SystemScanSettingsEnabled: 'true',
      MaxSystemScans: '10',
      SystemScanTemplateId: systemTemplate.json().Id,
      SystemScanNodeId: null,
      SystemScanScheduleId: null,
      WebScanSettingsEnabled: 'true',
      MaxWebScans: '10',
      WebScanTemplateId: null,
      WebScanNodeId: null,
      WebScanScheduleId: null,
      MessageNotification: [{ EmailAddresses: '', NotificationLevel: 'Never', NotificationLevelId: '0' }],
    });
    expect(group.statusCode, group.body).toBe(200);
    expect(group.json().AssignedToUser).toBeTruthy();
    const groupId = group.json().Id;

    expect((await original('PUT', `/discoveryscans/${discoveryId}/start`)).statusCode).toBe(200);

    // One system scan per discovered host, one web scan per host and web port; each runs once.
    const done = async (what: 'systemscans' | 'webscans', count: number) => {
      await expect
        .poll(
          async () => {
            const scans = (await original('GET', `/scangroups/${groupId}/${what}`)).json() as {
              ScanLastCompleted: string | null;
            }[];
            return scans.length === count && scans.every((s) => s.ScanLastCompleted !== null);
          },
          { timeout: 180_000, interval: 1000 },
        )
        .toBe(true);
    };
    await done('systemscans', 4);
    // legacy: http 80 and https 443; soft: http 80.
    await done('webscans', 3);
    // Each finished run is turned into findings by a job: wait until every scan's are stored.
    const stored = async (path: 'systemscans' | 'webscans', scanId: string, runId?: string) =>
      expect
        .poll(
          async () => {
            const latest = (await call('GET', `/${path}/${scanId}/runs/latest`)).json();
            return latest.Import !== null && (runId === undefined || latest.Run.Id === runId);
          },
          { timeout: 120_000, interval: 500 },
        )
        .toBe(true);
    for (const path of ['systemscans', 'webscans'] as const)
      for (const scan of (await original('GET', `/scangroups/${groupId}/${path}`)).json() as { Id: string }[])
        await stored(path, scan.Id);

    const before = await findings();
    // Which lab host a finding is on: by its URL (web scans) or its asset's address (system scans).
    const assets = new Map<string, string>();
    for (const name of ['ssh', 'legacy', 'soft', 'redis']) {
      const found = (await call('GET', `/assets?Search=${address(name)}`)).json().Items as {
        Id: string;
        IpAddresses: string[];
      }[];
      for (const a of found) if (a.IpAddresses.includes(address(name))) assets.set(a.Id, name);
    }
    const hostOf = (f: Finding) =>
      ['ssh', 'legacy', 'soft', 'redis'].find((n) => f.Location.Url?.includes(`//${address(n)}`)) ??
      assets.get(f.AssetId);
    const titles = (host: string) => before.filter((f) => hostOf(f) === host).map((f) => f.Title);

    // sshd: OpenSSH with its real version and CPE on the asset's services.
    const sshAsset = [...assets].find(([, n]) => n === 'ssh')![0];
    const services = (await call('GET', `/assets/${sshAsset}/services`)).json() as {
      Port: number;
      Product: string;
      Version: string;
      Cpe: string;
    }[];
    const ssh = services.find((s) => s.Port === 22)!;
    expect(ssh.Product).toBe('OpenSSH');
    expect(ssh.Version).toMatch(/^\d+\.\d+p\d/);
    expect(ssh.Cpe).toMatch(/^cpe:2\.3:a:openbsd:openssh:\d+\.\d+:p\d/);

    const legacy = titles('legacy');
    for (const title of [
      'TLS 1.0 or TLS 1.1 accepted',
      'TLS certificate expired or not yet valid',
      'TLS certificate self-signed or not trusted',
      'Git repository exposed (.git/HEAD)',
      'Environment file exposed (.env)',
    ])
      expect(legacy, title).toContain(title);
    expect(titles('redis')).toContain('Redis answers without authentication');
    // The site answering 200 to every path has no exposed-file finding.
    expect(titles('soft').filter((x) => /exposed|listing/i.test(x))).toEqual([]);
    // Every finding has its evidence.
    const git = before.find((f) => f.Title.startsWith('Git repository') && hostOf(f) === 'legacy')!;
    expect((await call('GET', `/findings/${git.Id}`)).json().Evidence).toContain('ref: refs/heads/main');

    // Fix the lab: TLS 1.0 off, .git removed. Then Verify what was fixed and what was not.
    await lab.disableLegacyTls('legacy');
    lab.removeGitDirectory('legacy');
    clock.now = new Date(clock.now.getTime() + 3600_000);
    const fixedTitles = ['TLS 1.0 or TLS 1.1 accepted', 'Git repository exposed (.git/HEAD)'];
    const keptTitles = ['TLS certificate expired or not yet valid', 'Environment file exposed (.env)'];
    const toVerify = before.filter(
      (f) => hostOf(f) === 'legacy' && [...fixedTitles, ...keptTitles].includes(f.Title),
    );
    const verify = await call('POST', '/findings/verify', { FindingIds: toVerify.map((f) => f.Id) });
    expect(verify.statusCode, verify.body).toBe(202);
    expect(verify.json().Skipped).toEqual([]);
    const fixedIds = toVerify.filter((f) => fixedTitles.includes(f.Title)).map((f) => f.Id);
    await expect
      .poll(
        async () => {
          const now = await findings();
          return fixedIds.every((id) => now.find((f) => f.Id === id)?.State === 'Fixed');
        },
        { timeout: 120_000, interval: 1000 },
      )
      .toBe(true);
    // Wait for every Verify run to have been turned into findings, then nothing else changed.
    for (const run of verify.json().Runs as { ScanId: string; Kind: string; RunId: string }[])
      await stored(run.Kind === 'System' ? 'systemscans' : 'webscans', run.ScanId, run.RunId);
    const after = await findings();
    const changed = after
      .filter((f) => before.find((b) => b.Id === f.Id)?.State !== f.State)
      .map((f) => f.Id)
      .sort();
    expect(changed).toEqual([...fixedIds].sort());
    expect(
      after
        .filter((f) => f.State === 'Fixed')
        .map((f) => f.Title)
        .sort(),
    ).toEqual(expect.arrayContaining(fixedTitles));
    expect(after.length).toBe(before.length);
  });
});
