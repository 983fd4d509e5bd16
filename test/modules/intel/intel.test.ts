import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { type NessusHost, nessusReport } from '../imports/nessus-report.js';

const KB = new URL('../../../knowledge-base/', import.meta.url);
const kb = (name: string) => readFileSync(new URL(name, KB));

describe.each(DB_KINDS)('vulnerability intelligence [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let reader: Credentials;

  const json = (method: 'GET' | 'POST' | 'PATCH', url: string, who: Credentials, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: { ...authHeaders(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** Sends a feed file and waits for its load to end; answers the status and the final load. */
  const load = async (file: Buffer | string, query = '', who: Credentials = t.admin) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/latest/intel/loads${query}`,
      headers: { ...authHeaders(who), 'content-type': 'application/octet-stream' },
      payload: file,
    });
    if (res.statusCode !== 202) return { status: res.statusCode, body: res.json() };
    expect(res.headers.location).toBe(`/api/latest/intel/loads/${res.json().Id}`);
    for (let i = 0; i < 600; i++) {
      const now = (await json('GET', `/intel/loads/${res.json().Id}`, t.admin)).json();
      if (now.State !== 'Running') return { status: 202, body: now };
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the load did not end');
  };

  const importReport = async (hosts: NessusHost[]) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(analyst), 'content-type': 'application/xml' },
      payload: nessusReport(hosts),
    });
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    return (await json('GET', `/imports/${res.json().Id}`, analyst)).json();
  };

  const finding = async (search: string) =>
    (await json('GET', `/findings?Search=${encodeURIComponent(search)}&PageSize=10`, reader)).json().Items[0];

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_INTEL_MAX_BYTES: String(4 * 1024 * 1024) },
    });
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const httpd: NessusHost = {
    ip: '10.60.0.1',
    fqdn: 'www.intel.example',
    items: [
      { plugin: '153884', name: 'Apache 2.4.49 Path Traversal', cve: ['CVE-2021-41773'], severity: 3 },
      { plugin: '104743', name: 'TLS Version 1.0 Protocol Detection', severity: 2 },
    ],
  };

  it('scores findings by severity alone before any intelligence is loaded', async () => {
    await importReport([httpd]);
    const f = await finding('Path Traversal');
    // High's typical impact 0.75 × unknown likelihood 0.75 × context 1.0.
    expect(f).toMatchObject({ RiskScore: 56.25, Kev: false, EpssScore: null, CVSSBaseScore: null });
    // First seen 2026-11-21 (the test clock) + the High SLA of 30 days.
    expect(f.DueAt).toBe('2026-12-21T12:00:00.000Z');
  });

  it('loads the knowledge base feeds, gzipped, each detected by its content', async () => {
    const expected: Record<string, { feed: string; records: number }> = {
      'nvd-cves.json.gz': { feed: 'nvd', records: 41 },
      'kev-catalog.json.gz': { feed: 'kev', records: 1404 },
      'epss-scores.csv.gz': { feed: 'epss', records: 1444 },
      'osv-advisories.json.gz': { feed: 'osv', records: 21 },
      'cve5-records.json.gz': { feed: 'cve5', records: 6 },
    };
    for (const [file, want] of Object.entries(expected)) {
      const { status, body } = await load(kb(file), `?FileName=${file}`);
      expect(status, file).toBe(202);
      expect(body, file).toMatchObject({ Feed: want.feed, State: 'Completed', Source: file, Error: null });
      // NVD records carry CISA's KEV fields: the catalogue then updates those entries.
      expect(body.Added + body.Updated, file).toBe(want.records);
    }
    const kev = (await json('GET', '/intel/loads', t.admin))
      .json()
      .Items.find((l: { Feed: string }) => l.Feed === 'kev');
    expect(kev.Updated).toBeGreaterThan(0);
  });

  it('re-scores existing findings when a feed changes a CVE: KEV, EPSS, CVSS and the KEV due date', async () => {
    const f = await finding('Path Traversal');
    // CVE-2021-41773: NVD CVSS 3.1 7.5, in KEV (due 2021-11-17): likelihood 1.
    expect(f).toMatchObject({ Kev: true, KevDueDate: '2021-11-17', CVSSBaseScore: 7.5, RiskScore: 75 });
    expect(f.EpssPercentile).toBeGreaterThan(0.9);
    // In KEV: the KEV SLA (14 days by default) from when it was found, sooner than High's 30;
    // never CISA's federal date of 2021, which was past before the finding was found.
    expect(f.DueAt).toBe('2026-12-05T12:00:00.000Z');
    const v = (await json('GET', `/vulnerabilities/${f.VulnerabilityId}`, reader)).json();
    expect(v).toMatchObject({
      CVSSBaseScore: 7.5,
      CvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
      Kev: true,
      KevDateAdded: '2021-11-03',
      KevDueDate: '2021-11-17',
    });
    expect(v.Cwe).toContain('CWE-22');
    expect(v.IntelUpdatedAt).not.toBeNull();
    // A finding without a CVE keeps its severity-based score.
    expect((await finding('TLS Version 1.0')).RiskScore).toBe(37.5);
  });

  it('loads the same files again as all Unchanged, writing nothing', async () => {
    const before = (await json('GET', '/intel/feeds', t.admin)).json();
    for (const file of ['nvd-cves.json.gz', 'kev-catalog.json.gz', 'epss-scores.csv.gz']) {
      const { body } = await load(kb(file));
      expect(body, file).toMatchObject({ State: 'Completed', Added: 0, Updated: 0 });
      expect(body.Unchanged, file).toBeGreaterThan(0);
    }
    const after = (await json('GET', '/intel/feeds', t.admin)).json();
    expect(after.Items.map((i: { Records: number }) => i.Records)).toEqual(
      before.Items.map((i: { Records: number }) => i.Records),
    );
  });

  it('scores new findings from intelligence already loaded, in the import itself', async () => {
    await importReport([
      {
        ip: '10.60.0.2',
        items: [
          { plugin: '201194', name: 'OpenSSH regreSSHion', cve: ['CVE-2024-6387'], severity: 3, port: 22 },
        ],
      },
    ]);
    const f = await finding('regreSSHion');
    const epss = f.EpssPercentile as number;
    expect(f).toMatchObject({ Kev: false, CVSSBaseScore: 8.1 });
    expect(f.RiskScore).toBeCloseTo(Math.round(100 * 0.81 * (0.5 + 0.5 * epss) * 100) / 100, 2);
  });

  it('re-scores an asset’s findings when its criticality or exposure changes', async () => {
    const f = await finding('regreSSHion');
    const patched = await json('PATCH', `/assets/${f.AssetId}`, t.admin, {
      Criticality: 5,
      InternetFacing: true,
    });
    expect(patched.statusCode).toBe(200);
    const after = await finding('regreSSHion');
    expect(after.RiskScore).toBeCloseTo(Math.min(100, f.RiskScore * 1.3 * 1.2), 1);
  });

  it('shows what the feeds say about a CVE, with each CVSS metric spelled out and its sources', async () => {
    const res = await json('GET', '/intel/cves/cve-2024-6387', reader);
    expect(res.statusCode).toBe(200);
    const cve = res.json();
    expect(cve).toMatchObject({ Cve: 'CVE-2024-6387', Rejected: false, Kev: null });
    const nvd = cve.Cvss.find((c: { Source: string }) => c.Source === 'secalert@redhat.com');
    expect(nvd).toMatchObject({ Version: '3.1', BaseScore: 8.1, Severity: 'High', Error: null });
    expect(nvd.Metrics[0]).toEqual({ Key: 'AV', Name: 'Attack Vector', Value: 'N', Label: 'Network' });
    expect(cve.Epss.Percentile).toBeGreaterThan(0);
    expect(cve.AffectedProducts).toContain('openbsd:openssh');
    expect(cve.Sources.map((s: { Feed: string }) => s.Feed)).toEqual(
      expect.arrayContaining(['nvd', 'cve5', 'epss']),
    );
    expect((await json('GET', '/intel/cves/CVE-2021-41773', reader)).json().Kev).toMatchObject({
      DueDate: '2021-11-17',
      Vendor: 'Apache',
    });
  });

  it('answers 404 for a CVE no feed knows and 400 for what is not a CVE id', async () => {
    const unknown = await json('GET', '/intel/cves/CVE-1999-99999', reader);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().type).toMatch(/not-found$/);
    const bad = await json('GET', '/intel/cves/not-a-cve', reader);
    expect(bad.statusCode).toBe(400);
  });

  it('matches detected products, CPEs and packages to the CVEs that apply', async () => {
    const match = async (body: unknown) => {
      const res = await json('POST', '/intel/match', reader, body);
      expect(res.statusCode).toBe(200);
      return res.json().Items as { Cve: string | null; Advisory: string | null; MatchedBy: string }[];
    };
    const cves = (items: { Cve: string | null }[]) => items.map((i) => i.Cve);
    expect(
      cves(await match({ Products: [{ Vendor: 'apache', Product: 'http_server', Version: '2.4.49' }] })),
    ).toContain('CVE-2021-41773');
    expect(
      cves(await match({ Products: [{ Vendor: 'apache', Product: 'http_server', Version: '2.4.48' }] })),
    ).not.toContain('CVE-2021-41773');
    expect(cves(await match({ Cpes: ['cpe:/a:openbsd:openssh:8.9p1'] }))).toContain('CVE-2024-6387');
    expect(cves(await match({ Cpes: ['cpe:/a:openbsd:openssh:9.8p1'] }))).not.toContain('CVE-2024-6387');
    const lodash = await match({ Packages: [{ Ecosystem: 'npm', Name: 'lodash', Version: '4.17.20' }] });
    expect(lodash.find((i) => i.Cve === 'CVE-2021-23337')?.Advisory).toMatch(/^GHSA-/);
    expect(await match({ Packages: [{ Ecosystem: 'npm', Name: 'lodash', Version: '4.17.21' }] })).toEqual([]);
  });

  it('refuses bad match requests clearly', async () => {
    const empty = await json('POST', '/intel/match', reader, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().detail).toMatch(/Cpes, Products or Packages/);
    const unknown = await json('POST', '/intel/match', reader, { Cpe: ['x'] });
    expect(unknown.statusCode).toBe(400);
    const garbage = await json('POST', '/intel/match', reader, { Cpes: ['not a cpe at all'] });
    expect(garbage.statusCode).toBe(200);
    expect(garbage.json().Items).toEqual([]);
  });

  it('lists feed status and loads for Admins only', async () => {
    const status = await json('GET', '/intel/feeds', t.admin);
    expect(status.statusCode).toBe(200);
    const kev = status.json().Items.find((i: { Feed: string }) => i.Feed === 'kev');
    expect(kev).toMatchObject({
      LastCompletedLoad: { DataDate: '2025-08-25T00:00:00.000Z', DataDateAsGiven: '2025.08.25' },
    });
    // The catalogue's 1,404, and CVEs NVD records say CISA added later.
    expect(kev.Records).toBeGreaterThanOrEqual(1404);
    expect(status.json()).toMatchObject({ SyncUrls: [], SyncHours: null, LastSync: null });
    expect((await json('GET', '/intel/loads', t.admin)).json().Items.length).toBeGreaterThanOrEqual(8);
    const otherAdmin = await t.userWithKey('Admin', await t.services.organizations.create('Tenant B'));
    const refused = await load(kb('osv-advisories.json.gz'), '', otherAdmin);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/first organisation/);
    for (const who of [reader, analyst]) {
      expect((await json('GET', '/intel/feeds', who)).statusCode).toBe(403);
      expect((await json('GET', '/intel/loads', who)).statusCode).toBe(403);
      expect((await load(kb('osv-advisories.json.gz'), '', who)).status).toBe(403);
    }
  });

  it('refuses a file that is no feed (422 listing the feeds), an empty one and a gzip bomb', async () => {
    const unknown = await load('<html>not a feed</html>');
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ feeds: ['nvd', 'cve5', 'kev', 'epss', 'osv'] });
    expect(unknown.body.type).toMatch(/unknown-feed-format$/);
    expect((await load('')).status).toBe(400);
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 'a'));
    const big = await load(bomb);
    expect(big.status).toBe(413);
    expect(big.body.detail).toMatch(/RAMPART_INTEL_MAX_BYTES/);
    expect((await load('{}', '?Feed=bogus')).status).toBe(400);
  });

  it('fails a broken file with the line and column, keeping what was stored', async () => {
    const before = (await json('GET', '/intel/feeds', t.admin)).json();
    const page = gunzipSync(kb('nvd-cves.json.gz')).toString('utf8');
    const pretty = JSON.stringify(JSON.parse(page), null, 1);
    const { status, body } = await load(pretty.slice(0, Math.floor(pretty.length / 2)), '?FileName=cut.json');
    expect(status).toBe(202);
    expect(body.State).toBe('Failed');
    expect(body.Error).toMatch(/line \d+, column \d+/);
    const after = (await json('GET', '/intel/feeds', t.admin)).json();
    expect(after.Items.find((i: { Feed: string }) => i.Feed === 'nvd').Records).toBe(
      before.Items.find((i: { Feed: string }) => i.Feed === 'nvd').Records,
    );
    const nvd = after.Items.find((i: { Feed: string }) => i.Feed === 'nvd');
    expect(nvd.LastLoad).toMatchObject({ State: 'Failed', Source: 'cut.json' });
    expect(nvd.LastCompletedLoad.State).toBe('Completed');
  });

  it('never lets an older copy of a record replace a newer one', async () => {
    const page = JSON.parse(gunzipSync(kb('nvd-cves.json.gz')).toString('utf8'));
    const record = page.vulnerabilities.find((v: { cve: { id: string } }) => v.cve.id === 'CVE-2024-6387');
    const older = {
      ...record.cve,
      lastModified: '2024-07-01T00:00:00.000',
      descriptions: [{ lang: 'en', value: 'stale' }],
    };
    const { body } = await load(JSON.stringify(older));
    expect(body).toMatchObject({ State: 'Completed', Added: 0, Updated: 0, Unchanged: 1 });
    expect((await json('GET', '/intel/cves/CVE-2024-6387', reader)).json().Description).not.toBe('stale');
  });

  it('gives a finding found today in KEV a due date from today, by the organisation’s KEV SLA', async () => {
    const manager = await t.userWithKey('Manager');
    const settings = (await json('GET', '/settings', reader)).json();
    expect(settings.KevSlaDays).toBe(14);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/latest/settings',
      headers: { ...authHeaders(manager), 'content-type': 'application/json' },
      payload: JSON.stringify({ SlaDays: settings.SlaDays, KevSlaDays: 3 }),
    });
    expect(put.json()).toEqual({
      SlaDays: settings.SlaDays,
      KevSlaDays: 3,
      TimeZone: 'UTC',
      AuditRetentionDays: 365,
      RequireMfa: false,
    });
    t.clock.advanceDays(10);
    // The same CVE, found today on another host: due 3 days from now, the catalogue's 2021 date
    // shown beside it.
    await importReport([{ ...httpd, ip: '10.60.0.9', fqdn: 'later.intel.example' }]);
    const found = (await json('GET', '/findings?Search=Path%20Traversal&PageSize=10', reader))
      .json()
      .Items.find((f: { FirstSeen: string }) => f.FirstSeen === '2026-12-01T12:00:00.000Z');
    expect(found).toMatchObject({ Kev: true, KevDueDate: '2021-11-17', DueAt: '2026-12-04T12:00:00.000Z' });
    const detail = (await json('GET', `/findings/${found.Id}`, reader)).json();
    expect(detail).toMatchObject({ KevDueDate: '2021-11-17', DueAt: '2026-12-04T12:00:00.000Z' });
  });
});

describe('risk score and due date functions', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  const risk = async (
    cvss: number | null,
    severity: string,
    epss: number | null,
    kev: boolean,
    criticality: number,
    internetFacing: boolean,
  ) =>
    Number(
      (
        await sql<{
          r: string;
        }>`select rampart_risk_score(${cvss}::numeric, ${severity}::text, ${epss}::numeric,
          ${kev}::boolean, ${criticality}::int, ${internetFacing}::boolean) as r`.execute(tdb.database.db)
      ).rows[0]!.r,
    );

  it('gives the risk score examples of docs/intelligence.md', async () => {
    expect(await risk(7.5, 'High', 0.99, true, 4, true)).toBe(100);
    expect(await risk(8.1, 'High', 0.99, false, 3, false)).toBe(80.6);
    expect(await risk(8.1, 'High', 0.1, false, 3, false)).toBe(44.55);
    expect(await risk(null, 'High', null, false, 3, false)).toBe(56.25);
    expect(await risk(null, 'Low', null, false, 1, false)).toBe(11.25);
  });

  it('stays within 0–100 and orders by each factor', async () => {
    expect(await risk(10, 'Critical', 1, true, 5, true)).toBe(100);
    expect(await risk(0, 'Info', 0, false, 1, false)).toBe(0);
    expect(await risk(null, 'Info', null, true, 5, true)).toBe(0);
    expect(await risk(9.8, 'Critical', 0.5, false, 3, false)).toBeLessThan(
      await risk(9.8, 'Critical', 0.5, true, 3, false),
    );
    expect(await risk(5, 'Medium', 0.2, false, 3, false)).toBeLessThan(
      await risk(5, 'Medium', 0.9, false, 3, false),
    );
    expect(await risk(5, 'Medium', null, false, 2, false)).toBeLessThan(
      await risk(5, 'Medium', null, false, 4, false),
    );
    expect(await risk(5, 'Medium', null, false, 3, false)).toBeLessThan(
      await risk(5, 'Medium', null, false, 3, true),
    );
  });

  it('takes the sooner of the severity SLA and the KEV SLA, from first seen; no SLA is no due date', async () => {
    const due = async (severity: string, kev: boolean, info: number | null, kevDays: number | null = 14) =>
      (
        await sql<{
          d: Date | null;
        }>`select rampart_due_at(${severity}::text, '2026-11-01T10:00:00Z'::timestamptz,
          ${kev}::boolean, 7, 30, 90, 180, ${info}::int, ${kevDays}::int) as d`.execute(tdb.database.db)
      ).rows[0]!.d?.toISOString() ?? null;
    expect(await due('High', false, null)).toBe('2026-12-01T10:00:00.000Z');
    expect(await due('High', true, null)).toBe('2026-11-15T10:00:00.000Z');
    expect(await due('Critical', true, null)).toBe('2026-11-08T10:00:00.000Z');
    expect(await due('Info', false, null)).toBeNull();
    expect(await due('Info', true, null)).toBe('2026-11-15T10:00:00.000Z');
    // No KEV SLA: a KEV finding is due by its severity alone.
    expect(await due('High', true, null, null)).toBe('2026-12-01T10:00:00.000Z');
    expect(await due('Info', true, null, null)).toBeNull();
  });
});
