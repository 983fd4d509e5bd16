import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DiscoveredHost,
  RunExecutor,
  SystemHostResult,
  SystemSpec,
  WebSpec,
} from '../../../src/scanning/types.js';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall } from '../../helpers/scan-nodes.js';

// Scan groups through the API: the original's bodies as its clients send them, and asset
// monitoring driven by real discovery runs. The server's local scan node runs test engines: the
// discovery one reports the hosts the test lists in `live`, the system and web ones report each
// target plainly (and record what they were asked). No packet leaves the process.

const S1 = '01900000-0000-7000-8000-0000000000e1';
const W1 = '01900000-0000-7000-8000-0000000000f1';

const host = (address: string, openPorts: number[], hostname: string | null = null): DiscoveredHost => ({
  address,
  hostname,
  openPorts,
  closedPorts: [],
  macAddress: null,
  osGuess: null,
});

describe.each(DB_KINDS)('scan groups [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let reader: Credentials;
  let other: Credentials;
  let discoveryScanId: string;
  /** What the discovery engine reports on its next runs. */
  let live: DiscoveredHost[] = [];
  const systemAsked: string[] = [];
  const webAsked: string[] = [];

  const discoveryEngine: RunExecutor = async (_spec, run) => {
    await run.emit(live);
  };
  const systemEngine: RunExecutor = async (spec, run) => {
    const targets = (spec as SystemSpec).targets.map((tg) => tg.range);
    systemAsked.push(...targets);
    const results: SystemHostResult[] = targets.map((address) => ({
      address,
      hostname: null,
      // Up, with no port open: it answered ARP.
      answered: true,
      openPorts: [],
      closedPorts: [],
      filtered: 0,
      unscannedPorts: [],
      services: [],
      checks: [],
      budgetExhausted: null,
    }));
    await run.emit(results);
  };
  const webEngine: RunExecutor = async (spec, run) => {
    webAsked.push(...(spec as WebSpec).urls);
    await run.emit([]);
  };

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    who: Credentials,
    body?: unknown,
    channel?: string,
  ) => apiCall(t, method, url, { who, body, channel });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
      scanExecutors: new Map([
        ['Discovery', discoveryEngine],
        ['System', systemEngine],
        ['Web', webEngine],
      ]),
    });
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    reader = await t.userWithKey('ReadOnly');
    const bravo = await t.services.organizations.create('Bravo');
    other = await t.userWithKey('Admin', bravo);
    await call('POST', '/allowedtargets', admin, { Kind: 'Allowed', Target: '198.18.0.0/24' });
    const scan = await call('POST', '/discoveryscans', manager, {
      Name: 'Office',
      ScanTargets: [{ Range: '198.18.0.0/28' }],
    });
    expect(scan.statusCode, scan.body).toBe(201);
    discoveryScanId = scan.json().Id;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  // The bodies the original's clients send (RADAR-COMPAT.md), system and web variants.
  const systemBody = (responsible: string) => ({
    ScanningMode: 'RegularScan',
    ScanGroupName: 'Servers',
    ScanDescription: 'Every server the office discovery finds',
    ResponsiblePersonId: responsible,
    ScanTargets: [],
    AssetMonitoringConfigurations: [
      {
        Id: null,
        IsActive: 'true',
        AssetSourceType: 'DiscoveryScan',
        DiscoveryScanId: discoveryScanId,
        ScheduleId: null,
        TrackSystemScans: 'True',
        RemoveSystemScanWhenUndiscovered: 'true',
        RunSystemScanImmediatelyAfterAdd: 'true',
        RunSystemScanImmediatelyIfNewServicesDiscovered: 'True',
      },
    ],
    SystemScanSettingsEnabled: 'true',
    MaxSystemScans: '2',
    SystemScanTemplateId: S1,
    SystemScanNodeId: null,
    SystemScanScheduleId: null,
    WebScanSettingsEnabled: 'false',
    MaxWebScans: 0,
    WebScanTemplateId: null,
    WebScanNodeId: null,
    WebScanScheduleId: null,
    MessageNotification: [
      { EmailAddresses: 'soc@example.com', NotificationLevel: 'Never', NotificationLevelId: '0' },
    ],
  });
  const webBody = (responsible: string) => ({
    ScanningMode: 'RegularScan',
    ScanGroupName: 'Web servers',
    ScanDescription: '',
    ResponsiblePersonId: responsible,
    ScanTargets: [],
    AssetMonitoringConfigurations: [
      {
        Id: null,
        IsActive: true,
        AssetSourceType: 'DiscoveryScan',
        DiscoveryScanId: discoveryScanId,
        ScheduleId: null,
        TrackWebScans: 'true',
        RemoveWebScanWhenUndiscovered: 'true',
        RunWebScanImmediatelyAfterAdd: 'false',
        TrackedHttpPortRangeForWebScan: '80',
        TrackedHttpsPortRangeForWebScan: '443',
      },
    ],
    SystemScanSettingsEnabled: false,
    MaxSystemScans: 0,
    SystemScanTemplateId: null,
    SystemScanNodeId: null,
    SystemScanScheduleId: null,
    WebScanSettingsEnabled: 'True',
    MaxWebScans: '10',
    WebScanTemplateId: W1,
    WebScanNodeId: null,
    WebScanScheduleId: null,
    MessageNotification: [{ EmailAddresses: '', NotificationLevel: 'Never', NotificationLevelId: '0' }],
  });

  /** Runs the discovery scan to completion with `hosts` live, then waits for the groups to act. */
  const discover = async (hosts: DiscoveredHost[]) => {
    live = hosts;
    const started = await call('POST', `/discoveryscans/${discoveryScanId}/runs`, manager);
    expect(started.statusCode, started.body).toBe(201);
    await expect
      .poll(async () => (await call('GET', `/discoveryscans/${discoveryScanId}`, reader)).json().RunState, {
        timeout: 30_000,
        interval: 100,
      })
      .toBe('Completed');
    // The groups act in a job after the run's transaction: wait until it ran.
    await expect
      .poll(
        async () =>
          (
            await t.services.jobs.findByDedupKey(
              'discovery-scan.reported',
              `discovery-reported:${started.json().Id}`,
            )
          )?.state,
        { timeout: 30_000, interval: 100 },
      )
      .toBe('Completed');
  };

  let servers: string;
  let webServers: string;

  it('takes both of the original’s bodies as its clients send them, in both channels', async () => {
    const created = await call('POST', '/scangroups/', manager, systemBody(manager.userId), 'integration');
    expect(created.statusCode, created.body).toBe(200);
    const group = created.json();
    expect(group).toMatchObject({
      ScanGroupName: 'Servers',
      ScanDescription: 'Every server the office discovery finds',
      ScanningMode: 'RegularScan',
      ResponsiblePersonId: manager.userId,
      AssignedToUser: { Id: manager.userId },
      SystemScanSettingsEnabled: true,
      MaxSystemScans: 2,
      SystemScanTemplateId: S1,
      WebScanSettingsEnabled: false,
      MessageNotification: [
        { EmailAddresses: ['soc@example.com'], NotificationLevel: 'Never', NotificationLevelId: '0' },
      ],
      AssetMonitoringConfigurations: [
        {
          IsActive: true,
          AssetSourceType: 'DiscoveryScan',
          DiscoveryScanId: discoveryScanId,
          TrackSystemScans: true,
          RemoveSystemScanWhenUndiscovered: true,
          RunSystemScanImmediatelyAfterAdd: true,
          RunSystemScanImmediatelyIfNewServicesDiscovered: true,
          TrackWebScans: false,
        },
      ],
    });
    expect(group.AssetMonitoringConfigurations[0].Id).toMatch(/^[0-9a-f-]{36}$/);
    servers = group.Id;
    // One client sends the same call to the latest channel.
    const web = await call('POST', '/ScanGroups/', manager, webBody(manager.userId), 'latest');
    expect(web.statusCode, web.body).toBe(200);
    expect(web.json()).toMatchObject({
      ScanGroupName: 'Web servers',
      ScanDescription: null,
      AssignedToUser: { Id: manager.userId },
      WebScanSettingsEnabled: true,
      MaxWebScans: 10,
      AssetMonitoringConfigurations: [
        { TrackWebScans: true, TrackedHttpPortRangeForWebScan: '80', TrackedHttpsPortRangeForWebScan: '443' },
      ],
    });
    webServers = web.json().Id;

    for (const channel of ['integration', 'latest']) {
      const simple = await call('GET', '/scangroups/simple', reader, undefined, channel);
      expect(simple.statusCode).toBe(200);
      expect(simple.json()).toEqual([
        { Name: 'Servers', Id: servers },
        { Name: 'Web servers', Id: webServers },
      ]);
      for (const scans of ['systemscans', 'webscans']) {
        const res = await call('GET', `/scangroups/%20${servers}/${scans}`, reader, undefined, channel);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual([]);
      }
    }
    expect((await call('GET', `/scangroups/${servers}`, reader)).json().ScanGroupName).toBe('Servers');
    expect(
      (await call('POST', '/scangroups/', reader, systemBody(manager.userId), 'integration')).statusCode,
    ).toBe(403);
  });

  it('refuses what it cannot read, naming the field', async () => {
    const body = systemBody(manager.userId);
    const monitor = body.AssetMonitoringConfigurations[0]!;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...body, ScanGroupName: '' }, 400, 'ScanGroupName'],
      [{ ...body, MaxSystemScans: 'ten' }, 400, 'MaxSystemScans'],
      [{ ...body, MaxSystemScans: 100_000 }, 400, 'MaxSystemScans'],
      [{ ...body, SystemScanSettingsEnabled: 'yes' }, 400, 'SystemScanSettingsEnabled'],
      [{ ...body, ScanningMode: 'Turbo' }, 400, 'ScanningMode'],
      [{ ...body, ResponsiblePersonId: 'someone' }, 400, 'ResponsiblePersonId'],
      [{ ...body, ResponsiblePersonId: other.userId }, 404, 'user'],
      [{ ...body, SystemScanTemplateId: W1 }, 400, 'SystemScanTemplateId'],
      [{ ...body, SystemScanTemplateId: '0193a5c4-7f10-7c3e-9d41-000000000000' }, 404, 'template'],
      [{ ...body, SystemScanNodeId: '0193a5c4-7f10-7c3e-9d41-000000000000' }, 404, 'node'],
      [{ ...body, SystemScanSchedule: { SchedulingMode: 'Daily' } }, 400, 'SystemScanSchedule'],
      [
        { ...body, MessageNotification: [{ EmailAddresses: 'nope', NotificationLevel: 'Never' }] },
        400,
        'EmailAddresses',
      ],
      [{ ...body, MessageNotification: [{ NotificationLevel: 'Sometimes' }] }, 400, 'NotificationLevel'],
      [
        { ...body, AssetMonitoringConfigurations: [{ ...monitor, TrackSystemScans: 'maybe' }] },
        400,
        '/AssetMonitoringConfigurations/0/TrackSystemScans',
      ],
      [
        { ...body, AssetMonitoringConfigurations: [{ ...monitor, TrackedHttpPortRangeForWebScan: '80-x' }] },
        400,
        '/AssetMonitoringConfigurations/0/TrackedHttpPortRangeForWebScan',
      ],
      [
        {
          ...body,
          AssetMonitoringConfigurations: [{ ...monitor, TrackedHttpsPortRangeForWebScan: '70000' }],
        },
        400,
        '/AssetMonitoringConfigurations/0/TrackedHttpsPortRangeForWebScan',
      ],
      [
        { ...body, AssetMonitoringConfigurations: [{ ...monitor, DiscoveryScanId: null }] },
        400,
        '/AssetMonitoringConfigurations/0/DiscoveryScanId',
      ],
      [
        { ...body, AssetMonitoringConfigurations: [{ ...monitor, AssetSourceType: 'Agent' }] },
        400,
        '/AssetMonitoringConfigurations/0/AssetSourceType',
      ],
      [
        {
          ...body,
          AssetMonitoringConfigurations: [
            { ...monitor, DiscoveryScanId: '0193a5c4-7f10-7c3e-9d41-000000000000' },
          ],
        },
        404,
        'discovery scan',
      ],
    ];
    for (const [b, status, text] of cases) {
      const res = await call('POST', '/scangroups/', manager, b, 'integration');
      expect(res.statusCode, `${text}: ${res.body}`).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body, text).toContain(text);
    }
    expect((await call('GET', '/scangroups/simple', reader)).json()).toHaveLength(2);
  });

  it('adds system scans for new hosts up to MaxSystemScans and web scans on 80 and 443, runs them, removes them when gone', async () => {
    await discover([
      host('198.18.0.2', [22, 80], 'db1.lab.example'),
      host('198.18.0.3', [443]),
      host('198.18.0.4', [22]),
    ]);
    const scans = await call('GET', `/scangroups/${servers}/systemscans`, reader, undefined, 'integration');
    expect(scans.statusCode).toBe(200);
    expect(scans.json().map((s: { Name: string; Hostname: string }) => [s.Name, s.Hostname])).toEqual([
      ['db1.lab.example', '198.18.0.2'],
      ['198.18.0.3', '198.18.0.3'],
    ]);
    expect(Object.keys(scans.json()[0]).sort()).toEqual(['Hostname', 'Id', 'Name', 'ScanLastCompleted']);
    const group = (await call('GET', `/scangroups/${servers}`, reader)).json();
    expect(group.Notes.map((n: { Message: string }) => n.Message).join('\n')).toContain(
      'no system scan added for 198.18.0.4',
    );
    expect(group.Notes[0].Message).toContain('MaxSystemScans is 2');
    // Run at once (RunSystemScanImmediatelyAfterAdd): each completes with the test engine.
    await expect
      .poll(
        async () =>
          (await call('GET', `/scangroups/${servers}/systemscans`, reader))
            .json()
            .map((s: { ScanLastCompleted: string | null }) => s.ScanLastCompleted !== null),
        { timeout: 30_000, interval: 100 },
      )
      .toEqual([true, true]);
    expect([...systemAsked].sort()).toEqual(['198.18.0.2', '198.18.0.3']);
    // The web group: a scan per host and tracked port, not started (RunWebScanImmediatelyAfterAdd false).
    const web = (
      await call('GET', `/scangroups/${webServers}/webscans`, reader, undefined, 'integration')
    ).json();
    expect(web.map((s: { Name: string; Hostname: string }) => [s.Name, s.Hostname])).toEqual([
      ['db1.lab.example:80', '198.18.0.2'],
      ['198.18.0.3:443', '198.18.0.3'],
    ]);
    const urls = await Promise.all(
      web.map(async (s: { Id: string }) => (await call('GET', `/webscans/${s.Id}`, reader)).json().Urls),
    );
    // Default ports drop out of the saved URLs, as URLs normalise them.
    expect(urls).toEqual([['http://198.18.0.2/'], ['https://198.18.0.3/']]);
    expect(webAsked).toEqual([]);

    // .2 is gone, .3 opened a new port: .2's scan goes, .3's runs again, .4 now fits.
    t.clock.now = new Date(t.clock.now.getTime() + 3600_000);
    await discover([host('198.18.0.3', [443, 8443]), host('198.18.0.4', [22])]);
    const after = (await call('GET', `/scangroups/${servers}/systemscans`, reader)).json();
    expect(after.map((s: { Hostname: string }) => s.Hostname)).toEqual(['198.18.0.3', '198.18.0.4']);
    await expect
      .poll(() => systemAsked.filter((a) => a === '198.18.0.3').length, { timeout: 30_000, interval: 100 })
      .toBe(2);
    await expect
      .poll(() => systemAsked.includes('198.18.0.4'), { timeout: 30_000, interval: 100 })
      .toBe(true);
    // The web group: .2's scan removed with its host; 8443 is outside the tracked ranges.
    const web2 = (await call('GET', `/scangroups/${webServers}/webscans`, reader)).json();
    expect(web2.map((s: { Name: string }) => s.Name)).toEqual(['198.18.0.3:443']);
  });

  it('answers 404 for another organisation’s group, and changes nothing', async () => {
    const foreign: ['GET' | 'PUT' | 'DELETE', string, string][] = [
      ['GET', `/scangroups/${servers}`, 'latest'],
      ['PUT', `/scangroups/${servers}`, 'latest'],
      ['DELETE', `/scangroups/${servers}`, 'latest'],
      ['GET', `/scangroups/${servers}/systemscans`, 'integration'],
      ['GET', `/scangroups/${servers}/webscans`, 'integration'],
    ];
    for (const [method, url, channel] of foreign) {
      const res = await call(
        method,
        url,
        other,
        method === 'PUT' ? systemBody(other.userId) : undefined,
        channel,
      );
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
      expect(res.body).not.toContain('Servers');
    }
    expect((await call('GET', '/scangroups/simple', other, undefined, 'integration')).json()).toEqual([]);
    expect((await call('GET', `/scangroups/${servers}`, reader)).json().ScanGroupName).toBe('Servers');
  });

  it('changes a group, and deletes it with its scans', async () => {
    const changed = await call('PUT', `/scangroups/${webServers}`, manager, {
      ...webBody(manager.userId),
      ScanGroupName: 'Web front ends',
      MaxWebScans: 5,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ ScanGroupName: 'Web front ends', MaxWebScans: 5 });
    const scans = (await call('GET', `/scangroups/${webServers}/webscans`, reader)).json();
    expect(scans).toHaveLength(1);
    expect((await call('DELETE', `/scangroups/${webServers}`, manager)).statusCode).toBe(204);
    expect((await call('GET', `/scangroups/${webServers}`, reader)).statusCode).toBe(404);
    expect((await call('GET', `/webscans/${scans[0].Id}`, reader)).statusCode).toBe(404);
  });
});
