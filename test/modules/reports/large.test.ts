import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlerOf, type JobServices } from '../../../src/jobs/catalogue.js';
import { JobWorker } from '../../../src/jobs/worker.js';
import { CHUNK_BYTES } from '../../../src/modules/reports/chunks.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { readPdf } from './pdf-text.js';

const FINDINGS = 20_000;
const ASSETS = 200;

describe.each(DB_KINDS)('a large technical report [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let worker: JobWorker;

  const get = (url: string) =>
    t.app.inject({ method: 'GET', url: `/api/latest${url}`, headers: authHeaders(analyst) });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    analyst = await t.userWithKey('Analyst');
    const org = t.org.id;
    const at = t.clock.now;
    const db = tdb.database.db;
    // 20,000 open findings on 200 assets, by set-based SQL (as bench/backup.ts seeds).
    await sql`
      insert into assets (organization_id, id, kind, name, ip_addresses, tags, sources, first_seen_at, last_seen_at, criticality, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'Host', 'host-' || lpad(g::text, 3, '0'), array['10.9.' || (g / 256) || '.' || (g % 256)],
        array['big'], array['Test'], ${at}, ${at}, 3, ${at}, ${at}
      from generate_series(1, ${ASSETS}) g`.execute(db);
    await sql`
      insert into vulnerabilities (organization_id, id, key, source, cve_ids, title, severity, solution, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'test:' || g, 'Test', array['CVE-2026-' || (20000 + g)],
        'Synthetic weakness ' || g, (array['Critical', 'High', 'Medium', 'Low', 'Info'])[1 + g % 5],
        'Apply vendor patch ' || g || ' and restart the service.', ${at}, ${at}
      from generate_series(1, 100) g`.execute(db);
    await sql`
      with a as (select id, row_number() over (order by id) - 1 as n from assets where organization_id = ${org}),
           v as (select id, title, severity, row_number() over (order by id) - 1 as n from vulnerabilities where organization_id = ${org})
      insert into findings (organization_id, id, asset_id, vulnerability_id, dedup_key, location_kind, port, protocol, title, severity,
        state, risk_score, due_at, source, first_seen_at, last_seen_at, created_at, updated_at)
      select ${org}, rampart_uuidv7(), a.id, v.id, md5(g::text), 'Port', 1 + g % 1024, 'tcp', v.title, v.severity,
        'Open', (g % 100), ${at}::timestamptz + ((g % 90) || ' days')::interval, 'Test', ${at}, ${at}, ${at}, ${at}
      from generate_series(0, ${FINDINGS - 1}) g
      join a on a.n = g % ${ASSETS}
      join v on v.n = (g / ${ASSETS}) % 100`.execute(db);
    worker = new JobWorker(t.services.jobs, { pollMs: 20 });
    worker.register('report-generate', handlerOf('report-generate', t.services as unknown as JobServices));
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await tdb?.drop();
  });

  it('is made by the job page after page with progress, stored in bounded chunks and downloaded whole', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/reports',
      headers: { ...authHeaders(analyst), 'content-type': 'application/json' },
      payload: JSON.stringify({ Kind: 'Technical', Format: 'Pdf', Tag: 'big' }),
    });
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().Id;
    worker.start();
    // Progress as the API shows it while the job runs.
    const seen: { Progress: number; RowsWritten: number }[] = [];
    let report = res.json();
    for (let i = 0; i < 6000 && report.State !== 'Completed' && report.State !== 'Failed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      report = (await get(`/reports/${id}`)).json();
      seen.push({ Progress: report.Progress, RowsWritten: report.RowsWritten });
    }
    expect(report.State, report.Error).toBe('Completed');
    expect(report).toMatchObject({ RowsTotal: FINDINGS, RowsWritten: FINDINGS, Progress: 100 });
    const midway = seen.filter((s) => s.Progress > 0 && s.Progress < 100);
    expect(midway.length).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]!.RowsWritten).toBeGreaterThanOrEqual(seen[i - 1]!.RowsWritten);

    // The file is kept as chunks of at most CHUNK_BYTES, not one value.
    const chunks = await sql<{ n: string; largest: number; total: string }>`
      select count(*) as n, max(length(data)) as largest, sum(length(data)) as total
      from report_chunks where organization_id = ${t.org.id} and report_id = ${id}`.execute(tdb.database.db);
    const c = chunks.rows[0]!;
    expect(Number(c.n)).toBeGreaterThan(1);
    expect(Number(c.largest)).toBeLessThanOrEqual(CHUNK_BYTES);
    expect(Number(c.total)).toBe(report.SizeBytes);

    const file = await get(`/reports/${id}/download`);
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.length).toBe(report.SizeBytes);
    const pdf = await readPdf(file.rawPayload);
    expect(pdf.pages).toBe(report.PageCount);
    expect(pdf.pages).toBeGreaterThan(100);
    // Grouped by asset in name order: host-001 first, host-200 last.
    expect(pdf.text[0]).toContain('host-001');
    expect(pdf.text.at(-1)).toContain('host-200');
  }, 300_000);
});
