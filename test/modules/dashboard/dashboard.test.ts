import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Severity } from '../../../src/db/schema.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// GET /dashboard against a small estate whose figures are worked out by hand below, on a fixed
// clock: findings are recorded and fixed at chosen days before NOW through the findings service,
// as a person or an import would, and the dashboard is read through the API.

const NOW = new Date('2026-11-21T12:00:00Z');
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);

interface Planned {
  key: string;
  asset: 'web1' | 'db1' | 'dev1';
  title: string;
  severity: Severity;
  kev?: boolean;
  /** Days before NOW it was first seen. */
  seen: number;
  /** Days before NOW it was fixed (Fixed findings). */
  fixed?: number;
}

// Default SLAs: Critical 7, High 30, Medium 90, Low 180, Info none, KEV 14 days.
const PLAN: Planned[] = [
  { key: 'F1', asset: 'web1', title: 'Remote code execution', severity: 'Critical', kev: true, seen: 10 }, // due −3 d: past, KEV overdue
  { key: 'F2', asset: 'web1', title: 'Reflected XSS', severity: 'High', seen: 40 }, // due −10 d: past
  { key: 'F3', asset: 'db1', title: 'Weak TLS', severity: 'Medium', seen: 100 }, // due −10 d: past
  { key: 'F4', asset: 'db1', title: 'Banner disclosure', severity: 'Low', seen: 5 }, // due +175 d
  { key: 'F5', asset: 'dev1', title: 'Reflected XSS', severity: 'High', seen: 400 }, // due −370 d: past
  { key: 'F6', asset: 'dev1', title: 'Exploited gateway', severity: 'Critical', kev: true, seen: 2 }, // due +5 d
  { key: 'F7', asset: 'db1', title: 'Header missing', severity: 'Info', seen: 200 }, // no SLA
  { key: 'F8', asset: 'web1', title: 'Fixed quickly', severity: 'Critical', seen: 20, fixed: 16 }, // 4 d, within
  { key: 'F9', asset: 'dev1', title: 'Fixed late', severity: 'High', seen: 60, fixed: 20 }, // 40 d, late
  { key: 'F10', asset: 'web1', title: 'Fixed in time', severity: 'High', seen: 50, fixed: 30 }, // 20 d, within
  { key: 'F11', asset: 'db1', title: 'Fixed long ago', severity: 'Medium', seen: 300, fixed: 120 }, // outside 90 d
];

describe.each(DB_KINDS)('GET /dashboard [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let reader: Credentials;
  let outsider: Credentials;
  let ctx: ServiceContext;
  const assets: Record<string, string> = {};
  const ids: Record<string, string> = {};
  let groupId = '';
  let groupScanId = '';

  const call = (method: 'GET' | 'POST', url: string, who: Credentials = reader, body?: unknown) =>
    t.app.inject({
      method,
      url: url.startsWith('/api/') ? url : `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
  const dashboard = async (query = '', who: Credentials = reader) => {
    const res = await call('GET', `/dashboard${query}`, who);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    reader = await t.userWithKey('ReadOnly');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Elsewhere'));
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const tags = { web1: ['prod'], db1: ['prod'], dev1: ['dev'] };
    for (const [name, assetTags] of Object.entries(tags)) {
      const res = await call('POST', '/assets', t.admin, { Kind: 'Host', Hostname: name, Tags: assetTags });
      expect(res.statusCode, res.body).toBe(201);
      assets[name] = res.json().Id;
    }
    // Oldest first, so that the clock only moves forward.
    const events = PLAN.flatMap((p) => [
      { at: p.seen, act: 'record' as const, p },
      ...(p.fixed !== undefined ? [{ at: p.fixed, act: 'fix' as const, p }] : []),
    ]).sort((a, b) => b.at - a.at);
    for (const e of events) {
      t.clock.now = daysAgo(e.at);
      if (e.act === 'record') {
        const { finding } = await t.services.findings.record(ctx, {
          assetId: assets[e.p.asset]!,
          vulnerability: {
            source: 'manual',
            title: e.p.title,
            severity: e.p.severity,
            ...(e.p.kev ? { kev: true } : {}),
          },
          location: { kind: 'None' },
          source: 'manual',
        });
        ids[e.p.key] = finding.id;
      } else {
        await t.services.findings.changeState(ctx, ids[e.p.key]!, { state: 'Fixed' });
      }
    }
    t.clock.now = NOW;

    // Another organisation's finding counts nowhere but there.
    const theirs = await call('POST', '/assets', outsider, {
      Kind: 'Host',
      Hostname: 'theirs',
      Tags: ['prod'],
    });
    await call('POST', '/findings', outsider, {
      AssetId: theirs.json().Id,
      Vulnerability: { Title: 'Their critical', Severity: 'Critical' },
    });

    // A scan group with one system scan, whose results are ingested as a scan's are.
    const group = await call('POST', '/scangroups', t.admin, {
      ScanningMode: 'RegularScan',
      ScanGroupName: 'Servers',
      ScanDescription: '',
      ScanTargets: [],
      AssetMonitoringConfigurations: [],
      SystemScanSettingsEnabled: false,
      MaxSystemScans: 0,
      WebScanSettingsEnabled: false,
      MaxWebScans: 0,
    });
    expect(group.statusCode, group.body).toBe(200);
    groupId = group.json().Id;
    await call('POST', '/allowedtargets', t.admin, { Kind: 'Allowed', Target: '198.18.40.0/24' });
    const scan = await call('POST', '/systemscans', t.admin, {
      Name: 'Group host',
      ScanTargets: [{ Range: '198.18.40.7' }],
      ScanGroupId: groupId,
    });
    expect(scan.statusCode, scan.body).toBe(201);
    groupScanId = scan.json().Id;
    t.clock.now = daysAgo(1);
    await t.services.scanResults.ingestSystem(ctx, {
      scanId: groupScanId,
      scanName: 'Group host',
      runId: '01900000-0000-7000-8000-00000000d001',
      hosts: [
        {
          address: '198.18.40.7',
          hostname: null,
          answered: true,
          openPorts: [23],
          closedPorts: [],
          filtered: 0,
          unscannedPorts: [],
          services: [],
          checks: [{ checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' }],
          budgetExhausted: null,
        },
      ],
    });
    t.clock.now = NOW;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('answers the figures worked out by hand for the organisation', async () => {
    // The group's telnet finding is on the fourth asset; leave it out by reading the figures of
    // the three hand-made assets' tags together with the whole organisation's.
    const telnet = (await call('GET', `/findings?ScanId=${groupScanId}`)).json().Items;
    expect(telnet).toHaveLength(1);
    const telnetSeverity = telnet[0].Severity as Severity;

    const d = await dashboard();
    expect(d.Scope).toEqual({ Kind: 'Organization' });
    expect(d.GeneratedAt).toBe(NOW.toISOString());
    expect(d.WindowDays).toBe(90);
    expect(d.WindowStart).toBe(daysAgo(90).toISOString());
    expect(d.Tags).toEqual(['dev', 'prod']);
    expect(d.SlaDays).toEqual({ Critical: 7, High: 30, Medium: 90, Low: 180, Info: null, Kev: 14 });
    const open = { Critical: 2, High: 2, Medium: 1, Low: 1, Info: 1 };
    open[telnetSeverity] += 1;
    expect(d.Open).toEqual({ ...open, Total: 8, PastSla: 4 });
    // Open with a due date: F1–F6 and telnet (due in its SLA from yesterday); within: F4, F6, telnet.
    const telnetHasSla = d.SlaDays[telnetSeverity] !== null;
    const openWith = 6 + (telnetHasSla ? 1 : 0);
    const openWithin = 2 + (telnetHasSla ? 1 : 0);
    expect(d.SlaCompliance.Open).toEqual({
      WithSla: openWith,
      WithinSla: openWithin,
      Percent: Math.round((openWithin / openWith) * 1000) / 10,
    });
    // Fixed in the last 90 days: F8 (4 d of 7), F9 (40 d of 30), F10 (20 d of 30); F11 is older.
    expect(d.SlaCompliance.Fixed).toEqual({ WithSla: 3, WithinSla: 2, Percent: 66.7 });
    expect(d.SlaCompliance.Overall).toEqual({
      WithSla: openWith + 3,
      WithinSla: openWithin + 2,
      Percent: Math.round(((openWithin + 2) / (openWith + 3)) * 1000) / 10,
    });
    expect(d.Mttr).toEqual([
      { Severity: 'Critical', SlaDays: 7, MeanDays: 4, MedianDays: 4, Count: 1, WithinSla: 1 },
      { Severity: 'High', SlaDays: 30, MeanDays: 30, MedianDays: 30, Count: 2, WithinSla: 1 },
      { Severity: 'Medium', SlaDays: 90, MeanDays: null, MedianDays: null, Count: 0, WithinSla: 0 },
      { Severity: 'Low', SlaDays: 180, MeanDays: null, MedianDays: null, Count: 0, WithinSla: 0 },
      { Severity: 'Info', SlaDays: null, MeanDays: null, MedianDays: null, Count: 0, WithinSla: 0 },
    ]);
    expect(d.Kev).toEqual({ OpenFindings: 2, AssetsAffected: 2, Overdue: 1 });

    // The fixed findings counted are those the findings list gives for the window.
    const fixed = await call('GET', `/findings?State=Fixed&FixedAfter=${d.WindowStart}`);
    expect(
      fixed
        .json()
        .Items.map((f: { Id: string }) => f.Id)
        .sort(),
    ).toEqual([ids.F8, ids.F9, ids.F10].sort());
    const before = await call('GET', `/findings?State=Fixed&FixedBefore=${d.WindowStart}`);
    expect(before.json().Items.map((f: { Id: string }) => f.Id)).toEqual([ids.F11]);
  });

  it('puts open findings in ageing buckets by whole days since first seen, with the filters that list them', async () => {
    const d = await dashboard('?Tag=prod');
    const zero = { Critical: 0, High: 0, Medium: 0, Low: 0, Info: 0 };
    expect(
      d.Ageing.map((b: { Label: string; Counts: unknown; Total: number }) => [b.Label, b.Counts, b.Total]),
    ).toEqual([
      ['0–30', { ...zero, Critical: 1, Low: 1 }, 2], // F1 (10 d), F4 (5 d)
      ['31–90', { ...zero, High: 1 }, 1], // F2 (40 d)
      ['91–180', { ...zero, Medium: 1 }, 1], // F3 (100 d)
      ['181–365', { ...zero, Info: 1 }, 1], // F7 (200 d)
      ['>365', zero, 0],
    ]);
    const bucket = d.Ageing[1];
    expect(bucket).toMatchObject({ FromDays: 31, ToDays: 90 });
    expect(bucket.FirstSeenAfter).toBe(daysAgo(91).toISOString());
    expect(bucket.FirstSeenBefore).toBe(new Date(daysAgo(31).getTime() + 1).toISOString());
    expect(d.Ageing[0].FirstSeenBefore).toBeNull();
    expect(d.Ageing[4].FirstSeenAfter).toBeNull();
    // The bucket's filters list exactly its open findings.
    const listed = await call(
      'GET',
      `/findings?State=Open&State=Reopened&Tag=prod&FirstSeenAfter=${bucket.FirstSeenAfter}&FirstSeenBefore=${encodeURIComponent(bucket.FirstSeenBefore)}`,
    );
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().Items.map((f: { Id: string }) => f.Id)).toEqual([ids.F2]);
  });

  it('narrows every figure to a tag', async () => {
    const d = await dashboard('?Tag=prod');
    expect(d.Scope).toEqual({ Kind: 'Tag', Tag: 'prod' });
    expect(d.Open).toEqual({ Critical: 1, High: 1, Medium: 1, Low: 1, Info: 1, Total: 5, PastSla: 3 });
    expect(d.SlaCompliance).toEqual({
      Open: { WithSla: 4, WithinSla: 1, Percent: 25 },
      Fixed: { WithSla: 2, WithinSla: 2, Percent: 100 },
      Overall: { WithSla: 6, WithinSla: 3, Percent: 50 },
    });
    expect(d.Kev).toEqual({ OpenFindings: 1, AssetsAffected: 1, Overdue: 1 });
    expect(d.Mttr[1]).toMatchObject({ Severity: 'High', MeanDays: 20, Count: 1, WithinSla: 1 });
    const none = await dashboard('?Tag=nothing-has-this');
    expect(none.Open.Total).toBe(0);
    expect(none.SlaCompliance.Overall).toEqual({ WithSla: 0, WithinSla: 0, Percent: null });
    expect(none.RiskiestAssets).toEqual([]);
  });

  it('ranks assets and vulnerabilities by the sum of their open findings’ risk', async () => {
    const d = await dashboard('?Tag=prod');
    const listed = (await call('GET', '/findings?State=Open&State=Reopened&Tag=prod&PageSize=100')).json()
      .Items as {
      AssetId: string;
      VulnerabilityId: string;
      RiskScore: number;
      Severity: Severity;
    }[];
    const byAsset = new Map<string, number>();
    for (const f of listed) byAsset.set(f.AssetId, (byAsset.get(f.AssetId) ?? 0) + f.RiskScore);
    const expected = [...byAsset.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([id, sum]) => [id, Math.round(sum * 10) / 10]);
    expect(
      d.RiskiestAssets.map((a: { AssetId: string; RiskExposure: number }) => [a.AssetId, a.RiskExposure]),
    ).toEqual(expected);
    const web1 = d.RiskiestAssets.find((a: { AssetId: string }) => a.AssetId === assets.web1);
    expect(web1).toMatchObject({ Name: 'web1', OpenFindings: 2, Critical: 1, High: 1 });

    // One vulnerability on two assets (Reflected XSS on web1 and dev1) is one row.
    const all = await dashboard();
    const xss = all.RiskiestVulnerabilities.find((v: { Title: string }) => v.Title === 'Reflected XSS');
    expect(xss).toMatchObject({ OpenFindings: 2, AssetsAffected: 2, Severity: 'High', Kev: false });
    const rce = all.RiskiestVulnerabilities.find(
      (v: { Title: string }) => v.Title === 'Remote code execution',
    );
    expect(rce).toMatchObject({ OpenFindings: 1, AssetsAffected: 1, Kev: true, Severity: 'Critical' });
    const sums = all.RiskiestVulnerabilities.map((v: { RiskExposure: number }) => v.RiskExposure);
    expect(sums).toEqual([...sums].sort((a, b) => b - a));
    expect(all.RiskiestVulnerabilities.length).toBeLessThanOrEqual(10);
  });

  it('narrows to a scan group: its scans’ findings, runs and imports', async () => {
    const d = await dashboard(`?ScanGroupId=${groupId}`);
    expect(d.Scope).toEqual({ Kind: 'ScanGroup', ScanGroupId: groupId, ScanGroupName: 'Servers' });
    expect(d.Open.Total).toBe(1);
    expect(d.RiskiestAssets.map((a: { Name: string }) => a.Name)).toEqual(['198.18.40.7']);
    expect(d.Ageing[0].Total).toBe(1);
    expect(d.LastImports).toHaveLength(1);
    expect(d.LastImports[0]).toMatchObject({ ScopeName: `system-scan:${groupScanId}`, State: 'Completed' });
    // The organisation's imports include the scan's; its last scans are the runs of every scan.
    const all = await dashboard();
    expect(all.LastImports.map((i: { Id: string }) => i.Id)).toContain(d.LastImports[0].Id);
  });

  it('lists the last runs of scans with their state', async () => {
    const started = await call('POST', `/systemscans/${groupScanId}/start`, t.admin);
    expect(started.statusCode, started.body).toBeLessThan(300);
    const d = await dashboard(`?ScanGroupId=${groupId}`);
    expect(d.LastScans).toHaveLength(1);
    expect(d.LastScans[0]).toMatchObject({
      Kind: 'System',
      ScanId: groupScanId,
      ScanName: 'Group host',
      State: 'Queued',
      QueuedAt: NOW.toISOString(),
      StartedAt: null,
    });
    const all = await dashboard();
    expect(all.LastScans.map((r: { RunId: string }) => r.RunId)).toContain(d.LastScans[0].RunId);
    expect(all.LastScans.length).toBeLessThanOrEqual(5);
  });

  it('refuses bad input with a problem document', async () => {
    const problem = async (url: string, status: number, who: Credentials = reader) => {
      const res = await call('GET', url, who);
      expect(res.statusCode, res.body).toBe(status);
      expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      return res.json();
    };
    const both = await problem(`/dashboard?Tag=prod&ScanGroupId=${groupId}`, 400);
    expect(JSON.stringify(both)).toMatch(/ScanGroupId/);
    expect(JSON.stringify(await problem('/dashboard?ScanGroupId=not-a-uuid', 400))).toMatch(/ScanGroupId/);
    expect(JSON.stringify(await problem('/dashboard?Tag=', 400))).toMatch(/Tag/);
    expect(JSON.stringify(await problem(`/dashboard?Tag=${'x'.repeat(65)}`, 400))).toMatch(/Tag/);
    expect(JSON.stringify(await problem('/dashboard?tag=prod', 400))).toMatch(/tag/);
    await problem('/dashboard?ScanGroupId=01900000-0000-7000-8000-00000000ffff', 404);
    // Only the latest channel serves it.
    await problem('/api/integration/dashboard', 404);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/latest/dashboard' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('keeps organisations apart', async () => {
    const theirs = await dashboard('', outsider);
    expect(theirs.Open).toMatchObject({ Critical: 1, Total: 1 });
    expect(theirs.RiskiestAssets.map((a: { Name: string }) => a.Name)).toEqual(['theirs']);
    expect(theirs.LastImports).toEqual([]);
    expect(theirs.LastScans).toEqual([]);
    expect(theirs.Mttr.every((m: { Count: number }) => m.Count === 0)).toBe(true);
    const prod = await dashboard('?Tag=prod', outsider);
    expect(prod.Open.Total).toBe(1);
    // Another organisation's scan group is unknown here.
    const res = await call('GET', `/dashboard?ScanGroupId=${groupId}`, outsider);
    expect(res.statusCode).toBe(404);
  });
});
