/**
 * npm run bench:auth-cpu — the JavaScript time of one authentication check, without the network:
 * requests are driven through Node's own IncomingMessage and ServerResponse on a socket that
 * writes nowhere, and each server's CPU time is divided by the requests it answered. Three servers:
 *
 * - `bare`: the baseline of bench:auth, a Fastify route answering the same text;
 * - `bare-headers`: the same route sending Rampart's six answer headers with fixed values (what
 *   those headers cost on their own, as bench/bare-server.ts `headers`);
 * - `minimal`: the same route with what the check must do written as plainly as Fastify allows
 *   (bench/minimal-auth.ts), as the floor of any implementation on Fastify;
 * - `rampart`: the app as `rampart serve` builds it (the key cached), with its request log written
 *   to a sink that keeps nothing, at `info` (as shipped) and `warn`; on an in-memory embedded
 *   database, or with BENCH_AUTH_EMBEDDED=off on a fresh database of the DATABASE_URL server.
 *
 * bench:auth measures what a client sees; this measures what the JavaScript costs, which a
 * shared machine disturbs far less (the network's cost is the same for every server). Each
 * server runs in a process of its own (sharing one would make V8's inline caches see the
 * others' objects), BENCH_ROUNDS times in turn; each process reports the least of its rounds'
 * per-request times (the least disturbed).
 */
import { execFileSync, fork } from 'node:child_process';
import { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { authBenchKinds, createPostgresDatabase } from './auth-database.js';
import { setFixedHeaders } from './auth-headers.js';
import { startBenchApp } from './bench-app.js';
import { positiveKnob } from './knobs.js';
import { minimalAuthApp } from './minimal-auth.js';

const ROUNDS = positiveKnob('BENCH_ROUNDS', 3);
const REQUESTS = positiveKnob('BENCH_REQUESTS', 8000);
const SAMPLES = positiveKnob('BENCH_SAMPLES', 12);
const PATH = '/api/integration/authenticationcheck';
const SERVERS = ['bare', 'bare-headers', 'minimal', 'rampart-info', 'rampart-warn'] as const;
type ServerName = (typeof SERVERS)[number];

interface Server {
  app: FastifyInstance;
  headers: Record<string, string>;
  close?: () => Promise<void>;
}

/** A socket that takes every write and says it is done: no network, no kernel. */
class NullSocket extends Duplex {
  remoteAddress = '127.0.0.1';
  remotePort = 40000;
  override _read() {}
  override _write(_chunk: unknown, _encoding: unknown, done: () => void) {
    done();
  }
  setTimeout() {
    return this;
  }
}

async function bare(withHeaders: boolean): Promise<Server> {
  const app = Fastify({ logger: false });
  app.get(PATH, async (_request, reply) => {
    if (withHeaders) setFixedHeaders(reply);
    return reply.type('text/plain; charset=utf-8').send('Authenticated');
  });
  await app.ready();
  return { app, headers: {} };
}

async function minimal(): Promise<Server> {
  const { app, accessKey, secretKey } = await minimalAuthApp();
  await app.ready();
  return { app, headers: { apiaccesskey: accessKey, apisecretkey: secretKey } };
}

async function rampart(logLevel: string): Promise<Server> {
  const nowhere = { write: () => true, flush: (done?: (error?: Error) => void) => done?.() };
  const database = authBenchKinds().includes('embedded') ? undefined : await createPostgresDatabase();
  const bench = await startBenchApp({
    kind: database ? 'postgresql' : 'embedded',
    url: database?.url,
    inMemory: true,
    env: { RAMPART_LOG_LEVEL: logLevel },
    logTo: nowhere,
  });
  return {
    app: bench.app,
    headers: { apiaccesskey: bench.accessKey, apisecretkey: bench.secretKey },
    close: async () => {
      await bench.close();
      await database?.drop();
    },
  };
}

const socket = new NullSocket();

/** One request through the app's own request handler, as Node's server would make it. */
function request(server: Server): Promise<number> {
  const req = new IncomingMessage(socket as never);
  req.method = 'GET';
  req.url = PATH;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.headers = { host: '127.0.0.1', connection: 'keep-alive', ...server.headers };
  req.push(null);
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise((resolve) => {
    res.once('finish', () => {
      res.detachSocket(socket as never);
      resolve(res.statusCode);
    });
    server.app.routing(req, res);
  });
}

/** Child: builds one server, checks it answers 200, warms it up, and reports µs per request. */
async function measureOne(name: ServerName): Promise<void> {
  const server =
    name === 'bare' || name === 'bare-headers'
      ? await bare(name === 'bare-headers')
      : name === 'minimal'
        ? await minimal()
        : await rampart(name === 'rampart-info' ? 'info' : 'warn');
  const status = await request(server);
  if (status !== 200) throw new Error(`${name} answered ${status}, not 200`);
  for (let i = 0; i < 20_000; i++) await request(server);
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const before = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) await request(server);
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / REQUESTS);
  }
  await server.close?.();
  process.send?.({ least: Math.min(...samples) });
  process.exit(0);
}

function runChild(name: ServerName): Promise<number> {
  const child = fork(new URL(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_AUTH_CPU_SERVER: name },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve((m as { least: number }).least));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before reporting`)));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  console.log(
    `bench:auth-cpu — ${os.cpus().length} cores, Node ${process.version}, ${ROUNDS} rounds of a process per server, ` +
      `${SAMPLES} × ${REQUESTS} requests each (least taken), Rampart on ${authBenchKinds().includes('embedded') ? 'the embedded database' : 'PostgreSQL'}; load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const results = new Map<ServerName, number[]>(SERVERS.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of SERVERS) results.get(name)!.push(await runChild(name));
    console.log(
      `round ${round + 1}: ${SERVERS.map((s) => `${s} ${results.get(s)![round]!.toFixed(2)} µs`).join(', ')}`,
    );
  }
  const bareUs = median(results.get('bare')!);
  console.log('\n| server | JavaScript per request (median of rounds) | over bare |');
  console.log('|---|---|---|');
  for (const name of SERVERS) {
    const us = median(results.get(name)!);
    console.log(
      `| ${name} | ${us.toFixed(2)} µs | ${name === 'bare' ? '-' : `+${(us - bareUs).toFixed(2)} µs`} |`,
    );
  }
  console.log(`\n(${execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim()})`);
}

const child = process.env.BENCH_AUTH_CPU_SERVER as ServerName | undefined;
if (child) {
  if (!SERVERS.includes(child)) throw new Error(`BENCH_AUTH_CPU_SERVER must be one of ${SERVERS.join(', ')}`);
  await measureOne(child);
} else {
  await main();
}
