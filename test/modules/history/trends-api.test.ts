import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// GET /trends and the findings' ScanGroupId filter through the HTTP stack: good and bad input,
// scan groups, and one organisation's history never showing in another's. A scan group's
// findings are those its system and web scans reported, ingested as real scan results.
const S1 = '01900000-0000-7000-8000-0000000000e1';
let runSeq = 0;
const runId = () => `01900000-0000-7000-8000-${String(++runSeq).padStart(12, '0')}`;

const telnet = (address: string) => ({
  address,
  hostname: null,
  answered: true,
  openPorts: [23],
  closedPorts: [],
  filtered: 0,
  unscannedPorts: [],
  services: [],
  checks: [{ checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' }],
  budgetExhausted: null,
});
const hstsMissing = (address: string) => ({
  url: `https://${address}/`,
  finalUrl: null,
  status: 200,
  address,
  software: [],
  checks: [{ checkId: 'web.header-hsts', port: null, url: `https://${address}/`, evidence: 'no HSTS' }],
  headerScore: { score: 40, grade: 'D' as const },
  notes: [],
  error: null,
  budgetExhausted: null,
});

describe.each(DB_KINDS)('trends API and scan group filter [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let reader: Credentials;
  let analyst: Credentials;
  let outsider: Credentials;
  let ctx: ServiceContext;
  let groupId = '';
  let otherGroupId = '';
  let otherOrgGroupId = '';

  const get = (url: string, who: Credentials = reader) =>
    t.app.inject({ method: 'GET', url: `/api/latest${url}`, headers: authHeaders(who) });
  const post = (url: string, who: Credentials, body: unknown, channel = 'latest') =>
    t.app.inject({
      method: 'POST',
      url: `/api/${channel}${url}`,
      headers: { ...authHeaders(who), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const createGroup = async (name: string, who: Credentials) => {
    const res = await post(
      '/scangroups',
      who,
      {
        ScanGroupName: name,
        ScanningMode: 'RegularScan',
        SystemScanSettingsEnabled: false,
        WebScanSettingsEnabled: false,
        MaxSystemScans: 0,
        MaxWebScans: 0,
      },
      'latest',
    );
    expect(res.statusCode, res.body).toBe(200);
    return res.json().Id as string;
  };
  const systemScanIn = async (c: ServiceContext, group: string | null, address: string) =>
    (
      await t.services.systemScans.create(c, {
        name: `Host ${address}`,
        targets: [{ range: address, name: address, exclude: [] }],
        assetId: null,
        exclusions: [],
        templateId: S1,
        nodeId: null,
        schedule: null,
        scanGroupId: group,
      })
    ).id;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    reader = await t.userWithKey('ReadOnly');
    analyst = await t.userWithKey('Analyst');
    const manager = await t.userWithKey('Manager');
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    await post('/allowedtargets', t.admin, { Kind: 'Allowed', Target: '198.18.30.0/24' });
    groupId = await createGroup('Servers', manager);
    otherGroupId = await createGroup('Others', manager);

    // Group "Servers": a system scan of .1 and a web scan of .3; "Others": a system scan of .2;
    // a scan in no group finds .4.
    t.clock.now = new Date('2026-11-10T12:00:00Z');
    const inGroup = await systemScanIn(ctx, groupId, '198.18.30.1');
    const inOther = await systemScanIn(ctx, otherGroupId, '198.18.30.2');
    const loose = await systemScanIn(ctx, null, '198.18.30.4');
    const web = await t.services.webScans.create(ctx, {
      name: 'Shop',
      urls: ['https://198.18.30.3/'],
      templateId: null,
      nodeId: null,
      schedule: null,
      scanGroupId: groupId,
    });
    for (const [scanId, address] of [
      [inGroup, '198.18.30.1'],
      [inOther, '198.18.30.2'],
      [loose, '198.18.30.4'],
    ] as const)
      await t.services.scanResults.ingestSystem(ctx, {
        scanId,
        scanName: address,
        runId: runId(),
        hosts: [telnet(address)],
      });
    await t.services.scanResults.ingestWeb(ctx, {
      scanId: web.id,
      scanName: 'Shop',
      runId: runId(),
      urls: [hstsMissing('198.18.30.3')],
    });

    // Another organisation with a group and findings of its own on the same addresses.
    const bravo = await t.services.organizations.create('Bravo');
    outsider = await t.userWithKey('Admin', bravo);
    const bravoCtx: ServiceContext = { organizationId: bravo.id, actor: { type: 'system', id: null } };
    await post('/allowedtargets', outsider, { Kind: 'Allowed', Target: '198.18.30.0/24' });
    otherOrgGroupId = await createGroup('Bravo servers', outsider);
    const bravoScan = await systemScanIn(bravoCtx, otherOrgGroupId, '198.18.30.1');
    for (const address of ['198.18.30.1', '198.18.30.5', '198.18.30.6'])
      await t.services.scanResults.ingestSystem(bravoCtx, {
        scanId: bravoScan,
        scanName: 'Bravo',
        runId: runId(),
        hosts: [telnet(address)],
      });

    t.clock.now = new Date('2026-11-21T12:00:00Z');
    await t.services.history.computeDays(t.org.id, '2026-11-08', '2026-11-20');
    await t.services.history.computeDays(bravo.id, '2026-11-08', '2026-11-20');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const addressesOf = (items: { AssetName: string }[]) => items.map((f) => f.AssetName).sort();

  it('lists the findings of a scan group’s system and web scans', async () => {
    const all = (await get('/findings?PageSize=100')).json();
    expect(all.Items).toHaveLength(4);
    const mine = await get(`/findings?ScanGroupId=${groupId}`);
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().Items).toHaveLength(2);
    const foundBy = await Promise.all(
      mine.json().Items.map(async (f: { Id: string }) => (await get(`/findings/${f.Id}`)).json().FoundBy),
    );
    expect(foundBy.map((b) => b.Kind).sort()).toEqual(['System', 'Web']);
    const others = (await get(`/findings?ScanGroupId=${otherGroupId}`)).json();
    expect(others.Items).toHaveLength(1);
    // Another organisation's group: nothing of it, nothing of ours.
    expect((await get(`/findings?ScanGroupId=${otherOrgGroupId}`)).json().Items).toEqual([]);
    expect(addressesOf(mine.json().Items)).not.toEqual(addressesOf(others.Items));
  });

  it('acts in bulk on a scan group’s findings only', async () => {
    const res = await post('/findings/bulk/state', analyst, {
      Filter: { ScanGroupId: otherGroupId },
      State: 'FalsePositive',
      Justification: 'Lab host',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ Matched: 1, Changed: 1, Skipped: 0 });
    const open = (await get('/findings?State=Open&PageSize=100')).json();
    expect(open.Items).toHaveLength(3);
  });

  it('refuses a scan group id that is not a UUID', async () => {
    for (const url of ['/findings?ScanGroupId=servers', '/trends?ScanGroupId=42']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.stringify(res.json().errors)).toContain('ScanGroupId');
    }
  });

  it('answers the trend of the organisation, a tag and a scan group', async () => {
    const org = await get('/trends?From=2026-11-08&To=2026-11-20');
    expect(org.statusCode, org.body).toBe(200);
    const body = org.json();
    expect(body).toMatchObject({ Scope: { Kind: 'Organization' }, TimeZone: 'UTC', From: '2026-11-08' });
    expect(body.Days.map((d: { Date: string }) => d.Date)).toHaveLength(13);
    const day10 = body.Days.find((d: { Date: string }) => d.Date === '2026-11-10');
    expect(day10.New).toBe(4);
    expect(day10.ByState.Open).toBe(4);
    const group = (await get(`/trends?From=2026-11-08&To=2026-11-20&ScanGroupId=${groupId}`)).json();
    expect(group.Scope).toEqual({ Kind: 'ScanGroup', ScanGroupId: groupId });
    expect(group.Days.find((d: { Date: string }) => d.Date === '2026-11-10')).toMatchObject({
      New: 2,
      AssetsScanned: 2,
    });
    const empty = (await get(`/trends?ScanGroupId=${otherGroupId}&From=2026-11-01&To=2026-11-07`)).json();
    expect(empty.Days).toEqual([]);
  });

  it('defaults to the last 90 days up to today in the organisation’s time zone', async () => {
    const res = await get('/trends');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ From: '2026-08-24', To: '2026-11-21' });
    expect(res.json().Days).toHaveLength(13);
  });

  it('never shows another organisation’s history', async () => {
    const mine = (await get('/trends?From=2026-11-10&To=2026-11-10')).json().Days[0];
    const theirs = (await get('/trends?From=2026-11-10&To=2026-11-10', outsider)).json().Days[0];
    expect(mine.New).toBe(4);
    expect(theirs.New).toBe(3);
    expect(theirs.AssetsSeen).toBe(3);
    // Their group is unknown here, ours there.
    expect((await get(`/trends?ScanGroupId=${otherOrgGroupId}`)).statusCode).toBe(404);
    expect((await get(`/trends?ScanGroupId=${groupId}`, outsider)).statusCode).toBe(404);
  });

  it('refuses bad input with a problem document', async () => {
    const cases: [string, number, string][] = [
      [`/trends?Tag=web&ScanGroupId=${groupId}`, 400, 'ScanGroupId'],
      ['/trends?From=2026-11-20&To=2026-11-01', 400, '/To'],
      ['/trends?From=2025-01-01&To=2026-11-20', 400, '/To'],
      ['/trends?From=2026-02-30', 400, 'From'],
      ['/trends?From=yesterday', 400, 'From'],
      ['/trends?To=2026-13-01', 400, 'To'],
      ['/trends?Tag=', 400, 'Tag'],
      [`/trends?Tag=${'x'.repeat(65)}`, 400, 'Tag'],
      ['/trends?Severity=High', 400, 'Severity'],
      ['/trends?ScanGroupId=01900000-0000-7000-8000-00000000dead', 404, 'scan group'],
    ];
    for (const [url, status, mention] of cases) {
      const res = await get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body, url).toContain(mention);
      expect(res.body).not.toMatch(/\bat .*\.ts:\d+/);
    }
    // Exactly 400 days is allowed.
    expect((await get('/trends?From=2025-10-17&To=2026-11-20')).statusCode).toBe(200);
    expect((await get('/trends?From=2025-10-16&To=2026-11-20')).statusCode).toBe(400);
  });

  it('is served in the latest channel only, to those who may read findings', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/integration/trends',
      headers: authHeaders(reader),
    });
    expect(res.statusCode).toBe(404);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/latest/trends' });
    expect(anonymous.statusCode).toBe(401);
  });
});
