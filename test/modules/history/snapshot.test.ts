import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Severity } from '../../../src/db/schema.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// The daily figures against a small history worked out by hand. The findings are made through
// the findings service with the application's clock moved to each moment, so their events are
// the ones people and scans write. The clock stays in November 2026 whatever day the tests run.
const at = (iso: string) => new Date(iso);

describe.each(DB_KINDS)('history snapshots [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let reader: Credentials;
  let manager: Credentials;
  let ctx: ServiceContext;
  const ids: Record<string, string> = {};

  const get = (url: string, who: Credentials = reader) =>
    t.app.inject({ method: 'GET', url: `/api/latest${url}`, headers: authHeaders(who) });
  const trendDays = async (query: string) => {
    const res = await get(`/trends?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return Object.fromEntries(res.json().Days.map((d: { Date: string }) => [d.Date, d])) as Record<
      string,
      // biome-ignore lint/suspicious/noExplicitAny: the wire object, checked field by field
      any
    >;
  };

  /** Moves the clock to `iso` and runs `fn` there. */
  const when = async <T>(iso: string, fn: () => Promise<T>): Promise<T> => {
    t.clock.now = at(iso);
    return fn();
  };
  const record = (name: string, assetId: string, severity: Severity, iso: string, kev = false) =>
    when(iso, async () => {
      const { finding } = await t.services.findings.record(ctx, {
        assetId,
        vulnerability: { source: 'Test', title: `${name} weakness`, severity, kev },
        location: { kind: 'None' },
        source: 'Test',
        seenAt: at(iso),
      });
      ids[name] = finding.id;
    });
  const decide = (name: string, state: 'Fixed' | 'FalsePositive', iso: string) =>
    when(iso, () =>
      t.services.findings.changeState({ ...ctx, role: 'Admin' }, ids[name]!, {
        state,
        ...(state === 'FalsePositive' ? { justification: 'Not there' } : {}),
      }),
    );

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    reader = await t.userWithKey('ReadOnly');
    manager = await t.userWithKey('Manager');
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const asset = (name: string, tags: string[]) =>
      when('2026-11-01T09:00:00Z', async () => {
        const { asset } = await t.services.assets.observe(ctx, {
          kind: 'Host',
          fqdn: name,
          tags,
          source: 'Test',
          seenAt: at('2026-11-01T09:00:00Z'),
        });
        return asset.id;
      });
    const a = await asset('a.example', ['web', 'prod']);
    const b = await asset('b.example', ['db']);
    // f1 Critical KEV on A: seen 11-01 10:00, fixed 11-04 10:00 (3 days).
    await record('f1', a, 'Critical', '2026-11-01T10:00:00Z', true);
    // f5 Critical on B: seen 11-01 08:00, due 11-08 08:00, never fixed.
    await record('f5', b, 'Critical', '2026-11-01T08:00:00Z');
    // f2 High on A: seen 11-02 10:00, open.
    await record('f2', a, 'High', '2026-11-02T10:00:00Z');
    // f3 Medium on B: seen 11-02 23:30, fixed 11-05 11:30 (2.5 days), reopened 11-06 09:00.
    await record('f3', b, 'Medium', '2026-11-02T23:30:00Z');
    // f6 Critical on A: seen 11-02 10:00, fixed 11-09 10:00 (7 days).
    await record('f6', a, 'Critical', '2026-11-02T10:00:00Z');
    // f4 Low on B: seen 11-03 03:00 UTC (11-02 22:00 in New York), false positive 11-03 15:00.
    await record('f4', b, 'Low', '2026-11-03T03:00:00Z');
    await decide('f4', 'FalsePositive', '2026-11-03T15:00:00Z');
    await decide('f1', 'Fixed', '2026-11-04T10:00:00Z');
    await decide('f3', 'Fixed', '2026-11-05T11:30:00Z');
    // Seen again by a scan: reopened.
    await when('2026-11-06T09:00:00Z', () =>
      t.services.findings.record(ctx, {
        assetId: b,
        vulnerabilityId: undefined,
        vulnerability: { source: 'Test', title: 'f3 weakness', severity: 'Medium' },
        location: { kind: 'None' },
        source: 'Test',
        seenAt: at('2026-11-06T09:00:00Z'),
      }),
    );
    // f7 Critical on A: seen 11-09 10:00, fixed 11-10 10:00 (1 day).
    await record('f7', a, 'Critical', '2026-11-09T10:00:00Z');
    await decide('f6', 'Fixed', '2026-11-09T10:00:00Z');
    await decide('f7', 'Fixed', '2026-11-10T10:00:00Z');
    t.clock.now = at('2026-11-21T12:00:00Z');
    await t.services.history.computeDays(t.org.id, '2026-11-01', '2026-11-20');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const none = { Critical: null, High: null, Medium: null, Low: null, Info: null };
  const open = (c: number, h: number, m: number, l = 0) => ({
    Critical: c,
    High: h,
    Medium: m,
    Low: l,
    Info: 0,
  });
  const states = (o: number, r: number, fixed: number, fp: number) => ({
    Open: o,
    Reopened: r,
    RiskAccepted: 0,
    FalsePositive: fp,
    Fixed: fixed,
  });

  it('counts open, new, fixed and reopened findings, SLA and KEV figures day by day', async () => {
    const days = await trendDays('From=2026-11-01&To=2026-11-20');
    expect(Object.keys(days)).toHaveLength(20);
    expect(days['2026-11-01']).toMatchObject({
      Open: open(2, 0, 0),
      ByState: states(2, 0, 0, 0),
      New: 2,
      Fixed: 0,
      Reopened: 0,
      PastSla: 0,
      DueSoon: 2,
      KevOpen: 1,
      Mttr: none,
    });
    expect(days['2026-11-02']).toMatchObject({ New: 3, Open: open(3, 1, 1), DueSoon: 3 });
    expect(days['2026-11-03']).toMatchObject({
      New: 1,
      Open: open(3, 1, 1),
      ByState: states(5, 0, 0, 1),
      DueSoon: 3,
    });
    expect(days['2026-11-04']).toMatchObject({
      Fixed: 1,
      Open: open(2, 1, 1),
      ByState: states(4, 0, 1, 1),
      KevOpen: 0,
      DueSoon: 2,
      Mttr: { ...none, Critical: { MeanDays: 3, MedianDays: 3, Count: 1 } },
    });
    expect(days['2026-11-05']).toMatchObject({
      Fixed: 1,
      Open: open(2, 1, 0),
      ByState: states(3, 0, 2, 1),
      Mttr: {
        ...none,
        Critical: { MeanDays: 3, MedianDays: 3, Count: 1 },
        Medium: { MeanDays: 2.5, MedianDays: 2.5, Count: 1 },
      },
    });
    expect(days['2026-11-06']).toMatchObject({
      Reopened: 1,
      Open: open(2, 1, 1),
      ByState: states(3, 1, 1, 1),
    });
    // f5 is due 11-08 08:00: past its SLA at the end of 11-08; f6 (due 11-09) is due soon.
    expect(days['2026-11-07']).toMatchObject({ PastSla: 0, DueSoon: 2 });
    expect(days['2026-11-08']).toMatchObject({ PastSla: 1, DueSoon: 1 });
    expect(days['2026-11-09']).toMatchObject({
      New: 1,
      Fixed: 1,
      Open: open(2, 1, 1),
      PastSla: 1,
      DueSoon: 1,
      Mttr: { Critical: { MeanDays: 5, MedianDays: 5, Count: 2 } },
    });
    expect(days['2026-11-10']).toMatchObject({
      Fixed: 1,
      Open: open(1, 1, 1),
      ByState: states(2, 1, 3, 1),
      PastSla: 1,
      DueSoon: 0,
      Mttr: { Critical: { MeanDays: 3.67, MedianDays: 3, Count: 3 } },
    });
    // Nothing changes after 11-10: the figures hold, the day's flows are zero.
    expect(days['2026-11-20']).toMatchObject({
      New: 0,
      Fixed: 0,
      Reopened: 0,
      Open: open(1, 1, 1),
      PastSla: 1,
      AssetsScanned: 0,
    });
  });

  it('sums the risk of the open findings as the exposure', async () => {
    const list = (await get('/findings?State=Open&State=Reopened&PageSize=100')).json();
    const risk = list.Items.reduce((sum: number, f: { RiskScore: number }) => sum + Number(f.RiskScore), 0);
    const days = await trendDays('From=2026-11-20&To=2026-11-20');
    expect(list.Items).toHaveLength(3);
    expect(days['2026-11-20'].RiskExposure).toBeCloseTo(risk, 1);
    expect(risk).toBeGreaterThan(0);
  });

  it('counts assets seen and scanned', async () => {
    const days = await trendDays('From=2026-11-01&To=2026-11-03');
    // Both assets were seen on 11-01; on 11-03 only B had a finding change.
    expect(days['2026-11-01']).toMatchObject({ AssetsSeen: 2, AssetsScanned: 2 });
    expect(days['2026-11-03']).toMatchObject({ AssetsSeen: 2, AssetsScanned: 1 });
  });

  it('narrows to an asset tag', async () => {
    const web = await trendDays('From=2026-11-01&To=2026-11-10&Tag=web');
    // A carries web: f1, f2, f6, f7.
    expect(web['2026-11-02']).toMatchObject({ New: 2, Open: open(2, 1, 0), AssetsSeen: 1 });
    expect(web['2026-11-10']).toMatchObject({ Open: open(0, 1, 0), ByState: states(1, 0, 3, 0) });
    const db = await trendDays('From=2026-11-01&To=2026-11-10&Tag=db');
    expect(db['2026-11-10']).toMatchObject({ Open: open(1, 0, 1), PastSla: 1, ByState: states(1, 1, 0, 1) });
    const res = await get('/trends?Tag=nothing-tagged-so');
    expect(res.json().Days).toEqual([]);
  });

  it('counts days in the organisation’s time zone', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/latest/settings',
      headers: { ...authHeaders(manager), 'content-type': 'application/json' },
      payload: JSON.stringify({
        SlaDays: { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null },
        TimeZone: 'America/New_York',
      }),
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().TimeZone).toBe('America/New_York');
    await t.services.history.computeDays(t.org.id, '2026-11-01', '2026-11-20');
    const res = await get('/trends?From=2026-11-01&To=2026-11-03');
    expect(res.json().TimeZone).toBe('America/New_York');
    const days = Object.fromEntries(res.json().Days.map((d: { Date: string }) => [d.Date, d]));
    // f4 was first seen at 22:00 on 11-02 in New York, and still Open at that day's end.
    expect(days['2026-11-02']).toMatchObject({ New: 4, Open: open(3, 1, 1, 1), ByState: states(6, 0, 0, 0) });
    expect(days['2026-11-03']).toMatchObject({ New: 0, Open: open(3, 1, 1), ByState: states(5, 0, 0, 1) });
    // Back to UTC for the other tests.
    await t.app.inject({
      method: 'PUT',
      url: '/api/latest/settings',
      headers: { ...authHeaders(manager), 'content-type': 'application/json' },
      payload: JSON.stringify({
        SlaDays: { Critical: 7, High: 30, Medium: 90, Low: 180, Info: null },
        TimeZone: 'UTC',
      }),
    });
    await t.services.history.computeDays(t.org.id, '2026-11-01', '2026-11-20');
  });

  it('replaces a day computed again instead of adding to it', async () => {
    await t.services.history.computeDays(t.org.id, '2026-11-04', '2026-11-04');
    await t.services.history.computeDays(t.org.id, '2026-11-04', '2026-11-04');
    const days = await trendDays('From=2026-11-01&To=2026-11-20');
    expect(Object.keys(days)).toHaveLength(20);
    expect(days['2026-11-04']).toMatchObject({ Fixed: 1, Open: open(2, 1, 1) });
  });
});
