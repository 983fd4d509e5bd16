/**
 * npm run bench:findings — seeds 1,000,000 findings on 20,000 assets in PostgreSQL (DATABASE_URL;
 * a fresh database is created and dropped), then measures p50/p99 of five typical list queries
 * on the first page and at keyset page 1,000 (100 rows a page), the count those pages show, and
 * the CSV export of all findings. BENCH_FINDINGS / BENCH_ASSETS scale it down; BENCH_KEEP=1 keeps
 * the database for a closer look.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { sendCsv } from '../src/http/csv.js';
import { decodeCursor, encodeCursor } from '../src/lib/cursor.js';
import { LocalInvalidationBus } from '../src/lib/invalidation-bus.js';
import { FINDING_CSV } from '../src/modules/findings/presenters.js';
import type { FindingFilter, FindingSort } from '../src/modules/findings/repository.js';
import { FindingRepository, TOTAL_COUNT_CAP } from '../src/modules/findings/repository.js';
import { buildServices } from '../src/services.js';

const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 1_000_000);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 20_000);
const PAGE = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

if (!process.env.DATABASE_URL) {
  console.error('bench:findings needs DATABASE_URL (a PostgreSQL server where it may create a database)');
  process.exit(1);
}

const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
await admin.connect();
const name = `rampart_bench_${randomBytes(4).toString('hex')}`;
await admin.query(`create database ${name}`);
const url = new URL(process.env.DATABASE_URL);
url.pathname = `/${name}`;
const database = await openPostgres(url.toString(), 4);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const result = await fn();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
}

try {
  await migrateToLatest(database.db);
  const services = buildServices(database, () => new Date(), new LocalInvalidationBus(), {
    authCacheSeconds: 0,
    sessionIdleMinutes: 30,
    sessionMaxHours: 12,
  });
  const { organization } = await services.organizations.ensureFirst();
  const org = organization.id;
  const ctx = { organizationId: org, actor: { type: 'system' as const, id: null } };

  console.log(
    `bench:findings — seeding ${FINDINGS.toLocaleString()} findings on ${ASSETS.toLocaleString()} assets`,
  );
  const [seedMs] = await time(async () => {
    await sql`
      insert into assets (organization_id, id, kind, name, ip_addresses, tags, sources, first_seen_at, last_seen_at, criticality, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'Host', 'host-' || g, array['10.' || (g / 65536) || '.' || ((g / 256) % 256) || '.' || (g % 256)],
        case when g % 10 = 0 then array['prod'] else array['lab'] end, array['Bench'], now() - interval '90 days', now(), 1 + g % 5,
        now(), now()
      from generate_series(1, ${ASSETS}) g`.execute(database.db);
    await sql`
      insert into vulnerabilities (organization_id, id, key, source, plugin_id, cve_ids, title, severity, cvss3_score, kev, epss_score, created_at, updated_at)
      select ${org}, rampart_uuidv7(), 'cve:CVE-2024-' || (10000 + g), 'Bench', (100000 + g)::text, array['CVE-2024-' || (10000 + g)],
        'Synthetic vulnerability ' || g || (array[' in OpenSSH', ' in Apache httpd', ' in nginx', ' in OpenSSL', ' in Exim'])[1 + g % 5],
        (array['Critical', 'High', 'Medium', 'Low', 'Info'])[1 + g % 5], round((g % 100) / 10.0, 1), g % 50 = 0, (g % 1000) / 1000.0,
        now(), now()
      from generate_series(1, 2000) g`.execute(database.db);
    await sql`
      with a as (select id, row_number() over (order by id) - 1 as n from assets where organization_id = ${org}),
           v as (select id, title, severity, cvss3_score, row_number() over (order by id) - 1 as n from vulnerabilities where organization_id = ${org})
      insert into findings (organization_id, id, asset_id, vulnerability_id, dedup_key, location_kind, port, protocol, title, severity,
        state, risk_score, due_at, source, first_seen_at, last_seen_at, created_at, updated_at)
      select ${org}, rampart_uuidv7(), a.id, v.id, md5(g::text), 'Port', 1 + g % 1024, 'tcp', v.title, v.severity,
        (array['Open', 'Open', 'Open', 'Fixed', 'Reopened', 'RiskAccepted', 'FalsePositive', 'Open'])[1 + g % 8],
        coalesce(v.cvss3_score * 10, 50), now() + ((g % 365) || ' days')::interval, 'Bench',
        now() - ((g % 90) || ' days')::interval, now() - ((g % 30) || ' days')::interval, now(), now()
      from generate_series(0, ${FINDINGS - 1}) g
      join a on a.n = g % ${ASSETS}
      join v on v.n = (g / ${ASSETS}) % 2000`.execute(database.db);
    await sql`analyze`.execute(database.db);
  });
  console.log(`seeded in ${(seedMs / 1000).toFixed(1)} s`);

  const someAsset = (
    await sql<{
      id: string;
    }>`select id from assets where organization_id = ${org} order by id offset ${Math.floor(ASSETS / 2)} limit 1`.execute(
      database.db,
    )
  ).rows[0]!.id;
  const usedCve = (
    await sql<{ cve: string }>`select v.cve_ids[1] as cve from vulnerabilities v
      where v.organization_id = ${org} and exists (select 1 from findings f where f.organization_id = ${org} and f.vulnerability_id = v.id)
      order by v.id limit 1`.execute(database.db)
  ).rows[0]!.cve;
  const queries: { name: string; filter: FindingFilter; sort: FindingSort }[] = [
    {
      name: 'open Critical+High, by risk',
      filter: { states: ['Open', 'Reopened'], severities: ['Critical', 'High'] },
      sort: '-Risk',
    },
    { name: 'one asset', filter: { assetId: someAsset }, sort: '-Risk' },
    { name: 'one CVE', filter: { cve: usedCve }, sort: '-Risk' },
    { name: 'free text "openssl"', filter: { search: 'openssl' }, sort: '-Risk' },
    { name: 'all, sorted by risk', filter: {}, sort: '-Risk' },
  ];

  const rows: string[] = [];
  for (const q of queries) {
    // As the service does before it queries: CVE and asset-name lookups resolved to ids.
    q.filter = await services.findings.resolveFilter(ctx, q.filter);
    // The cursor of page 1,000: walk the keyset with large pages (items only) to the 99,900th row.
    const repo = new FindingRepository(database.db);
    let deepCursor: string | undefined;
    {
      let after: { value: string; id: string } | undefined;
      let seen = 0;
      while (seen < PAGE * 999) {
        const size = Math.min(5000, PAGE * 999 - seen);
        const page = await repo.listPage(org, q.filter, q.sort, size, after);
        seen += page.length;
        const last = page.at(-1);
        if (page.length < size || !last) break;
        after = { value: last.sortValue, id: last.id };
      }
      deepCursor =
        seen === PAGE * 999 && after
          ? encodeCursor({ Sort: q.sort, Value: after.value, Id: after.id })
          : undefined;
    }
    // A page as the API serves it, then the exact count that IncludeTotal=true adds.
    const measure = async (cursor: string | undefined) => {
      const items: number[] = [];
      const totals: number[] = [];
      const after = cursor
        ? (decodeCursor(cursor, ['Value', 'Id']) as { Value: string; Id: string })
        : undefined;
      for (let i = 0; i < RUNS; i++) {
        // As the API answers by default: the page and the count capped at TOTAL_COUNT_CAP.
        const [ms] = await time(() =>
          Promise.all([
            repo.listPage(
              org,
              q.filter,
              q.sort,
              PAGE,
              after ? { value: after.Value, id: after.Id } : undefined,
            ),
            repo.countUpTo(org, q.filter, TOTAL_COUNT_CAP),
          ]),
        );
        items.push(ms);
        const [countMs] = await time(() => repo.count(org, q.filter));
        totals.push(countMs);
      }
      items.sort((a, b) => a - b);
      totals.sort((a, b) => a - b);
      return { items, totals };
    };
    const first = await measure(undefined);
    const deep = deepCursor ? await measure(deepCursor) : undefined;
    const total = await repo.count(org, q.filter);
    const pct = (xs: number[]) => `${percentile(xs, 50).toFixed(1)} / ${percentile(xs, 99).toFixed(1)}`;
    rows.push(
      `| ${q.name} | ${total.toLocaleString()} | ${pct(first.items)} | ${deep ? pct(deep.items) : 'fewer than 1,000 pages'} | ${pct(first.totals)} |`,
    );
  }

  const [exportMs, exported] = await time(async () => {
    let count = 0;
    const sink = new Writable({
      write(chunk, _e, done) {
        count += String(chunk).split('\n').length - 1;
        done();
      },
    });
    const stream = services.findings.stream(ctx, {}, '-Risk');
    const fakeReply = {
      header() {
        return this;
      },
      send(body: NodeJS.ReadableStream) {
        return body;
      },
    };
    const body = sendCsv(
      { log: console } as never,
      fakeReply as never,
      'x.csv',
      FINDING_CSV,
      stream,
    ) as unknown as NodeJS.ReadableStream;
    await pipeline(body, sink);
    return count - 1;
  });

  console.log(
    `\n| query | matching | first page p50 / p99 ms | page 1,000 p50 / p99 ms | exact TotalCount (IncludeTotal=true) p50 / p99 ms |`,
  );
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(
    `\nCSV export: ${exported.toLocaleString()} rows in ${(exportMs / 1000).toFixed(1)} s = ${Math.round(exported / (exportMs / 1000)).toLocaleString()} rows/s`,
  );
  console.log(`(pages of ${PAGE}; p50 / p99 over ${RUNS} runs each)`);
} finally {
  await database.close();
  if (process.env.BENCH_KEEP) console.log(`kept database ${name} (BENCH_KEEP)`);
  else await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
