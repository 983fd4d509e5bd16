/**
 * npm run bench:busy — is Rampart still responsive while it works hard? Starts Rampart in a child
 * process (bench/busy-server.ts: as `rampart serve` builds it, request log on, its own scan node)
 * and, from this process, drives a steady open-loop load on two routes with an API key: the
 * authentication check (BENCH_BUSY_AUTH_RATE, default 50/s) and the first page of the findings list
 * (BENCH_BUSY_LIST_RATE, default 10/s). Each request's latency counts from when it was due, so a
 * stalled server is not hidden by requests that were never sent. Through three phases:
 *   1. the first import of a 100,000-finding Nessus report (uploaded through POST /imports);
 *   2. idle, with those findings stored (BENCH_BUSY_IDLE seconds, default 10): the baseline;
 *   3. a re-import of a variant (10 % fixed, 5 % new) and, at the same time, the default system
 *      scan [S1] of a lab of four hosts (sshd, two nginx, Redis in network namespaces; skipped
 *      when the lab cannot be built here, or with BENCH_BUSY_SCAN=0).
 * For each phase it prints p50/p99/max of both routes and the server's event-loop delay
 * (perf_hooks.monitorEventLoopDelay). On the embedded database, and on PostgreSQL too when
 * DATABASE_URL is set (a fresh database, dropped afterwards). BENCH_IMPORT_FINDINGS and
 * BENCH_IMPORT_HOSTS scale the reports; BENCH_BUSY_DB=embedded|postgresql runs one database.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import pg from 'pg';
import { createLab, type Lab, type LabHostSpec, labAvailable } from '../test/lab/lab.js';
import { positiveKnob } from './knobs.js';
import { nessusReport, writeLines } from './synthetic-reports.js';

const FINDINGS = positiveKnob('BENCH_IMPORT_FINDINGS', 100_000);
const HOSTS = positiveKnob('BENCH_IMPORT_HOSTS', 2_000);
const AUTH_RATE = positiveKnob('BENCH_BUSY_AUTH_RATE', 50);
const LIST_RATE = positiveKnob('BENCH_BUSY_LIST_RATE', 10);
const IDLE_SECONDS = positiveKnob('BENCH_BUSY_IDLE', 10);
const WITH_SCAN = process.env.BENCH_BUSY_SCAN !== '0';
/** BENCH_BUSY_DB=embedded or postgresql: one database only. */
const ONLY = process.env.BENCH_BUSY_DB;
if (ONLY !== undefined && ONLY !== 'embedded' && ONLY !== 'postgresql')
  throw new Error(`BENCH_BUSY_DB must be embedded or postgresql, not '${ONLY}'`);
const IMPORT_LIMIT_MS = 600_000;
const REQUEST_TIMEOUT_MS = 60_000;
const GOAL_P99_MS = 50;
const GOAL_DELAY_P99_MS = 20;

interface Target {
  url: string;
  accessKey: string;
  secretKey: string;
}

interface Delay {
  p50: number;
  p99: number;
  max: number;
}

/** Connections of the import upload and its polling (each route's load has its own). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
/**
 * Per route: as many connections as requests outstanding, up to this many, so that one route's
 * slow answers do not hold up the other's requests in this process (they are separate clients).
 */
const ROUTE_SOCKETS = 512;

function request(
  target: Target,
  agentOf: http.Agent,
  method: string,
  path: string,
  body?: NodeJS.ReadableStream,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${target.url}${path}`,
      {
        method,
        agent: agentOf,
        timeout: REQUEST_TIMEOUT_MS,
        headers: {
          ApiAccessKey: target.accessKey,
          ApiSecretKey: target.secretKey,
          ...(body ? { 'content-type': 'application/octet-stream' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

/**
 * Sends `rate` requests a second to one route, each due at its own time (open loop), and records
 * latency from when it was due into the current phase's histogram.
 */
class SteadyLoad {
  private histogram: RecordableHistogram = createHistogram();
  private errors = 0;
  private timer: NodeJS.Timeout | undefined;
  private sent = 0;
  private started = 0;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: ROUTE_SOCKETS });
  /** Due times of the requests sent and not yet answered. */
  private readonly inFlight = new Set<number>();

  constructor(
    private readonly target: Target,
    private readonly path: string,
    private readonly rate: number,
  ) {}

  start(): void {
    this.started = performance.now();
    // A 5 ms tick sends whatever fell due since the last one.
    this.timer = setInterval(() => {
      // Request k is due at k / rate seconds: those with k <= elapsed × rate are due now.
      const due = Math.floor(((performance.now() - this.started) * this.rate) / 1000) + 1;
      while (this.sent < due) this.send(this.started + (this.sent++ * 1000) / this.rate);
    }, 5);
  }

  private send(dueAt: number): void {
    const histogram = this.histogram;
    this.inFlight.add(dueAt);
    request(this.target, this.agent, 'GET', this.path)
      .finally(() => this.inFlight.delete(dueAt))
      .then(
        ({ status }) => {
          if (status !== 200) this.errors++;
          else histogram.record(Math.max(1, Math.round((performance.now() - dueAt) * 1000)));
        },
        () => this.errors++,
      );
  }

  /** The phase's figures (ms); the next phase starts empty. */
  take() {
    const h = this.histogram;
    const now = performance.now();
    let oldest = now;
    for (const due of this.inFlight) oldest = Math.min(oldest, due);
    const result = {
      waiting: this.inFlight.size,
      oldestWaiting: now - oldest,
      count: h.count,
      p50: h.count ? h.percentile(50) / 1000 : 0,
      p99: h.count ? h.percentile(99) / 1000 : 0,
      max: h.count ? h.max / 1000 : 0,
      errors: this.errors,
    };
    this.histogram = createHistogram();
    this.errors = 0;
    return result;
  }

  stop(): void {
    clearInterval(this.timer);
    this.agent.destroy();
  }
}

function ask<T>(child: ChildProcess, message: object, answer: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type?: string }) => {
      if (m?.type !== answer) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
    child.send(message);
  });
}

async function importReport(target: Target, file: string): Promise<{ ms: number; counts: unknown }> {
  const started = performance.now();
  const submitted = await request(target, agent, 'POST', '/api/latest/imports', createReadStream(file));
  if (submitted.status !== 202)
    throw new Error(`POST /imports answered ${submitted.status}: ${submitted.text}`);
  const { Id } = JSON.parse(submitted.text) as { Id: string };
  while (performance.now() - started < IMPORT_LIMIT_MS) {
    const { status, text } = await request(target, agent, 'GET', `/api/latest/imports/${Id}`);
    if (status !== 200) throw new Error(`GET /imports/${Id} answered ${status}`);
    const row = JSON.parse(text) as { State: string; Counts: unknown; Error: unknown };
    if (row.State === 'Failed') throw new Error(`the import failed: ${JSON.stringify(row.Error)}`);
    if (row.State === 'Completed') return { ms: performance.now() - started, counts: row.Counts };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the import did not end in ${IMPORT_LIMIT_MS / 1000} s`);
}

const LAB: LabHostSpec[] = [
  { name: 'ssh', index: 10, daemons: ['sshd'] },
  { name: 'legacy', index: 20, daemons: ['nginx-legacy-tls'] },
  { name: 'soft', index: 21, daemons: ['nginx-soft404'] },
  { name: 'redis', index: 22, daemons: ['redis'] },
];

const waiting = (r: { waiting: number; oldestWaiting: number }) =>
  r.waiting ? `; ${r.waiting} unanswered, for up to ${(r.oldestWaiting / 1000).toFixed(1)} s` : '';
const f = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0));
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function runOn(
  kind: 'embedded' | 'postgresql',
  url: string | undefined,
  files: string[],
  lab: Lab | null,
) {
  const child = fork(new URL('./busy-server.ts', import.meta.url), [kind, url ?? ''], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, RAMPART_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Target>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Target));
    child.once('exit', (code) => reject(new Error(`busy-server exited with ${code}`)));
  });
  const target = { url: ready.url, accessKey: ready.accessKey, secretKey: ready.secretKey };
  const auth = new SteadyLoad(target, '/api/integration/authenticationcheck', AUTH_RATE);
  const list = new SteadyLoad(target, '/api/latest/findings?PageSize=100', LIST_RATE);
  const rows: string[] = [];
  const phase = async (name: string, work: () => Promise<string>) => {
    auth.take();
    list.take();
    await ask<Delay>(child, { type: 'phase' }, 'delay');
    const started = performance.now();
    const what = await work();
    const took = performance.now() - started;
    const delay = await ask<Delay>(child, { type: 'phase' }, 'delay');
    const a = auth.take();
    const l = list.take();
    // Requests still unanswered count too: a stalled route has no answers to take a p99 of.
    const met =
      a.count > 0 &&
      l.count > 0 &&
      a.oldestWaiting <= GOAL_P99_MS &&
      l.oldestWaiting <= GOAL_P99_MS &&
      a.p99 <= GOAL_P99_MS &&
      l.p99 <= GOAL_P99_MS &&
      delay.p99 <= GOAL_DELAY_P99_MS &&
      !a.errors &&
      !l.errors;
    const row =
      `| ${kind} | ${name} | ${s(took)} | ${f(a.p50)} / ${f(a.p99)} / ${f(a.max)} (${a.count}${a.errors ? `, ${a.errors} failed` : ''}${waiting(a)}) ` +
      `| ${f(l.p50)} / ${f(l.p99)} / ${f(l.max)} (${l.count}${l.errors ? `, ${l.errors} failed` : ''}${waiting(l)}) ` +
      `| ${f(delay.p50)} / ${f(delay.p99)} / ${f(delay.max)} | ${met ? 'met' : 'not met'} |`;
    console.log(row);
    if (what) console.log(`    ${what}`);
    rows.push(row);
  };
  try {
    auth.start();
    list.start();
    await new Promise((resolve) => setTimeout(resolve, 2000)); // warm-up: JIT, the key's cache
    await phase('first import', async () => {
      const r = await importReport(target, files[0]!);
      return `import ${s(r.ms)}: ${JSON.stringify(r.counts)}`;
    });
    await phase('idle', () => new Promise((resolve) => setTimeout(() => resolve(''), IDLE_SECONDS * 1000)));
    await phase(lab ? 're-import + system scan' : 're-import', async () => {
      const [imported, scanned] = await Promise.all([
        importReport(target, files[1]!),
        lab
          ? ask<{ ms: number; state: string; hosts: number; counts: unknown; error?: string }>(
              child,
              { type: 'scan', subnet: lab.subnet, addresses: [...lab.hosts.values()].map((h) => h.address) },
              'scanned',
            )
          : null,
      ]);
      if (scanned && scanned.state !== 'Completed')
        throw new Error(`the system scan ended ${scanned.state}: ${scanned.error ?? ''}`);
      return (
        `import ${s(imported.ms)}: ${JSON.stringify(imported.counts)}` +
        (scanned
          ? `; system scan ${s(scanned.ms)}, ${scanned.hosts} hosts: ${JSON.stringify(scanned.counts)}`
          : '')
      );
    });
  } finally {
    auth.stop();
    list.stop();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send('stop');
    await exited;
  }
  return rows;
}

async function withPostgres<T>(work: (url: string) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `rampart_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-busy-'));
let lab: Lab | null = null;
try {
  const size = { findings: FINDINGS, hosts: HOSTS };
  const files = [join(dir, 'bench.nessus'), join(dir, 'bench-variant.nessus')];
  await writeLines(files[0]!, nessusReport(size, false));
  await writeLines(files[1]!, nessusReport(size, true));
  if (WITH_SCAN && labAvailable()) {
    lab = await createLab(LAB);
    // Every address the scan is given must leave through the lab's bridge, nowhere else.
    lab.assertRoutedIntoLab();
  } else {
    console.log(WITH_SCAN ? 'The lab cannot be built here (root, ip, nft, daemons): no system scan.' : '');
  }
  console.log(
    `bench:busy — ${FINDINGS.toLocaleString()} findings over ${HOSTS.toLocaleString()} hosts ` +
      `(${(statSync(files[0]!).size / 1e6).toFixed(0)} MB); load: authentication check ${AUTH_RATE}/s, ` +
      `findings list ${LIST_RATE}/s; goal p99 ≤ ${GOAL_P99_MS} ms on both, event-loop delay p99 ≤ ${GOAL_DELAY_P99_MS} ms\n`,
  );
  console.log(
    '| database | phase | took | authenticationcheck p50 / p99 / max ms (answers) | findings list p50 / p99 / max ms (answers) | event-loop delay p50 / p99 / max ms | goal |',
  );
  console.log('|---|---|---|---|---|---|---|');
  if (ONLY !== 'postgresql') await runOn('embedded', undefined, files, lab);
  if (process.env.DATABASE_URL && ONLY !== 'embedded')
    await withPostgres((url) => runOn('postgresql', url, files, lab));
} finally {
  lab?.teardown();
  rmSync(dir, { recursive: true, force: true });
  agent.destroy();
}
