/**
 * npm run bench:dashboard — seeds 100,000 findings on 2,000 assets in PostgreSQL (DATABASE_URL; a
 * fresh database is created and dropped), then measures p50/p99 of GET /dashboard's figures as the
 * service computes them (every aggregate, the last scans and imports), for the organisation and for
 * a tag, and prints the plan of each aggregate (EXPLAIN ANALYZE). BENCH_FINDINGS / BENCH_ASSETS
 * scale it; BENCH_KEEP=1 keeps the database.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { DB } from '../src/db/schema.js';
import { LocalInvalidationBus } from '../src/lib/invalidation-bus.js';
import { AGE_BUCKETS, ageBoundary, WINDOW_DAYS } from '../src/modules/dashboard/service.js';
import { FindingFiguresRepository } from '../src/modules/findings/figures-repository.js';
import { buildServices } from '../src/services.js';

const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 2_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

if (!process.env.DATABASE_URL) {
  console.error('bench:dashboard needs DATABASE_URL (a PostgreSQL server where it may create a database)');
  process.exit(1);
}
const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
await admin.connect();
const name = `rampart_bench_dashboard_${process.pid}`;
await admin.query(`create database ${name}`);
const url = new URL(process.env.DATABASE_URL);
url.pathname = `/${name}`;
const database = await openPostgres(url.toString(), 4);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const result = await fn();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
}

try {
  await migrateToLatest(database.db);
  const now = new Date();
  const services = buildServices(database, () => now, new LocalInvalidationBus(), {
    authCacheSeconds: 0,
    sessionIdleMinutes: 30,
    sessionMaxHours: 12,
  });
  const { organization } = await services.organizations.ensureFirst();
  const org = organization.id;
  const ctx = { organizationId: org, actor: { type: 'system' as const, id: null } };

  console.log(
    `bench:dashboard — seeding ${FINDINGS.toLocaleString()} findings on ${ASSETS.toLocaleString()} assets`,
  );
  const [seedMs] = await time(async () => {
    await sql`
      insert into assets (organization_id, id, kind, name, ip_addresses, tags, sources, first_seen_at, last_seen_at, criticality, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'Host', 'host-' || g, array['10.' || (g / 65536) || '.' || ((g / 256) % 256) || '.' || (g % 256)],
        case when g % 10 = 0 then array['prod'] else array['lab'] end, array['Bench'], ${now}::timestamptz - interval '400 days',
        ${now}::timestamptz, 1 + g % 5, ${now}::timestamptz, ${now}::timestamptz
      from generate_series(1, ${ASSETS}) g`.execute(database.db);
    await sql`
      insert into vulnerabilities (organization_id, id, key, source, plugin_id, cve_ids, title, severity, cvss3_score, kev, epss_score, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'cve:CVE-2024-' || (10000 + g), 'Bench', (100000 + g)::text, array['CVE-2024-' || (10000 + g)],
        'Synthetic vulnerability ' || g, (array['Critical', 'High', 'Medium', 'Low', 'Info'])[1 + g % 5],
        round((g % 100) / 10.0, 1), g % 50 = 0, (g % 1000) / 1000.0, ${now}::timestamptz, ${now}::timestamptz
      from generate_series(1, 2000) g`.execute(database.db);
    // First seen up to 400 days back; one in eight Fixed, up to 120 days ago and after first sight.
    await sql`
      with a as (select id, row_number() over (order by id) - 1 as n from assets where organization_id = ${org}),
           v as (select id, title, severity, cvss3_score, row_number() over (order by id) - 1 as n from vulnerabilities where organization_id = ${org})
      insert into findings (organization_id, id, asset_id, vulnerability_id, dedup_key, location_kind, port, protocol, title, severity,
        state, risk_score, due_at, source, first_seen_at, last_seen_at, fixed_at, created_at, updated_at)
      select ${org}, rampart_uuidv7(), a.id, v.id, md5(g::text), 'Port', 1 + g % 1024, 'tcp', v.title, v.severity,
        s.state, coalesce(v.cvss3_score * 10, 50), seen + ((30 + g % 150) || ' days')::interval, 'Bench',
        seen, ${now}::timestamptz - ((g % 30) || ' days')::interval,
        case when s.state = 'Fixed' then greatest(seen, ${now}::timestamptz - ((g % 120) || ' days')::interval) end,
        seen, ${now}::timestamptz
      from generate_series(0, ${FINDINGS - 1}) g
      cross join lateral (select ${now}::timestamptz - ((g % 400) || ' days')::interval as seen) t
      cross join lateral (select (array['Open', 'Open', 'Open', 'Fixed', 'Reopened', 'RiskAccepted', 'FalsePositive', 'Open'])[1 + g % 8] as state) s
      join a on a.n = g % ${ASSETS}
      join v on v.n = (g / ${ASSETS}) % 2000`.execute(database.db);
    await sql`analyze`.execute(database.db);
  });
  console.log(`seeded in ${(seedMs / 1000).toFixed(1)} s`);

  const rows: string[] = [];
  for (const [label, q] of [
    ['organisation', {}],
    ["tag 'prod' (10 % of the assets)", { tag: 'prod' }],
  ] as const) {
    await services.dashboard.dashboard(ctx, q); // warm
    const times: number[] = [];
    let open = 0;
    for (let i = 0; i < RUNS; i++) {
      const [ms, d] = await time(() => services.dashboard.dashboard(ctx, q));
      times.push(ms);
      open = d.open.total;
    }
    times.sort((a, b) => a - b);
    rows.push(
      `| ${label} | ${open.toLocaleString('en')} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} |`,
    );
  }
  console.log('\n| GET /dashboard of | open findings | p50 ms | p99 ms |\n|---|---|---|---|');
  for (const r of rows) console.log(r);

  // The plans: each aggregate's SQL as the repository sends it, explained with its parameters.
  const captured: { sql: string; parameters: readonly unknown[] }[] = [];
  const logged = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 1 }) }),
    log: (event) => {
      if (event.level === 'query')
        captured.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  const figures = new FindingFiguresRepository(logged);
  const since = new Date(now.getTime() - WINDOW_DAYS * 86_400_000);
  await figures.openSummary(
    org,
    {},
    now,
    AGE_BUCKETS.map((b) => ageBoundary(now, b)),
    10,
  );
  await figures.fixedFigures(org, {}, since, now);
  const names = ['open findings: every figure in one statement', 'their titles', 'fixed findings'];
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  for (const [i, q] of captured.entries()) {
    const plan = await client.query(`explain (analyze, buffers) ${q.sql}`, q.parameters as unknown[]);
    const lines = plan.rows.map((r) => r['QUERY PLAN'] as string);
    console.log(`\n-- ${names[i] ?? `query ${i}`}`);
    for (const line of lines.filter((l) => /Scan on|Execution Time|Aggregate|CTE/.test(l))) console.log(line);
  }
  await client.end();
  await logged.destroy();
} finally {
  await database.close();
  if (process.env.BENCH_KEEP !== '1') await admin.query(`drop database ${name}`);
  else console.log(`kept database ${name}`);
  await admin.end();
}
