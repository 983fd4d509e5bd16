/**
 * npm run bench:backup — `rampart backup` and `rampart restore` at 100,000 findings on PostgreSQL
 * (DATABASE_URL; fresh databases are created and dropped). Seeds 2,000 assets, 2,000
 * vulnerabilities, 100,000 findings and an event for each, then times dumpDatabase to a file and
 * restoreDatabase from it into an empty database, each in a process of its own whose peak RSS GNU
 * time reports (next to that of a process that only loads the same modules); the baseline, in the
 * same run on the same data: Debian's pg_dump --data-only of the same tables and psql loading that
 * file (possible here only because this server is as old as that pg_dump). BENCH_FINDINGS scales it; BENCH_PGLITE=1 also seeds the same data in a PGlite
 * data directory (the old embedded database) and times exportPgliteDataDir on it; BENCH_FILE=PATH
 * keeps a copy of the backup file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { dumpDatabase, exportPgliteDataDir, restoreDatabase } from '../src/db/backup/index.js';
import { openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { DB } from '../src/db/schema.js';
import { openPgliteDataDir } from '../test/helpers/pglite.js';

// A step run in a process of its own (`--step NAME ARGS…`), so that its peak RSS is its own: it
// prints its milliseconds (and rows) as JSON.
if (process.argv[2] === '--step') {
  const [name, a, b] = process.argv.slice(3) as [string, string, string];
  const start = process.hrtime.bigint();
  let rows = 0;
  if (name === 'dump' || name === 'export') {
    const out = fs.createWriteStream(b);
    const summary =
      name === 'dump'
        ? await dumpDatabase({ connectionString: a }, out)
        : await exportPgliteDataDir(
            a,
            out,
            process.env.BENCH_PAGES ? { pagesPerRange: Number(process.env.BENCH_PAGES) } : {},
          );
    out.end();
    await finished(out);
    rows = summary.tables.reduce((sum, t) => sum + t.rows, 0);
  } else if (name === 'restore') {
    const summary = await restoreDatabase({ connectionString: a }, fs.createReadStream(b));
    rows = summary.tables.reduce((sum, t) => sum + t.rows, 0);
  } else if (name === 'open') {
    // PGlite opened on the data directory as the export opens it, one query, closed: its own cost.
    const db = await PGlite.create(a, {
      startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'],
    });
    await db.query('select count(*) from findings');
    await db.close();
  } else if (name !== 'idle') throw new Error(`unknown step ${name}`);
  console.log(JSON.stringify({ ms: Number(process.hrtime.bigint() - start) / 1e6, rows }));
  process.exit(0);
}

const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const ASSETS = Math.max(1, Math.round(FINDINGS / 50));

if (!process.env.DATABASE_URL) {
  console.error('bench:backup needs DATABASE_URL (a PostgreSQL server where it may create databases)');
  process.exit(1);
}
const adminUrl = process.env.DATABASE_URL;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
const created: string[] = [];
async function newDatabase(): Promise<string> {
  const name = `rampart_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  created.push(name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A step of this file in a process of its own: its milliseconds, rows, and the process's peak RSS (MB). */
function step(name: string, ...args: string[]): { ms: number; rows: number; peakMb: number } {
  const self = fileURLToPath(import.meta.url);
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, ...process.execArgv, self, '--step', name, ...args],
    { encoding: 'utf8', env: process.env },
  );
  if (result.status !== 0) throw new Error(`step ${name} failed: ${result.stderr}`);
  const kb = Number(result.stderr.trim().split('\n').at(-1));
  const { ms, rows } = JSON.parse(result.stdout.trim().split('\n').at(-1) as string) as {
    ms: number;
    rows: number;
  };
  return { ms, rows, peakMb: kb / 1024 };
}

/** A command's wall time (ms) and peak RSS (MB), by GNU time. */
function timed(command: string, args: string[]): { ms: number; peakMb: number } {
  const start = process.hrtime.bigint();
  const result = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const kb = Number(result.stderr.trim().split('\n').at(-1));
  return { ms, peakMb: kb / 1024 };
}

/** The organisation, assets, vulnerabilities, findings and one event a finding, by set-based SQL. */
async function seed(db: Kysely<DB>): Promise<void> {
  const org = 'f0000000-0000-7000-8000-000000000001';
  console.log(
    `bench:backup — seeding ${FINDINGS.toLocaleString()} findings on ${ASSETS.toLocaleString()} assets`,
  );
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Bench', now())`.execute(db);
  await sql`
    insert into assets (organization_id, id, kind, name, ip_addresses, tags, sources, first_seen_at, last_seen_at, criticality, created_at, updated_at)
    select ${org}, rampart_uuidv7(), 'Host', 'host-' || g, array['10.' || (g / 65536) || '.' || ((g / 256) % 256) || '.' || (g % 256)],
      array['lab'], array['Bench'], now() - interval '90 days', now(), 1 + g % 5, now(), now()
    from generate_series(1, ${ASSETS}) g`.execute(db);
  await sql`
    insert into vulnerabilities (organization_id, id, key, source, plugin_id, cve_ids, title, severity, cvss3_score, kev, epss_score, created_at, updated_at)
    select ${org}, rampart_uuidv7(), 'cve:CVE-2024-' || (10000 + g), 'Bench', (100000 + g)::text, array['CVE-2024-' || (10000 + g)],
      'Synthetic vulnerability ' || g || ' in OpenSSH', (array['Critical', 'High', 'Medium', 'Low', 'Info'])[1 + g % 5],
      round((g % 100) / 10.0, 1), g % 50 = 0, (g % 1000) / 1000.0, now(), now()
    from generate_series(1, 2000) g`.execute(db);
  await sql`
    with a as (select id, row_number() over (order by id) - 1 as n from assets),
         v as (select id, title, severity, cvss3_score, row_number() over (order by id) - 1 as n from vulnerabilities)
    insert into findings (organization_id, id, asset_id, vulnerability_id, dedup_key, location_kind, port, protocol, title, severity,
      state, risk_score, due_at, source, evidence, first_seen_at, last_seen_at, created_at, updated_at)
    select ${org}, rampart_uuidv7(), a.id, v.id, md5(g::text), 'Port', 1 + g % 1024, 'tcp', v.title, v.severity,
      (array['Open', 'Open', 'Fixed', 'Reopened'])[1 + g % 4], coalesce(v.cvss3_score * 10, 50), now() + ((g % 365) || ' days')::interval,
      'Bench', repeat('Seen by the bench scanner; ', 1 + g % 8), now() - ((g % 90) || ' days')::interval, now(), now(), now()
    from generate_series(0, ${FINDINGS - 1}) g
    join a on a.n = g % ${ASSETS}
    join v on v.n = (g / ${ASSETS}) % 2000`.execute(db);
  await sql`
    insert into finding_events (organization_id, id, finding_id, occurred_at, actor_type, kind, to_state, details)
    select organization_id, rampart_uuidv7(), id, created_at, 'system', 'created', 'Open', '{"source": "Bench"}'::jsonb
    from findings`.execute(db);
  await sql`analyze`.execute(db);
}

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-backup-'));
try {
  const source = await newDatabase();
  const database = await openPostgres(source, 2);
  await migrateToLatest(database.db);
  await seed(database.db);
  await database.close();
  const { load } = { load: os.loadavg()[0]?.toFixed(1) };
  console.log(`seeded; load average ${load}`);

  // Rampart's backup, then its restore into an empty database.
  const file = path.join(folder, 'rampart.sql');
  const idle = step('idle');
  const keepFile = process.env.BENCH_FILE;
  const dump = step('dump', source, file);
  const rows = dump.rows;
  const target = await newDatabase();
  const restore = step('restore', target, file);
  if (keepFile) fs.copyFileSync(file, keepFile);

  // The baseline: pg_dump --data-only of the same tables, and psql loading it into a database
  // migrated and emptied the same way.
  const baseFile = path.join(folder, 'pg_dump.sql');
  const pgDump = timed('pg_dump', [
    '--data-only',
    '--schema=public',
    '--exclude-table=kysely_migration*',
    '--exclude-table=sql_functions',
    `--file=${baseFile}`,
    `--dbname=${source}`,
  ]);
  // A database migrated, then emptied of the rows migrations seed: where psql loads a data-only file.
  const migratedEmpty = async () => {
    const url = await newDatabase();
    const db = await openPostgres(url, 1);
    const start = process.hrtime.bigint();
    await migrateToLatest(db.db);
    const migrating = { ms: Number(process.hrtime.bigint() - start) / 1e6 };
    await db.close();
    execFileSync('psql', [
      '-Xq',
      url,
      '-c',
      `do $$ begin execute (select 'truncate ' || string_agg('public.' || relname, ', ') from pg_class
         where relnamespace = 'public'::regnamespace and relkind = 'r'
           and relname not in ('kysely_migration', 'kysely_migration_lock', 'sql_functions')); end $$`,
    ]);
    return { url, migrating };
  };
  const { url: baseTarget, migrating: migrate } = await migratedEmpty();
  const psqlLoad = timed('psql', [
    '-Xq',
    '-v',
    'ON_ERROR_STOP=1',
    '--single-transaction',
    '-f',
    baseFile,
    baseTarget,
  ]);
  const { url: ownTarget } = await migratedEmpty();
  const psqlOwn = timed('psql', [
    '-Xq',
    '-v',
    'ON_ERROR_STOP=1',
    '--single-transaction',
    '-f',
    file,
    ownTarget,
  ]);

  const counts = async (url: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const r = await c.query(
      'select (select count(*) from findings)::int f, (select count(*) from finding_events)::int e',
    );
    await c.end();
    return JSON.stringify(r.rows[0]);
  };
  const [a, b, c, d] = [
    await counts(source),
    await counts(target),
    await counts(baseTarget),
    await counts(ownTarget),
  ];
  if (a !== b || a !== c || a !== d)
    throw new Error(`row counts differ: source ${a}, restored ${b}, psql ${c}, psql of Rampart's file ${d}`);

  const mb = (f: string) => (fs.statSync(f).size / 2 ** 20).toFixed(1);
  const s = (ms: number) => (ms / 1000).toFixed(2);
  console.log(`${rows.toLocaleString()} rows in all; counts equal after the three loads (${b})`);
  console.log(`load average at the end ${os.loadavg()[0]?.toFixed(1)}`);
  console.log('| step | time s | ratio to baseline | peak RSS MB of its process | file MB |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| rampart backup (dumpDatabase) | ${s(dump.ms)} | ${(dump.ms / pgDump.ms).toFixed(2)} × pg_dump | ${dump.peakMb.toFixed(0)} (idle process ${idle.peakMb.toFixed(0)}) | ${mb(file)} |`,
  );
  console.log(
    `| baseline: pg_dump --data-only | ${s(pgDump.ms)} | 1 | ${pgDump.peakMb.toFixed(0)} (own process) | ${mb(baseFile)} |`,
  );
  console.log(
    `| rampart restore (restoreDatabase, with migrations) | ${s(restore.ms)} | ${(restore.ms / psqlLoad.ms).toFixed(2)} × psql | ${restore.peakMb.toFixed(0)} (idle ${idle.peakMb.toFixed(0)}) | |`,
  );
  console.log(
    `| rampart restore less migrating an empty database (${s(migrate.ms)} s) | ${s(restore.ms - migrate.ms)} | ${((restore.ms - migrate.ms) / psqlLoad.ms).toFixed(2)} × psql | | |`,
  );
  console.log(
    `| psql -f of rampart backup's file | ${s(psqlOwn.ms)} | ${(psqlOwn.ms / psqlLoad.ms).toFixed(2)} × psql | ${psqlOwn.peakMb.toFixed(0)} (own process) | |`,
  );
  console.log(
    `| baseline: psql -f of pg_dump's file | ${s(psqlLoad.ms)} | 1 | ${psqlLoad.peakMb.toFixed(0)} (own process) | |`,
  );

  // The old embedded database's data directory (PGlite), exported in the same format: opt-in, as
  // PGlite is the embedded database only until the PostgreSQL server replaces it.
  if (process.env.BENCH_PGLITE === '1') {
    const dataDir = path.join(folder, 'pglite');
    // PGlite as the embedded database of an earlier Rampart ran it.
    const embedded = await openPgliteDataDir(dataDir);
    await migrateToLatest(embedded.db);
    await seed(embedded.db);
    await embedded.close();
    const exportFile = path.join(folder, 'pglite.sql');
    const opened = step('open', dataDir);
    const exported = step('export', dataDir, exportFile);
    const fromPglite = await newDatabase();
    await restoreDatabase({ connectionString: fromPglite }, fs.createReadStream(exportFile));
    if ((await counts(fromPglite)) !== a)
      throw new Error(`the PGlite export restored ${await counts(fromPglite)}`);
    console.log(
      `| exportPgliteDataDir (PGlite, same data; restored, counts equal) | ${s(exported.ms)} | ${(exported.ms / pgDump.ms).toFixed(2)} × pg_dump | ${exported.peakMb.toFixed(0)} (idle ${idle.peakMb.toFixed(0)}) | ${mb(exportFile)} |`,
    );
    console.log(
      `| PGlite only opened on that directory, one count, closed | ${s(opened.ms)} | | ${opened.peakMb.toFixed(0)} | |`,
    );
  }
} finally {
  fs.rmSync(folder, { recursive: true, force: true });
  if (!process.env.BENCH_KEEP)
    for (const name of created) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
