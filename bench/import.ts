/**
 * npm run bench:import — generates a synthetic Nessus report of 100,000 findings over 2,000 hosts
 * and a Trivy JSON report of 100,000 vulnerabilities, then for each: imports it, re-imports it
 * unchanged, and re-imports a variant where 10 % of the findings are gone and 5 % are new. Prints
 * findings/s, wall time and the process's peak RSS for each step, on the embedded database and,
 * when DATABASE_URL is set, on PostgreSQL (a fresh database, dropped afterwards).
 * BENCH_IMPORT_FINDINGS and BENCH_IMPORT_HOSTS scale it; BENCH_IMPORT_FORMATS=trivy runs one format;
 * BENCH_IMPORT_DATABASES=postgresql runs one database.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import pg from 'pg';
import { type Database, openEmbedded, openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { handlerOf } from '../src/jobs/catalogue.js';
import { JobRunner } from '../src/jobs/runner.js';
import { LocalInvalidationBus } from '../src/lib/invalidation-bus.js';
import { IMPORT_JOB } from '../src/modules/imports/service.js';
import { importDirectory, spoolReport } from '../src/modules/imports/upload.js';
import { missingNodeEnv, missingNodeFlags } from '../src/node-flags.js';
import { buildServices } from '../src/services.js';
import { nessusReport, trivyReport, writeLines } from './synthetic-reports.js';

const FINDINGS = Number(process.env.BENCH_IMPORT_FINDINGS ?? 100_000);
const HOSTS = Number(process.env.BENCH_IMPORT_HOSTS ?? 2_000);
const SIZE = { findings: FINDINGS, hosts: HOSTS };
// The parent generates the reports once, then measures each database in a child process of its
// own, so that one database's memory does not count against the other.
const CHILD_DB = process.env.BENCH_IMPORT_DB as 'embedded' | 'postgresql' | undefined;
// Measured with the V8 flags and allocator settings `rampart` runs with (src/node-flags.ts),
// which only a new process takes: the measuring process starts again with them.
// BENCH_IMPORT_NODE_FLAGS=0 measures Node's and glibc's defaults instead.
const defaults = process.env.BENCH_IMPORT_NODE_FLAGS === '0';
const missingFlags = defaults ? [] : missingNodeFlags(process.execArgv, process.env.NODE_OPTIONS);
const missingEnv = defaults ? {} : missingNodeEnv(process.env);
if (CHILD_DB && (missingFlags.length > 0 || Object.keys(missingEnv).length > 0))
  process.execve?.(
    process.execPath,
    [process.execPath, ...missingFlags, ...process.execArgv, ...process.argv.slice(1)],
    { ...process.env, ...missingEnv },
  );
const dir = process.env.BENCH_IMPORT_DIR ?? mkdtempSync(join(tmpdir(), 'rampart-bench-import-'));
// Passable by others: as root, the embedded server in a folder below runs as its own account.
chmodSync(dir, 0o755);

const wanted = (format: string) =>
  !process.env.BENCH_IMPORT_FORMATS || process.env.BENCH_IMPORT_FORMATS.split(',').includes(format);

// BENCH_IMPORT_DATABASES=postgresql (or embedded, or both, comma-separated) runs only those;
// unset, the embedded database runs, then PostgreSQL when DATABASE_URL is set.
const databases = process.env.BENCH_IMPORT_DATABASES?.split(',').map((d) => d.trim());
for (const d of databases ?? [])
  if (d !== 'embedded' && d !== 'postgresql')
    throw new Error(`BENCH_IMPORT_DATABASES: unknown database "${d}" (embedded, postgresql)`);
const wantedDatabase = (db: 'embedded' | 'postgresql') =>
  databases ? databases.includes(db) : db === 'embedded' || Boolean(process.env.DATABASE_URL);

interface Peak {
  rss: number;
  /** The main thread's V8 heap, and memory outside it (Buffers, ArrayBuffers), at the peak. */
  heapUsed: number;
  external: number;
}

/** Samples the process every 50 ms; BENCH_IMPORT_TRACE=1 also prints each sample to stderr. */
function peakRss(database: Database) {
  const trace = process.env.BENCH_IMPORT_TRACE === '1';
  const started = performance.now();
  let worker = '';
  let asked = 0;
  // BENCH_IMPORT_GC=1 (with node --expose-gc): a full collection before each traced sample, so
  // that the trace shows what is live rather than what awaits collection.
  const collect = trace && process.env.BENCH_IMPORT_GC === '1' ? global.gc : undefined;
  const sample = (): Peak => {
    collect?.();
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    if (trace) {
      // The embedded server's processes, read from /proc once a second (a walk of every process).
      if (database.serverMemory && performance.now() - asked > 1000) {
        asked = performance.now();
        const m = database.serverMemory();
        worker = ` | server ${m.processes} processes, PSS ${mb(m.pss)} RSS ${mb(m.rss)}`;
      }
      // What each of V8's spaces holds (used/committed MB): new space is committed whole.
      const spaces = v8
        .getHeapSpaceStatistics()
        .filter((s) => s.space_size > 1024 ** 2)
        .map((s) => `${s.space_name.replace('_space', '')} ${mb(s.space_used_size)}/${mb(s.space_size)}`)
        .join(' ');
      console.error(
        `  ${((performance.now() - started) / 1000).toFixed(1)} s rss ${mb(rss)} heap ${mb(heapUsed)}/${mb(heapTotal)} external ${mb(external)} [${spaces}]${worker}`,
      );
    }
    return { rss, heapUsed, external };
  };
  let peak = sample();
  const timer = setInterval(() => {
    const now = sample();
    if (now.rss > peak.rss) peak = now;
  }, 50);
  return (): Peak => {
    clearInterval(timer);
    const now = sample();
    return now.rss > peak.rss ? now : peak;
  };
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function runOn(label: string, database: Database) {
  await migrateToLatest(database.db);
  const services = buildServices(database, () => new Date(), new LocalInvalidationBus(), {
    authCacheSeconds: 0,
    sessionIdleMinutes: 30,
    sessionMaxHours: 12,
  });
  // Imports run as jobs: this process runs the import worker, as `rampart import` does.
  const runner = new JobRunner(services.jobs, services.scheduler, {
    worker: { concurrency: 1, onError: (error) => console.error(error) },
  }).register(IMPORT_JOB, handlerOf(IMPORT_JOB, services));
  await runner.start({ schedules: false });
  try {
    return await steps(label, database, services);
  } finally {
    await runner.stop();
  }
}

async function steps(label: string, database: Database, services: ReturnType<typeof buildServices>) {
  const { organization } = await services.organizations.ensureFirst();
  const ctx = { organizationId: organization.id, actor: { type: 'system' as const, id: null } };
  const rows: string[] = [];
  for (const [format, base, variant] of [
    ['nessus', 'bench.nessus', 'bench-variant.nessus'],
    ['trivy', 'bench-trivy.json', 'bench-trivy-variant.json'],
  ] as const) {
    if (!wanted(format)) continue;
    for (const [step, file] of [
      ['first import', base],
      ['unchanged re-import', base],
      ['10 % fixed, 5 % new', variant],
    ] as const) {
      global.gc?.();
      const before = process.memoryUsage.rss();
      const stop = peakRss(database);
      const started = performance.now();
      const report = await spoolReport(createReadStream(join(dir, file)), importDirectory(), 4 * 1024 ** 3);
      const submitted = await services.imports.submit(ctx, { report, fileName: file, format });
      await services.imports.settled(submitted.id);
      const seconds = (performance.now() - started) / 1000;
      const peak = stop();
      // The embedded server's memory beside ours (its processes' proportional set size).
      const wasm = database.serverMemory ? `${mb(database.serverMemory().pss)} MB` : '-';
      const done = await services.imports.get(ctx, submitted.id);
      if (done.state !== 'Completed') throw new Error(`${format} ${step} failed: ${done.error}`);
      const c = done.counts;
      rows.push(
        `| ${label} | ${format} | ${step} | ${c.Findings?.toLocaleString()} | ${seconds.toFixed(1)} s | ${Math.round((c.Findings ?? 0) / seconds).toLocaleString()} | ${(c.ParseMs ?? 0) / 1000} s / ${(c.MergeMs ?? 0) / 1000} s | ${mb(peak.rss)} MB (${mb(before)} MB before) | new ${c.New}, fixed ${c.Fixed}, reopened ${c.Reopened}, unchanged ${c.Unchanged} | ${mb(peak.heapUsed)} / ${mb(peak.external)} MB | ${wasm} |`,
      );
      console.log(rows.at(-1));
    }
  }
  return rows;
}

async function measure(db: 'embedded' | 'postgresql'): Promise<string[]> {
  if (db === 'embedded') {
    const embedded = await openEmbedded(join(dir, 'embedded'), 'bench');
    try {
      return await runOn('embedded', embedded);
    } finally {
      await embedded.close();
    }
  }
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `rampart_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.pathname = `/${name}`;
  const postgres = await openPostgres(url.toString(), 4);
  try {
    return await runOn('postgresql', postgres);
  } finally {
    await postgres.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

function inChild(db: 'embedded' | 'postgresql'): Promise<string[]> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!], {
    env: { ...process.env, BENCH_IMPORT_DB: db, BENCH_IMPORT_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    process.stdout.write(d);
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve(out.split('\n').filter((l) => l.startsWith(`| ${db} `)))
        : reject(new Error(`${db} run failed (${code})`)),
    ),
  );
}

if (CHILD_DB) {
  await measure(CHILD_DB);
} else {
  try {
    console.log(
      `bench:import — generating reports: ${FINDINGS.toLocaleString()} findings over ${HOSTS.toLocaleString()} hosts`,
    );
    if (wanted('nessus')) {
      await writeLines(join(dir, 'bench.nessus'), nessusReport(SIZE, false));
      await writeLines(join(dir, 'bench-variant.nessus'), nessusReport(SIZE, true));
    }
    if (wanted('trivy')) {
      await writeLines(join(dir, 'bench-trivy.json'), trivyReport(SIZE, false));
      await writeLines(join(dir, 'bench-trivy-variant.json'), trivyReport(SIZE, true));
    }
    const rows: string[] = [];
    if (wantedDatabase('embedded')) rows.push(...(await inChild('embedded')));
    if (wantedDatabase('postgresql')) {
      if (!process.env.DATABASE_URL)
        throw new Error('BENCH_IMPORT_DATABASES names postgresql: set DATABASE_URL');
      rows.push(...(await inChild('postgresql')));
    }
    console.log(
      '\n| database | format | step | findings | wall time | findings/s | parse / merge | peak RSS of the process | result | heap / external at the peak | embedded server PSS after |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
