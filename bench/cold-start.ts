/**
 * npm run bench:start — cold start: from spawning `rampart serve` (the built CLI, as `npm start`
 * runs it) to the first answered request (`GET /api/latest/status` → 200), on a data directory that
 * already holds a database and on a new one (migrations and the bundled knowledge base included).
 * The baseline, in the same run, is a bare Node process that listens and answers the same way:
 * what starting Node itself costs on this machine. On PGlite, and on PostgreSQL too when
 * DATABASE_URL is set (a new database each time, dropped afterwards). Medians of BENCH_RUNS (3).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = readRuns(process.env.BENCH_RUNS);
/** A start slower than this is a failure, not a figure. */
const START_LIMIT_MS = 120_000;

function readRuns(text: string | undefined): number {
  if (text === undefined) return 3;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 20) throw new Error(`BENCH_RUNS must be 1–20, not '${text}'`);
  return n;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** 200 from the URL, or null (refused, not yet listening, another status). */
function answered(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => resolve(false));
    request.on('timeout', () => request.destroy());
  });
}

interface Timings {
  /** Until the first 200. */
  firstAnswer: number;
  /** Until `ready` said yes too (the knowledge base loaded), when asked for. */
  ready: number | null;
}

/**
 * Spawns the command and measures until the URL answers 200 (and, with `ready`, until it says
 * yes); then stops the process.
 */
async function timeToFirstAnswer(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  url: string,
  ready?: (base: string) => Promise<boolean>,
): Promise<Timings> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const failIfOver = () => {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited: ${stderr}`);
    if (performance.now() - started > START_LIMIT_MS)
      throw new Error(`no answer from ${url} within ${START_LIMIT_MS} ms: ${stderr}`);
  };
  try {
    let firstAnswer: number | null = null;
    while (firstAnswer === null) {
      failIfOver();
      if (await answered(url)) firstAnswer = performance.now() - started;
      else await new Promise((r) => setTimeout(r, 10));
    }
    let readyAt: number | null = null;
    while (ready && readyAt === null) {
      failIfOver();
      if (await ready(new URL(url).origin)) readyAt = performance.now() - started;
      else await new Promise((r) => setTimeout(r, 50));
    }
    return { firstAnswer, ready: readyAt };
  } finally {
    await stop(child, exited);
  }
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

const ADMIN_EMAIL = 'admin@rampart.local';
const ADMIN_PASSWORD = 'cold-start-bench-password-5d0c';

/**
 * Whether every feed of the bundled knowledge base has completed a load (it loads in the
 * background after the first answer), asked as the Admin through a web session.
 */
function knowledgeBaseLoaded(): (base: string) => Promise<boolean> {
  let cookie: string | null = null;
  return async (base) => {
    try {
      if (!cookie) {
        const session = await fetch(`${base}/api/latest/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Email: ADMIN_EMAIL, Password: ADMIN_PASSWORD }),
        });
        if (!session.ok) return false;
        cookie = session.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
      }
      const feeds = await fetch(`${base}/api/latest/intel/feeds`, { headers: { cookie } });
      if (!feeds.ok) return false;
      const body = (await feeds.json()) as { Items: { LastCompletedLoad: unknown }[] };
      return body.Items.length > 0 && body.Items.every((f) => f.LastCompletedLoad !== null);
    } catch {
      return false;
    }
  };
}

const BARE = `
const http = require('node:http');
http.createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"Status":"ok"}'); })
  .listen(Number(process.env.RAMPART_PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

interface Case {
  label: string;
  goalMs: number | null;
  /** A new installation: also until the bundled knowledge base is loaded (in the background). */
  knowledgeBase: boolean;
  /** Per run: the environment, and what to tidy after it. */
  prepare(): Promise<{ env: NodeJS.ProcessEnv; cleanup(): Promise<void> }>;
}

function serveEnv(port: number, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RAMPART_PORT: String(port),
    RAMPART_HOST: '127.0.0.1',
    RAMPART_LOG_LEVEL: 'warn',
    RAMPART_ADMIN_EMAIL: ADMIN_EMAIL,
    RAMPART_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // The start is measured, not downloads from the official intelligence sources.
    RAMPART_INTEL_SYNC: 'off',
    ...extra,
  };
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}

/** A data directory whose database `rampart serve` has made once already, knowledge base loaded. */
async function existingDataDir(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rampart-cold-'));
  const port = await freePort();
  await timeToFirstAnswer(
    process.execPath,
    ['bin/rampart.js', 'serve'],
    serveEnv(port, { RAMPART_DATA_DIR: dir }),
    `http://127.0.0.1:${port}/api/latest/status`,
    // Until its knowledge base is in: a start cut short would leave it to load again.
    knowledgeBaseLoaded(),
  );
  return dir;
}

async function postgresDatabase(admin: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(admin: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
}

function cases(): Case[] {
  const list: Case[] = [
    {
      label: 'embedded server, existing data directory',
      // Issue 24's goal for the embedded PostgreSQL server (it starts a server first).
      goalMs: 3000,
      knowledgeBase: false,
      prepare: async () => {
        const dir = await existingDataDir();
        return {
          env: { RAMPART_DATA_DIR: dir },
          cleanup: async () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    },
    {
      label: 'embedded server, new data directory (initdb, migrations, knowledge base)',
      goalMs: 15_000,
      knowledgeBase: true,
      prepare: async () => {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'rampart-cold-'));
        return {
          env: { RAMPART_DATA_DIR: dir },
          cleanup: async () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    },
  ];
  const admin = process.env.DATABASE_URL;
  if (admin) {
    let n = 0;
    const name = () => `rampart_cold_${process.pid}_${n++}`;
    list.push(
      {
        label: 'PostgreSQL, existing database',
        goalMs: 2000,
        knowledgeBase: false,
        prepare: async () => {
          const db = name();
          const url = await postgresDatabase(admin, db);
          const port = await freePort();
          await timeToFirstAnswer(
            process.execPath,
            ['bin/rampart.js', 'serve'],
            serveEnv(port, { DATABASE_URL: url }),
            `http://127.0.0.1:${port}/api/latest/status`,
            knowledgeBaseLoaded(),
          );
          return { env: { DATABASE_URL: url }, cleanup: () => dropDatabase(admin, db) };
        },
      },
      {
        label: 'PostgreSQL, new database (migrations, knowledge base)',
        goalMs: 10_000,
        knowledgeBase: true,
        prepare: async () => {
          const db = name();
          const url = await postgresDatabase(admin, db);
          return { env: { DATABASE_URL: url }, cleanup: () => dropDatabase(admin, db) };
        },
      },
    );
  }
  return list;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'dist', 'main.js'))) {
    console.log('building the server (npm run build:server) first: not timed');
    execFileSync('npm', ['run', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  }
  console.log(`cold start, ${RUNS} runs each, Node ${process.version}, ${os.cpus().length} cores`);
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const port = await freePort();
    const t = await timeToFirstAnswer(
      process.execPath,
      ['-e', BARE],
      serveEnv(port, {}),
      `http://127.0.0.1:${port}/api/latest/status`,
    );
    bare.push(t.firstAnswer);
  }
  const baseline = median(bare);
  console.log(`baseline: a bare Node process answering the same request: ${seconds(baseline)}`);
  for (const c of cases()) {
    const times: number[] = [];
    const loaded: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { env, cleanup } = await c.prepare();
      try {
        const port = await freePort();
        const t = await timeToFirstAnswer(
          process.execPath,
          ['bin/rampart.js', 'serve'],
          serveEnv(port, env),
          `http://127.0.0.1:${port}/api/latest/status`,
          c.knowledgeBase ? knowledgeBaseLoaded() : undefined,
        );
        times.push(t.firstAnswer);
        if (t.ready !== null) loaded.push(t.ready);
      } finally {
        await cleanup();
      }
    }
    const m = median(times);
    const goal =
      c.goalMs === null ? '' : `; goal ≤ ${seconds(c.goalMs)} ${m <= c.goalMs ? 'met' : 'NOT met'}`;
    console.log(
      `${c.label}: first answer median ${seconds(m)} (runs ${times.map(seconds).join(', ')}), ` +
        `${(m / baseline).toFixed(1)}× the bare Node start${goal}`,
    );
    if (loaded.length > 0) {
      const k = median(loaded);
      console.log(
        `  knowledge base loaded (in the background, after the first answer): median ${seconds(k)} ` +
          `(runs ${loaded.map(seconds).join(', ')})${c.goalMs === null ? '' : `; within ${seconds(c.goalMs)}: ${k <= c.goalMs ? 'yes' : 'no'}`}`,
      );
    }
  }
}

await main();
