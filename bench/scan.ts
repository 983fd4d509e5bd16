/**
 * npm run bench:scan — discovery on a lab /24 (test/lab: network namespaces behind a bridge, as
 * root), Rampart's engine against `nmap -sn -n -PS<the same ports>` with the same timing limits,
 * in the same run; then the job queue's claim latency on the embedded database (and PostgreSQL
 * when DATABASE_URL is set).
 *
 * Prints per round and as medians: wall time of each, the ratio nmap / Rampart (goal ≥ 1.0), hosts
 * found, and the peak RSS of the engine's process (goal ≤ 150 MB), also over a /16 of loopback
 * addresses (memory must stay flat). Rampart runs in a child process
 * (this file with --engine) so that its maxRSS is the engine's alone; nmap runs twice: as it runs
 * by default as root on a local segment (ARP requests instead of the TCP probes) and with
 * --disable-arp-ping (the same TCP SYN probes as Rampart's connects).
 *
 * Then the engines of system and web scans (bench/scan-engines.ts): all ports of one host against
 * nmap -sT, the top1000 list, service detection of a lab of real daemons against nmap -sV, what a
 * silent port and a silent host cost, one URL's web check, each engine's peak RSS.
 *
 * BENCH_ROUNDS (default 3), BENCH_HOSTS (live hosts, default 42), BENCH_WALL=0 (no host that drops
 * every TCP packet: shows what that one host costs), BENCH_PARTS (default
 * `discovery,memory,engines,claims`: the parts to run), BENCH_ENGINES (default
 * `ports,top1000,detection,silence,web`: the engine measurements to run). Traffic goes only to
 * the lab.
 */

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbedded, openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { JobQueue } from '../src/jobs/queue.js';
import { systemClock } from '../src/lib/clock.js';
import { DEFAULT_DISCOVERY_TEMPLATE, discoverHosts, nmapAvailable } from '../src/scanning/discovery/index.js';
import { nmapArguments } from '../src/scanning/discovery/nmap.js';
import type { DiscoveryTemplate } from '../src/scanning/types.js';
import { createLab, type LabHostSpec, labAvailable } from '../test/lab/lab.js';
import { benchEngines, engineParts } from './scan-engines.js';

const TEMPLATE: DiscoveryTemplate = { ...DEFAULT_DISCOVERY_TEMPLATE, reverseDns: false };
const WIDE_RATE = 5000;

interface EngineResult {
  ms: number;
  found: number;
  maxRssMb: number;
  /** The child's RSS before discovery started: Node, tsx and the modules loaded. */
  startRssMb: number;
}

if (process.argv[2] === '--engine') {
  await engineChild(process.argv[3]!);
  process.exit(0);
}
if (process.argv[2] === '--engine-16') {
  await engineSlash16(Number(process.argv[3]));
  process.exit(0);
}

/** The child: discovery over prefix.1–254, allowed only inside the lab /24. */
async function engineChild(prefix: string) {
  const inLab = `${prefix}.`;
  function* addresses() {
    for (let i = 1; i <= 254; i++) yield `${prefix}.${i}`;
  }
  const startRssMb = process.memoryUsage().rss / 1024 / 1024;
  const start = process.hrtime.bigint();
  const counts = await discoverHosts(addresses(), 254, TEMPLATE, {
    signal: new AbortController().signal,
    check: (a) => (a.startsWith(inLab) ? null : { rule: 'NotAllowed', message: `${a} is outside the lab` }),
    onHost: () => undefined,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const result: EngineResult = {
    ms,
    found: counts.found,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    startRssMb,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * The child for memory on a large range: 127.78.0.0/16 on loopback (every address answers a reset
 * on a closed port at once), one probe port, at ten times the default rate. Shows that memory
 * stays flat over 65,536 addresses.
 */
async function engineSlash16(port: number) {
  function* addresses() {
    for (let i = 0; i < 65536; i++) yield `127.78.${i >> 8}.${i & 255}`;
  }
  const startRssMb = process.memoryUsage().rss / 1024 / 1024;
  const start = process.hrtime.bigint();
  const counts = await discoverHosts(
    addresses(),
    65536,
    { ...TEMPLATE, ports: [port], connectionsPerSecond: WIDE_RATE },
    {
      signal: new AbortController().signal,
      check: (a) =>
        a.startsWith('127.78.') ? null : { rule: 'NotAllowed', message: `${a} is outside the range` },
      onHost: () => undefined,
      // Loopback has no neighbours: no need to ask the kernel 65,536 times.
      neighbours: async () => new Map(),
    },
  );
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const result: EngineResult = {
    ms,
    found: counts.found,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    startRssMb,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runEngine(
  mode: '--engine' | '--engine-16',
  arg: string,
  flags: string[] = [],
): Promise<EngineResult> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const child = spawn(process.execPath, [...flags, '--import', 'tsx', script, mode, arg], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`engine child exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as EngineResult);
    });
  });
}

function runNmap(prefix: string, extra: string[]): Promise<{ ms: number; found: number }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn('nmap', [...nmapArguments(TEMPLATE, 4), ...extra], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return reject(new Error(`nmap exited with ${code}`));
      resolve({ ms, found: (out.match(/<status state="up"/g) ?? []).length });
    });
    child.stdin.end(`${Array.from({ length: 254 }, (_, i) => `${prefix}.${i + 1}`).join('\n')}\n`);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function claimLatency(kind: 'embedded' | 'postgresql'): Promise<number[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-scan-'));
  let drop = async () => {};
  let database: Awaited<ReturnType<typeof openEmbedded>>;
  if (kind === 'postgresql') {
    const pg = (await import('pg')).default;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const name = `rampart_bench_scan_${process.pid}`;
    await admin.query(`create database ${name}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    database = await openPostgres(url.toString(), 4);
    drop = async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  } else {
    database = await openEmbedded(dataDir, 'bench');
  }
  try {
    await migrateToLatest(database.db);
    const queue = new JobQueue(database.db, systemClock);
    for (let i = 0; i < 50; i++) await queue.enqueueUnchecked('DiscoveryScan', { run: i });
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const start = process.hrtime.bigint();
      const [job] = await queue.claim('bench', ['DiscoveryScan'], 60_000, 1);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      await queue.complete(job!.id, 'bench');
    }
    return times;
  } finally {
    await database.close();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const BENCH_PARTS = ['discovery', 'memory', 'engines', 'claims'] as const;

async function main() {
  if (!labAvailable()) {
    console.error('bench:scan needs root, iproute2, nftables and the lab daemons (see test/lab/README.md)');
    process.exit(1);
  }
  if (!(await nmapAvailable())) {
    console.error('bench:scan needs nmap (apt-get install -y nmap)');
    process.exit(1);
  }
  const parts = new Set((process.env.BENCH_PARTS ?? BENCH_PARTS.join(',')).split(','));
  const unknown = [...parts].filter((p) => !(BENCH_PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) {
    console.error(`BENCH_PARTS: unknown part ${unknown.join(', ')} (known: ${BENCH_PARTS.join(', ')})`);
    process.exit(1);
  }
  // Read before anything runs: a mistyped part fails now, not after the discovery rounds.
  let engines: Set<string>;
  try {
    engines = engineParts();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  if (parts.has('discovery')) await benchDiscovery();
  if (parts.has('memory')) await benchMemory();
  if (parts.has('engines')) await benchEngines(engines);
  if (parts.has('claims')) await benchClaims();
}

async function benchDiscovery() {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const live = Number(process.env.BENCH_HOSTS ?? 42);
  // Live hosts spread over the /24; most run nothing (a closed port answers a reset), two run an
  // HTTP server, one drops every TCP packet (found through ARP only).
  const specs: LabHostSpec[] = Array.from({ length: live }, (_, k) => ({
    name: `h${k}`,
    index: 2 + Math.floor((k * 252) / live),
    ...(k === 1 || k === 2 ? { daemons: ['http' as const] } : {}),
    ...(k === 3 && process.env.BENCH_WALL !== '0' ? { dropAllTcp: true } : {}),
  }));
  const lab = await createLab(specs);
  try {
    lab.assertRoutedIntoLab();
    const prefix = lab.gateway.split('.').slice(0, 3).join('.');
    const cold = () => spawnSync('ip', ['neigh', 'flush', 'dev', lab.bridge]);
    console.log(
      `lab ${lab.subnet}: ${live} live hosts (and the gateway) of 254 addresses; probe ports ${TEMPLATE.ports.join(',')}`,
    );
    console.log(
      `template: timeout ${TEMPLATE.timeoutMs} ms, ${TEMPLATE.retries} retry, ${TEMPLATE.maxInFlight} in flight, ` +
        `${TEMPLATE.connectionsPerSecond}/s, ${TEMPLATE.perHostInFlight} per host; node ${process.version}, ${os.cpus().length} cores`,
    );
    const r: { rampart: EngineResult[]; arp: number[]; tcp: number[] } = { rampart: [], arp: [], tcp: [] };
    for (let round = 1; round <= rounds; round++) {
      cold();
      const engine = await runEngine('--engine', prefix);
      cold();
      const arp = await runNmap(prefix, []);
      cold();
      const tcp = await runNmap(prefix, ['--disable-arp-ping']);
      r.rampart.push(engine);
      r.arp.push(arp.ms);
      r.tcp.push(tcp.ms);
      console.log(
        `round ${round}: rampart ${engine.ms.toFixed(0)} ms (${engine.found} up, peak RSS ${engine.maxRssMb.toFixed(1)} MB, ${engine.startRssMb.toFixed(1)} MB before it) | ` +
          `nmap -sn ${arp.ms.toFixed(0)} ms (${arp.found} up) | nmap -sn --disable-arp-ping ${tcp.ms.toFixed(0)} ms (${tcp.found} up)`,
      );
    }
    const ms = median(r.rampart.map((e) => e.ms));
    console.log('\nmedians');
    console.log(`  rampart discovery                 ${ms.toFixed(0)} ms`);
    console.log(
      `  nmap -sn (ARP on the segment)     ${median(r.arp).toFixed(0)} ms   ratio nmap/rampart ${(median(r.arp) / ms).toFixed(2)}`,
    );
    console.log(
      `  nmap -sn --disable-arp-ping       ${median(r.tcp).toFixed(0)} ms   ratio nmap/rampart ${(median(r.tcp) / ms).toFixed(2)}`,
    );
    console.log(
      `  engine peak RSS                   ${Math.max(...r.rampart.map((e) => e.maxRssMb)).toFixed(1)} MB`,
    );
  } finally {
    lab.teardown();
  }
}

async function benchMemory() {
  // A closed port: found free on 127.78.0.1, then released.
  const probe = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.78.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
  // V8 grows its young generation up to 128 MB under a steady stream of short-lived objects
  // (each host's sockets and promises live about a timeout); the second run caps it.
  for (const flags of [[], ['--max-semi-space-size=16']]) {
    const wide = await runEngine('--engine-16', String(probe), flags);
    console.log(
      `127.78.0.0/16 on loopback, 1 closed port, ${WIDE_RATE}/s${flags.length ? `, ${flags.join(' ')}` : ''}: ` +
        `${wide.found} up in ${(wide.ms / 1000).toFixed(1)} s, peak RSS ${wide.maxRssMb.toFixed(1)} MB ` +
        `(${wide.startRssMb.toFixed(1)} MB before it)`,
    );
  }
}

async function benchClaims() {
  for (const kind of ['embedded', ...(process.env.DATABASE_URL ? ['postgresql' as const] : [])] as const) {
    const times = await claimLatency(kind);
    console.log(
      `job claim latency (${kind}, 50 claims of one due job each): p50 ${percentile(times, 50).toFixed(2)} ms, ` +
        `p95 ${percentile(times, 95).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms`,
    );
  }
}

await main();
