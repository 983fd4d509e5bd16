/**
 * npm run bench:trends — the history behind trends at a million findings on PostgreSQL
 * (DATABASE_URL; a fresh database is created and dropped). It seeds 1,000,000 findings on 20,000
 * assets with a year of history (first sightings spread over 365 days, fixes, reopenings, their
 * finding_events) in SQL (generate_series), then times:
 *
 * - the rebuild of a year of daily snapshots from the findings' history (a job, no goal);
 * - the daily job (the day that ended, every scope: organisation, tags, scan groups): goal ≤ 10 s;
 * - a year of trend data for one scope (GET /trends' query): goal ≤ 50 ms (p50 and p99 of 30);
 *
 * each with the ratio to a baseline measured in the same run: one pass over the findings counting
 * the open ones by severity (what any figure of the day costs at least, done naively), and for the
 * trend query, the same count narrowed to one tag. BENCH_FINDINGS / BENCH_ASSETS scale it down;
 * BENCH_KEEP=1 keeps the database.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { LocalInvalidationBus } from '../src/lib/invalidation-bus.js';
import { addDays, localDay } from '../src/modules/history/days.js';
import { HistoryRepository } from '../src/modules/history/repository.js';
import { MTTR_WINDOW_DAYS } from '../src/modules/history/service.js';
import { buildServices } from '../src/services.js';

const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 1_000_000);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

if (!process.env.DATABASE_URL) {
  console.log(
    'bench:trends skipped: it needs DATABASE_URL (a PostgreSQL server where it may create a database).',
  );
  process.exit(0);
}

const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
await admin.connect();
// BENCH_REUSE=<database> times again a database an earlier run kept (BENCH_KEEP=1), unseeded.
const reuse = process.env.BENCH_REUSE;
const name = reuse ?? `rampart_bench_${randomBytes(4).toString('hex')}`;
if (!reuse) await admin.query(`create database ${name}`);
const url = new URL(process.env.DATABASE_URL);
url.pathname = `/${name}`;
const database = await openPostgres(url.toString(), 4);

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const result = await fn();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
}
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
async function repeat(fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await time(fn))[0]);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

// The bench's "now": its seed is relative to it, and the services' clock stands still there.
const NOW = new Date();

try {
  await migrateToLatest(database.db);
  const services = buildServices(database, () => new Date(NOW), new LocalInvalidationBus(), {
    authCacheSeconds: 0,
    sessionIdleMinutes: 30,
    sessionMaxHours: 12,
  });
  const { organization } = await services.organizations.ensureFirst();
  const org = organization.id;
  const ctx = { organizationId: org, actor: { type: 'system' as const, id: null } };
  const now = sql`${NOW}::timestamptz`;

  console.log(
    `bench:trends — seeding ${FINDINGS.toLocaleString()} findings on ${ASSETS.toLocaleString()} assets with a year of history`,
  );
  const [seedMs] = await time(async () => {
    if (reuse) return;
    await sql`
      insert into assets (organization_id, id, kind, name, ip_addresses, tags, sources, first_seen_at, last_seen_at, criticality, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'Host', 'host-' || g, array['10.' || (g / 65536) || '.' || ((g / 256) % 256) || '.' || (g % 256)],
        array[case when g % 10 = 0 then 'prod' else 'lab' end, 'team-' || (g % 20)], array['Bench'],
        ${now} - interval '380 days', ${now} - ((g % 40) || ' days')::interval, 1 + g % 5, ${now}, ${now}
      from generate_series(1, ${ASSETS}) g`.execute(database.db);
    await sql`
      insert into vulnerabilities (organization_id, id, key, source, plugin_id, cve_ids, title, severity, cvss3_score, kev, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'cve:CVE-2024-' || (10000 + g), 'Bench', (100000 + g)::text, array['CVE-2024-' || (10000 + g)],
        'Synthetic vulnerability ' || g, (array['Critical', 'High', 'Medium', 'Low', 'Info'])[1 + g % 5],
        round((g % 100) / 10.0, 1), g % 50 = 0, ${now}, ${now}
      from generate_series(1, 2000) g`.execute(database.db);
    // Five scan groups of ten system scans each; a tenth of the findings are those scans'.
    await sql`
      insert into scan_groups (organization_id, id, name, scanning_mode, system_settings, web_settings, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'Group ' || g, 'RegularScan', '{}', '{}', ${now}, ${now}
      from generate_series(1, 5) g`.execute(database.db);
    await sql`
      insert into system_scans (organization_id, id, name, targets, template_id, scan_group_id, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'Scan ' || g, '[]', rampart_uuidv7(),
        (select id from scan_groups where organization_id = ${org} order by id offset (g % 5) limit 1), ${now}, ${now}
      from generate_series(1, 50) g`.execute(database.db);
    // Each finding: first seen d days ago (0–364); one in three fixed f days later; one in ten of
    // those reopened the day after; some risk accepted or false positives; a tenth by a scan.
    await sql`
      with a as (select id, row_number() over (order by id) - 1 as n from assets where organization_id = ${org}),
        v as (select id, title, severity, row_number() over (order by id) - 1 as n from vulnerabilities where organization_id = ${org}),
        s as (select 'system-scan:' || id as scope, row_number() over (order by id) - 1 as n from system_scans where organization_id = ${org}),
        plan as (
          select g, (g::bigint * 7919) % 365 as age, 1 + (g * 31) % 60 as took,
            case when g % 3 = 0 then (case when g % 30 = 0 then 'Reopened' else 'Fixed' end)
              when g % 17 = 0 then 'RiskAccepted' when g % 19 = 0 then 'FalsePositive' else 'Open' end as state
          from generate_series(0, ${FINDINGS - 1}) g
        )
      insert into findings (organization_id, id, asset_id, vulnerability_id, dedup_key, location_kind, port, protocol, title, severity,
        state, risk_score, due_at, source, scope_name, first_seen_at, last_seen_at, fixed_at, created_at, updated_at)
      select ${org}, rampart_uuidv7(), a.id, v.id, md5(p.g::text), 'Port', 1 + p.g % 1024, 'tcp', v.title, v.severity,
        case when p.state = 'Fixed' and p.took > p.age then 'Open' else p.state end,
        10 + (p.g % 90), ${now} - (p.age || ' days')::interval + ((7 + p.g % 180) || ' days')::interval, 'Bench',
        case when p.g % 10 = 0 then s.scope end,
        ${now} - (p.age || ' days')::interval, ${now}, case when p.state = 'Fixed' and p.took <= p.age
          then ${now} - ((p.age - p.took) || ' days')::interval end, ${now}, ${now}
      from plan p
      join a on a.n = p.g % ${ASSETS}
      join v on v.n = (p.g / ${ASSETS}) % 2000
      left join s on s.n = p.g % 50`.execute(database.db);
    // Their history: created at first sight; then fixed (at fixed_at), decided or fixed and
    // reopened an hour later, 1–30 days after the first sight.
    await sql`
      insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, kind, from_state, to_state, details)
      select f.organization_id, rampart_uuidv7(), f.id, f.first_seen_at, 'system', 'created', null, 'Open', '{}'
      from findings f where f.organization_id = ${org}`.execute(database.db);
    await sql`
      insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, kind, from_state, to_state, details)
      select f.organization_id, rampart_uuidv7(), f.id, e.at, 'system', 'state_changed', e.from_state, e.to_state, '{}'
      from findings f
      cross join lateral (
        select least(f.first_seen_at + (1 + f.port % 30) * interval '1 day', ${now} - interval '2 hours') as t
      ) as x
      cross join lateral (values
        (coalesce(f.fixed_at, x.t), 'Open', case when f.state = 'Reopened' then 'Fixed' else f.state end),
        (x.t + interval '1 hour', 'Fixed', 'Reopened')
      ) as e(at, from_state, to_state)
      where f.organization_id = ${org} and f.state <> 'Open' and (e.from_state = 'Open' or f.state = 'Reopened')`.execute(
      database.db,
    );
    await sql`analyze`.execute(database.db);
  });
  const counts = (
    await sql<{ findings: number; events: number }>`
      select (select count(*)::int from findings) as findings, (select count(*)::int from finding_events) as events`.execute(
      database.db,
    )
  ).rows[0]!;
  console.log(
    `seeded in ${(seedMs / 1000).toFixed(1)} s: ${counts.findings.toLocaleString()} findings, ${counts.events.toLocaleString()} events`,
  );

  // Baselines: one pass over the findings, counting the open ones by severity now (all of them,
  // and one tag's).
  const naiveAll = () =>
    sql`select effective_severity, count(*) from findings where organization_id = ${org}
      and state in ('Open', 'Reopened') group by effective_severity`.execute(database.db);
  const naiveTag = () =>
    sql`select f.effective_severity, count(*) from findings f join assets a on a.organization_id = f.organization_id and a.id = f.asset_id
      where f.organization_id = ${org} and f.state in ('Open', 'Reopened') and a.tags @> array['team-3']
      group by f.effective_severity`.execute(database.db);
  const [baselineMs] = await time(naiveAll);
  const [baselineMs2] = await time(naiveAll);
  const baseline = Math.min(baselineMs, baselineMs2);

  if (process.env.BENCH_EXPLAIN) {
    // The plan of the daily job's statement (BENCH_EXPLAIN=1), or of a rebuild's chunk (=31).
    const span = Number(process.env.BENCH_EXPLAIN);
    const last = addDays(localDay(NOW, 'UTC'), -1);
    const query = new HistoryRepository(database.db)
      .daysQuery({
        organizationId: org,
        timeZone: 'UTC',
        from: addDays(last, 1 - span),
        to: last,
        mttrWindowDays: MTTR_WINDOW_DAYS,
        now: NOW,
      })
      .compile(database.db);
    // Explained in a transaction rolled back, after the days it computes are removed, as
    // computeDays does.
    await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`set local jit = off`.execute(trx);
        await sql`set local work_mem = '64MB'`.execute(trx);
        await sql`set local enable_mergejoin = off`.execute(trx);
        await sql`delete from finding_history where organization_id = ${org} and day >= ${addDays(last, 1 - span)}::date`.execute(
          trx,
        );
        const plan = await trx.executeQuery({ ...query, sql: `explain (analyze, buffers) ${query.sql}` });
        for (const row of plan.rows as Record<string, string>[]) console.log(Object.values(row)[0]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    throw new Error('explained only (BENCH_EXPLAIN)');
  }
  // BENCH_SKIP_REBUILD=1 (with BENCH_REUSE) keeps the history an earlier run built.
  const [rebuildMs] = process.env.BENCH_SKIP_REBUILD
    ? [Number.NaN]
    : await time(() => services.history.runSnapshot(org, { rebuild: true }));
  const rows = (
    await sql<{
      n: number;
      scopes: number;
    }>`select count(*)::int as n, count(distinct (scope_kind, scope_key))::int as scopes
      from finding_history where organization_id = ${org}`.execute(database.db)
  ).rows[0]!;
  const daily: number[] = [];
  for (let i = 0; i < 3; i++)
    daily.push((await time(() => services.history.runSnapshot(org, { rebuild: false })))[0]);
  daily.sort((a, b) => a - b);

  const today = localDay(NOW, 'UTC');
  const yearFrom = addDays(today, -365);
  const trendOrg = await repeat(() =>
    services.history.trend(ctx, { kind: 'Organization' }, { from: yearFrom, to: addDays(today, -1) }),
  );
  const trendTag = await repeat(() =>
    services.history.trend(ctx, { kind: 'Tag', tag: 'team-3' }, { from: yearFrom, to: addDays(today, -1) }),
  );
  const baselineTag = await repeat(naiveTag);
  const days = (await services.history.trend(ctx, { kind: 'Organization' }, { from: yearFrom, to: today }))
    .days.length;

  const ms = (v: number) => `${v.toFixed(v < 100 ? 1 : 0)} ms`;
  console.log(
    `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}`,
  );
  console.log(`history rows: ${rows.n.toLocaleString()} (${rows.scopes} scopes × ${days} days)`);
  console.log('| step | time | ratio to baseline | goal |');
  console.log('|---|---|---|---|');
  console.log(`| baseline: one pass over the findings (open by severity) | ${ms(baseline)} | 1 | |`);
  console.log(
    `| rebuild of a year (${days} days, every scope) | ${ms(rebuildMs)} | ${(rebuildMs / baseline).toFixed(1)} × | |`,
  );
  console.log(
    `| daily job (best of 3; the others ${daily.slice(1).map(ms).join(', ')}) | ${ms(daily[0]!)} | ${(daily[0]! / baseline).toFixed(1)} × | ≤ 10 s |`,
  );
  console.log(
    `| a year of trend, organisation (p50 / p99 of ${RUNS}) | ${ms(trendOrg.p50)} / ${ms(trendOrg.p99)} | ${(trendOrg.p50 / baseline).toFixed(3)} × | ≤ 50 ms |`,
  );
  console.log(
    `| a year of trend, one tag (p50 / p99) | ${ms(trendTag.p50)} / ${ms(trendTag.p99)} | ${(trendTag.p50 / baselineTag.p50).toFixed(3)} × the tag's own pass (${ms(baselineTag.p50)}) | ≤ 50 ms |`,
  );
} finally {
  await database.close();
  if (process.env.BENCH_KEEP !== '1' && !reuse)
    await admin.query(`drop database if exists ${name} with (force)`);
  else console.log(`kept database ${name}`);
  await admin.end();
}
