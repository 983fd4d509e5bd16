/**
 * npm run bench:auth — autocannon against GET /api/integration/authenticationcheck with a valid
 * key, and against a bare Fastify route answering the same text, in the same run. Prints req/s and
 * p99 for both and the ratio. Runs on PGlite, and on PostgreSQL too when DATABASE_URL is set.
 * Servers run in child processes so that the load generator does not share their event loop.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Target {
  url: string;
  accessKey: string;
  secretKey: string;
}

async function start(
  script: string,
  args: string[],
  logLevel: string,
): Promise<{ child: ChildProcess; target: Target }> {
  const child = fork(new URL(script, import.meta.url), args, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, RAMPART_LOG_LEVEL: logLevel },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const target = await new Promise<Target>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Target));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, target };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.send('stop');
  await exited;
}

async function load(target: Target, duration: number) {
  const result = await autocannon({
    url: `${target.url}/api/integration/authenticationcheck`,
    connections: CONNECTIONS,
    duration,
    headers: target.accessKey ? { ApiAccessKey: target.accessKey, ApiSecretKey: target.secretKey } : {},
  });
  const ok = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99, ok };
}

async function measure(script: string, args: string[], logLevel = 'info') {
  const { child, target } = await start(script, args, logLevel);
  try {
    await load(target, 2); // warm-up: JIT, caches
    return await load(target, DURATION);
  } finally {
    await stop(child);
  }
}

async function withPostgresDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `rampart_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  try {
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    return await fn(u.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const rows: string[] = [];
const kinds = process.env.DATABASE_URL ? ['embedded', 'postgresql'] : ['embedded'];
console.log(
  `bench:auth — ${os.cpus().length} cores, Node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per run`,
);
for (const kind of kinds) {
  const baseline = await measure('./bare-server.ts', []);
  // Rampart as shipped (one JSON log line per request), and with request logging off.
  for (const logLevel of ['info', 'warn']) {
    const rampart =
      kind === 'postgresql'
        ? await withPostgresDatabase((url) => measure('./auth-server.ts', [kind, url], logLevel))
        : await measure('./auth-server.ts', [kind], logLevel);
    const ratio = rampart.rps / baseline.rps;
    rows.push(
      `| ${kind} | ${logLevel} | ${rampart.rps.toFixed(0)} | ${rampart.p99} ms | ${baseline.rps.toFixed(0)} | ${baseline.p99} ms | ${ratio.toFixed(2)} |`,
    );
  }
}
console.log(
  '\n| database | RAMPART_LOG_LEVEL | authenticationcheck req/s | p99 | bare Fastify req/s | p99 | ratio |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
