import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall, enrolNode } from '../../helpers/scan-nodes.js';

// A real client script of the original creates a discovery scan with the name
// and range only in `scanTargets` (top-level Name, Range, Exclude and Id null) and the original's
// fixed ids of "Host Discovery [T1]" and of the shared node "General Purpose Discovery Scan",
// then starts it, lists scans, reads its hosts and makes a scan group that follows it. Replayed
// here call by call, as `requests` sends them (the JSON content type always, `json=""` on paging).

const ORIGINAL_T1 = '3ce1292a-ea86-4840-b5b5-1efe7a5c01d0';
const ORIGINAL_SHARED_NODE = 'da771c58-10df-472c-9069-7fa8460d7b18';
const RAMPART_T1 = '01900000-0000-7000-8000-0000000000d1';
const UNKNOWN = '0193a5c4-7f10-7c3e-9d41-00000000abcd';

/** The body of the real script's "create discovery scan" call. */
const originalBody = (range: string, name: string) => ({
  CanStartScan: true,
  Exclude: null,
  Id: null,
  LastReportId: null,
  Name: null,
  Range: null,
  ReportId: null,
  ResponsibleUser: null,
  ScanLastCompleted: null,
  ScanLastSeen: null,
  ScanNode: { Name: 'General Purpose Discovery Scan', Id: ORIGINAL_SHARED_NODE },
  ScanNodeId: ORIGINAL_SHARED_NODE,
  ScanRunState: 'Idle',
  ScanStatistics: null,
  ScanTemplate: { Name: 'Host Discovery [T1]', Id: ORIGINAL_T1 },
  ScheduleOption: { SchedulingMode: 'None' },
  AssetMonitorings: [],
  TemplateId: ORIGINAL_T1,
  scanTargets: [{ Range: range, Name: name, Exclude: '', invalidRangeSize: false }],
  scanMode: 'hostDiscovery',
  MessageNotification: [
    { EmailAddresses: 'soc@example.com', NotificationLevel: 'ScanStartsEnds', NotificationLevelId: '6' },
  ],
});

/** The body of the real script's "create scan group" call, following one discovery scan. */
const groupBody = (discoveryScanId: string, responsible: string, scheduleId: string | null = null) => ({
  ScanningMode: 'RegularScan',
  ScanGroupName: 'Office servers',
  ScanDescription: 'Made by the script',
  ResponsiblePersonId: responsible,
  ScanTargets: [],
  AssetMonitoringConfigurations: [
    {
      Id: null,
      IsActive: 'true',
      AssetSourceType: 'DiscoveryScan',
      DiscoveryScanId: discoveryScanId,
      ScheduleId: scheduleId,
      TrackSystemScans: 'True',
      RemoveSystemScanWhenUndiscovered: 'true',
      RunSystemScanImmediatelyAfterAdd: 'false',
      RunSystemScanImmediatelyIfNewServicesDiscovered: 'false',
    },
  ],
  SystemScanSettingsEnabled: 'true',
  MaxSystemScans: '10',
  SystemScanTemplateId: null,
  SystemScanNodeId: null,
  SystemScanScheduleId: null,
  WebScanSettingsEnabled: 'false',
  MaxWebScans: 0,
  WebScanTemplateId: null,
  WebScanNodeId: null,
  WebScanScheduleId: null,
  MessageNotification: [{ EmailAddresses: '', NotificationLevel: 'Never', NotificationLevelId: '0' }],
});

describe.each(DB_KINDS)('the original’s discovery-scan flow, as a real client sends it [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let manager: Credentials;
  let node: { nodeId: string; nodeKey: string };

  /** A call as Python `requests` makes it: JSON content type always, the body text as given. */
  const send = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, who = manager) =>
    t.app.inject({
      method,
      url: `/api/integration/${path}`,
      headers: { ...authHeaders(who), 'content-type': 'application/json' },
      payload: body === undefined ? '""' : JSON.stringify(body),
    });
  /** The id as the scripts read it: the body's text without `"`, `[` and `]`. */
  const idOf = (body: string) => body.replace(/["[\]]/g, '');

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    manager = await t.userWithKey('Manager');
    node = await enrolNode(t, t.admin);
    const allowed = await apiCall(t, 'POST', '/allowedtargets', {
      who: t.admin,
      body: { Kind: 'Allowed', Target: '198.18.0.0/24' },
    });
    expect(allowed.statusCode, allowed.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('creates, starts, lists and reports a scan made with null Name/Range and the original’s fixed ids, then follows it in a scan group', async () => {
    const created = await send('POST', 'DiscoveryScans', originalBody('198.18.0.32/28', 'Office'));
    expect(created.statusCode, created.body).toBe(200);
    const id = idOf(created.body);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const scan = (await apiCall(t, 'GET', `/discoveryscans/${id}`, { who: manager })).json();
    expect(scan).toMatchObject({
      Name: 'Office',
      ScanTargets: [{ Range: '198.18.0.32/28', Name: 'Office', Exclude: [] }],
      TemplateId: RAMPART_T1,
      ScanNodeId: null,
    });

    const started = await send('PUT', `discoveryscans/${id}/start`);
    expect(started.statusCode, started.body).toBe(200);
    // The enrolled node (any node: the shared node's id names none) runs it and finds one host.
    const claimed = await apiCall(t, 'POST', '/scanruns/claim', { nodeKey: node.nodeKey, body: {} });
    expect(claimed.statusCode, claimed.body).toBe(200);
    const { Id: runId, Attempt } = claimed.json();
    const batch = await apiCall(t, 'PUT', `/scanruns/${runId}/attempts/${Attempt}/batches/1`, {
      nodeKey: node.nodeKey,
      body: {
        Items: [
          {
            address: '198.18.0.35',
            hostname: 'files.office.example',
            openPorts: [22, 445],
            closedPorts: [],
            macAddress: null,
            osGuess: 'Linux',
          },
        ],
        Progress: { Done: 16, Total: 16, Found: 1 },
      },
    });
    expect(batch.statusCode, batch.body).toBe(200);
    const finished = await apiCall(t, 'POST', `/scanruns/${runId}/attempts/${Attempt}/finish`, {
      nodeKey: node.nodeKey,
      body: { State: 'Completed' },
    });
    expect(finished.statusCode, finished.body).toBe(200);

    const list = await send('POST', 'discoveryscans/withstartindex/0/andpagesize/100');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().Items).toContainEqual(
      expect.objectContaining({ Id: id, Name: 'Office', Range: '198.18.0.32/28', LastReportId: runId }),
    );

    const hosts = await send(
      'POST',
      `discoveryscans/${id}/reports/latest/hosts/withStartIndex/0/andPageSize/100`,
    );
    expect(hosts.statusCode, hosts.body).toBe(200);
    expect(hosts.json().Items).toEqual([
      expect.objectContaining({
        IPAddress: '198.18.0.35',
        Hostname: 'files.office.example',
        OperatingSystem: 'Linux',
      }),
    ]);

    const group = await send('POST', 'scangroups/', groupBody(id, manager.userId));
    expect(group.statusCode, group.body).toBe(200);
    expect(group.json().AssignedToUser).toMatchObject({ Id: manager.userId });
    expect(group.json().AssetMonitoringConfigurations).toEqual([
      expect.objectContaining({ DiscoveryScanId: id, ScheduleId: null }),
    ]);
  });

  it('refuses a template id that is neither Rampart’s nor the original’s T1, naming it', async () => {
    const res = await send('POST', 'DiscoveryScans', {
      ...originalBody('198.18.0.48/28', 'Unknown template'),
      TemplateId: UNKNOWN,
      ScanTemplate: { Name: null, Id: UNKNOWN },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toContain(UNKNOWN);
    expect(res.body).toContain('TemplateId');
  });

  it('refuses a body with no name anywhere, naming Name', async () => {
    const body = originalBody('198.18.0.48/28', '');
    const res = await send('POST', 'DiscoveryScans', {
      ...body,
      scanTargets: [{ ...body.scanTargets[0], Name: null }],
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain('Name');
  });

  it('refuses a scan group whose ScheduleId names no schedule of this organisation, and takes one that does', async () => {
    const scanId = idOf((await send('POST', 'DiscoveryScans', originalBody('198.18.0.64/28', 'Lab'))).body);
    const unknown = await send('POST', 'scangroups/', groupBody(scanId, manager.userId, UNKNOWN));
    expect(unknown.statusCode, unknown.body).toBe(400);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.body, unknown.body).toContain('/AssetMonitoringConfigurations/0/ScheduleId');
    expect(unknown.body).toContain(UNKNOWN);
    const notAnId = await send('POST', 'scangroups/', groupBody(scanId, manager.userId, 'nightly'));
    expect(notAnId.statusCode, notAnId.body).toBe(400);
    expect(notAnId.body).toContain('/AssetMonitoringConfigurations/0/ScheduleId');
    const systemScheduleId = await send('POST', 'scangroups/', {
      ...groupBody(scanId, manager.userId),
      SystemScanScheduleId: UNKNOWN,
    });
    expect(systemScheduleId.statusCode, systemScheduleId.body).toBe(400);
    expect(systemScheduleId.body).toContain('/SystemScanScheduleId');

    // A schedule of another organisation is as unknown as none.
    const other = await t.services.organizations.create('Other');
    const foreign = await t.services.scheduler.upsert({
      organizationId: other.id,
      key: 'discovery-scan:elsewhere',
      rule: { type: 'interval', seconds: 86_400 },
      jobKind: 'discovery-scan.start',
    });
    const elsewhere = await send('POST', 'scangroups/', groupBody(scanId, manager.userId, foreign.id));
    expect(elsewhere.statusCode, elsewhere.body).toBe(400);
    expect(elsewhere.body).toContain(foreign.id);

    // A scan's own schedule is a schedule of this organisation; the scan answers its id.
    const daily = await send('POST', 'DiscoveryScans', {
      ...originalBody('198.18.0.80/28', 'Nightly'),
      ScheduleOption: { SchedulingMode: 'Daily', StartTime: '2026-01-01T02:00:00Z' },
    });
    expect(daily.statusCode, daily.body).toBe(200);
    const scheduled = await apiCall(t, 'GET', `/discoveryscans/${idOf(daily.body)}`, { who: manager });
    const scheduleId: string = scheduled.json().ScheduleId;
    expect(scheduleId).toMatch(/^[0-9a-f-]{36}$/);
    expect(scheduleId).toBe(
      (await t.services.scheduler.get(t.org.id, `discovery-scan:${idOf(daily.body)}`))?.id,
    );
    const unscheduled = await apiCall(t, 'GET', `/discoveryscans/${scanId}`, { who: manager });
    expect(unscheduled.json().ScheduleId).toBeNull();
    const ok = await send('POST', 'scangroups/', groupBody(scanId, manager.userId, scheduleId));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().AssetMonitoringConfigurations[0].ScheduleId).toBe(scheduleId);
  });
});
