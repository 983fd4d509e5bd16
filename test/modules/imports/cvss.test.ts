import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { fixturePath } from '../../importers/helpers.js';

/**
 * The CVSS a report gives, of every version, reaches the vulnerability, the finding's score and
 * risk score, and the original's CVSSBaseScore: nessus_with_cvssv3.nessus rates 27 of its 49
 * results with CVSS v2 and only 9 of them with v3 too.
 */
describe.each(DB_KINDS)('CVSS of every version from an imported report [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: authHeaders(analyst) });

  /** Every finding of the import by its plugin id (plugin 58987 is reported twice on port 80: one finding). */
  const findingsByPlugin = async () => {
    const res = await get('/api/latest/findings?PageSize=500&IncludeTotal=true');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    return { total: body.TotalCount as number, items: body.Items as Record<string, unknown>[] };
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    analyst = await t.userWithKey('Analyst');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports?FileName=nessus_with_cvssv3.nessus',
      headers: { ...authHeaders(analyst), 'content-type': 'application/xml' },
      payload: readFileSync(fixturePath('tenable/nessus/nessus_with_cvssv3.nessus')),
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.services.imports.settled(res.json().Id);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('scores plugin 58988 with its CVSS v2 7.5, and ranks it by that score', async () => {
    const { items } = await findingsByPlugin();
    const phpCgi = items.find((f) => f.PluginGuidId === '58988')!;
    expect(phpCgi).toMatchObject({ CVSSBaseScore: 7.5, CvssVersion: '2.0', Severity: 'High' });
    // impact 0.75 (7.5 / 10) × likelihood 0.75 (no EPSS known) × context 1 (criticality 3).
    expect(phpCgi.RiskScore).toBe(56.25);

    const vulnerability = (await get(`/api/latest/vulnerabilities/${phpCgi.VulnerabilityId}`)).json();
    expect(vulnerability).toMatchObject({
      CVSSBaseScore: 7.5,
      CvssVersion: '2.0',
      CvssVector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      Cvss2BaseScore: 7.5,
      Cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      Cvss3BaseScore: null,
      Cvss3Vector: null,
    });

    // The original's clients read the same score (RADAR-COMPAT: v2 when that is all there is).
    const detailed = await get(
      `/api/integration/vulnerabilities/systemscan/${phpCgi.VulnerabilityId}/detailed`,
    );
    expect(detailed.statusCode, detailed.body).toBe(200);
    expect(detailed.json().CVSSBaseScore).toBe(7.5);
  });

  it('gives the CVSS v2 score to the risk score where the severity says less (plugin 43351: Medium, v2 6.8)', async () => {
    const { items } = await findingsByPlugin();
    const finding = items.find((f) => f.PluginGuidId === '43351')!;
    expect(finding).toMatchObject({ CVSSBaseScore: 6.8, CvssVersion: '2.0', Severity: 'Medium' });
    // 100 × 0.68 × 0.75, where the Medium severity alone would give 100 × 0.5 × 0.75 = 37.5.
    expect(finding.RiskScore).toBe(51);
  });

  it('keeps both versions where the report gives both, and ranks by the higher version (plugin 17797)', async () => {
    const { items } = await findingsByPlugin();
    const finding = items.find((f) => f.PluginGuidId === '17797')!;
    // v2 rates it 7.8, v3.0 7.5: v3.0 is the higher version, so 7.5 ranks.
    expect(finding).toMatchObject({ CVSSBaseScore: 7.5, CvssVersion: '3.0' });
    const vulnerability = (await get(`/api/latest/vulnerabilities/${finding.VulnerabilityId}`)).json();
    expect(vulnerability).toMatchObject({
      CVSSBaseScore: 7.5,
      CvssVersion: '3.0',
      CvssVector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
      Cvss2BaseScore: 7.8,
      Cvss2Vector: 'AV:N/AC:L/Au:N/C:C/I:N/A:N',
      Cvss3BaseScore: 7.5,
      Cvss3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    });
  });

  it('scores 26 of the 48 findings: every result the report rates with any CVSS version', async () => {
    const { total, items } = await findingsByPlugin();
    expect(total).toBe(48);
    const scored = items.filter((f) => f.CVSSBaseScore !== null);
    // 27 ReportItems carry <cvss_base_score>; two of them are the same finding (58987 on port 80).
    expect(scored).toHaveLength(26);
    // Those without a score are the results the report rates with no CVSS at all.
    expect(items.filter((f) => f.CVSSBaseScore === null).every((f) => f.CvssVersion === null)).toBe(true);
  });
});
