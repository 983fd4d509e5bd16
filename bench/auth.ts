/**
 * npm run bench:auth — autocannon against GET /api/integration/authenticationcheck with a valid
 * key, and against a bare Fastify route answering the same text, in the same run. Prints req/s and
 * p99 for both and the ratio. Runs on PGlite (unless BENCH_AUTH_EMBEDDED=off), and on PostgreSQL
 * when DATABASE_URL is set.
 * Servers run in child processes so that the load generator does not share their event loop.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { authBenchKinds, createPostgresDatabase } from './auth-database.js';
import { positiveKnob } from './knobs.js';

const DURATION = positiveKnob('BENCH_DURATION', 10);
const CONNECTIONS = positiveKnob('BENCH_CONNECTIONS', 50);
const ROUNDS = positiveKnob('BENCH_ROUNDS', 3);

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

/** CPU seconds (user + system) the process has used, from /proc; undefined where there is none. */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime: clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

/**
 * One load of `duration` seconds: req/s, p99, and the CPU each request cost the server process
 * and this process (autocannon, the load generator, which shares the machine's cores with it).
 */
async function load(target: Target, duration: number, pid?: number) {
  const serverBefore = cpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const result = await autocannon({
    url: `${target.url}/api/integration/authenticationcheck`,
    connections: CONNECTIONS,
    duration,
    headers: target.accessKey ? { ApiAccessKey: target.accessKey, ApiSecretKey: target.secretKey } : {},
  });
  const ok = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const serverAfter = cpuSeconds(pid);
  const client = process.cpuUsage(clientBefore);
  const answered = result.requests.total;
  const serverUs =
    serverBefore === undefined || serverAfter === undefined
      ? Number.NaN
      : ((serverAfter - serverBefore) * 1e6) / answered;
  const clientUs = (client.user + client.system) / answered;
  return { rps: result.requests.average, p99: result.latency.p99, ok, serverUs, clientUs };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The five servers (the bare baseline, the bare route with Rampart's six answer headers, the floor
 * of bench/minimal-auth.ts, Rampart as shipped, Rampart with request logging off) run
 * side by side, and are loaded in turn, ROUNDS times: the machine is shared, and a ratio of two
 * runs made a minute apart measured the load on the machine as much as the servers (a single
 * baseline run once gave Rampart 1.09× the bare server). The ratio is the median of each round's
 * ratio; req/s and p99 are medians too.
 */
async function measureKind(kind: string) {
  const servers: { name: string; child: ChildProcess; target: Target; drop?: () => Promise<void> }[] = [];
  try {
    servers.push({ name: 'bare', ...(await start('./bare-server.ts', [], 'info')) });
    // The bare route with Rampart's six answer headers: what their bytes cost on their own.
    servers.push({ name: 'bare+headers', ...(await start('./bare-server.ts', ['headers'], 'info')) });
    // The floor: what the check must do, written as plainly as Fastify allows (bench/minimal-auth.ts).
    servers.push({ name: 'minimal', ...(await start('./minimal-server.ts', [], 'info')) });
    for (const logLevel of ['info', 'warn']) {
      const database = kind === 'postgresql' ? await createPostgresDatabase() : undefined;
      const args = database ? [kind, database.url] : [kind];
      servers.push({
        name: logLevel,
        ...(await start('./auth-server.ts', args, logLevel)),
        drop: database?.drop,
      });
    }
    for (const server of servers) await load(server.target, 2); // warm-up: JIT, caches
    const results = new Map<string, Awaited<ReturnType<typeof load>>[]>(servers.map((s) => [s.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of servers)
        results.get(server.name)!.push(await load(server.target, DURATION, server.child.pid));
      console.log(
        `round ${round + 1}: ${servers.map((s) => `${s.name} ${results.get(s.name)![round]!.rps.toFixed(0)}`).join(', ')} req/s`,
      );
    }
    const bare = results.get('bare')!;
    const minimal = results.get('minimal')!;
    floors.push(
      `| ${kind} run | ${median(minimal.map((r) => r.rps)).toFixed(0)} | ${median(minimal.map((r) => r.p99))} ms | ${median(minimal.map((r, i) => r.rps / bare[i]!.rps)).toFixed(2)} |`,
    );
    for (const server of servers) {
      const runs = results.get(server.name)!;
      costs.push(
        `| ${kind} | ${server.name} | ${median(runs.map((r) => r.rps)).toFixed(0)} | ${median(runs.map((r, i) => r.rps / bare[i]!.rps)).toFixed(2)} | ${median(runs.map((r) => r.serverUs)).toFixed(1)} µs | ${median(runs.map((r) => r.clientUs)).toFixed(1)} µs |`,
      );
    }
    for (const logLevel of ['info', 'warn']) {
      const rampart = results.get(logLevel)!;
      const ratio = median(rampart.map((r, i) => r.rps / bare[i]!.rps));
      rows.push(
        `| ${kind} | ${logLevel} | ${median(rampart.map((r) => r.rps)).toFixed(0)} | ${median(rampart.map((r) => r.p99))} ms | ${median(bare.map((r) => r.rps)).toFixed(0)} | ${median(bare.map((r) => r.p99))} ms | ${ratio.toFixed(2)} |`,
      );
    }
  } finally {
    for (const server of servers) {
      await stop(server.child);
      await server.drop?.();
    }
  }
}

const rows: string[] = [];
const floors: string[] = [];
const costs: string[] = [];
const kinds = authBenchKinds();
console.log(
  `bench:auth — ${os.cpus().length} cores, Node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds`,
);
for (const kind of kinds) await measureKind(kind);
console.log(
  '\n| database | RAMPART_LOG_LEVEL | authenticationcheck req/s | p99 | bare Fastify req/s | p99 | ratio |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log(
  '\nThe floor (bench/minimal-auth.ts: the same behaviours written as plainly as Fastify allows), in the same rounds:',
);
console.log('\n| rounds of | minimal req/s | p99 | ratio to bare |');
console.log('|---|---|---|---|');
for (const r of floors) console.log(r);
console.log(
  "\nWhere each request's CPU went (medians of rounds): the server process, and the load generator (this process) on the same cores:",
);
console.log(
  '\n| database run | server | req/s | ratio to bare | server CPU per request | load generator CPU per request |',
);
console.log('|---|---|---|---|---|---|');
for (const r of costs) console.log(r);
