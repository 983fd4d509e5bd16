// Discovery through `nmap -sn` when it is installed and the template asks for it. nmap decides which
// hosts are up (TCP SYN to the template's ports; as root on the node's own Ethernet segment it asks
// ARP/NDP instead, as nmap does by default); then the engine's own connect probes learn which probe
// ports answered on the live hosts only, so that both ways report hosts the same way.

import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { abortReason } from '../runtime/limits.js';
import type { DiscoveryTemplate } from '../types.js';
import {
  type DiscoveryCounts,
  type DiscoveryOptions,
  DiscoveryRun,
  type KnownLive,
  validateDiscoveryTemplate,
} from './engine.js';

/** Addresses handed to one nmap process: bounds memory and the time between two checks. */
export const NMAP_CHUNK = 1024;

export function nmapAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('nmap', ['--version'], { timeout: 10_000 }, (error) => resolve(!error));
  });
}

/** nmap's arguments for one chunk of one address family (the addresses come on stdin). */
export function nmapArguments(template: DiscoveryTemplate, family: 4 | 6): string[] {
  const rtt = Math.max(1, template.timeoutMs);
  return [
    '-sn',
    '-n',
    ...(family === 6 ? ['-6'] : []),
    `-PS${template.ports.join(',')}`,
    '--max-retries',
    String(template.retries),
    '--initial-rtt-timeout',
    `${Math.min(rtt, 1000)}ms`,
    '--max-rtt-timeout',
    `${rtt}ms`,
    '--max-rate',
    String(template.connectionsPerSecond),
    '--max-parallelism',
    String(template.maxInFlight),
    '-oX',
    '-',
    '-iL',
    '-',
  ];
}

/** Live hosts in nmap's XML output: address → MAC (or null). */
export function parseNmapXml(xml: string): KnownLive {
  const live: KnownLive = new Map();
  for (const [block] of xml.matchAll(/<host\b[\s\S]*?<\/host>/g)) {
    if (!/<status state="up"/.test(block)) continue;
    let address: string | null = null;
    let mac: string | null = null;
    for (const m of block.matchAll(/<address addr="([^"]+)" addrtype="(ipv4|ipv6|mac)"/g)) {
      if (m[2] === 'mac') mac = m[1]!.toLowerCase();
      else address = m[1]!;
    }
    if (address) live.set(address, mac);
  }
  return live;
}

export async function discoverWithNmap(
  addresses: AsyncIterable<string> | Iterable<string>,
  total: number,
  template: DiscoveryTemplate,
  options: DiscoveryOptions,
): Promise<DiscoveryCounts> {
  validateDiscoveryTemplate(template);
  const known: KnownLive = new Map();
  const run = new DiscoveryRun(template, options, total, known);
  return run.execute(nmapChunks(addresses, template, options, known));
}

/**
 * Hands the run every address, a chunk at a time, after nmap has looked at the chunk's allowed
 * ones; the run checks each again, probes the live ones and counts the rest done.
 */
async function* nmapChunks(
  addresses: AsyncIterable<string> | Iterable<string>,
  template: DiscoveryTemplate,
  options: DiscoveryOptions,
  known: KnownLive,
): AsyncGenerator<string> {
  let chunk: string[] = [];
  const flush = async function* () {
    const allowed = chunk.filter((a) => net.isIP(a) !== 0 && options.check(a) === null);
    for (const family of [4, 6] as const) {
      const mine = allowed.filter((a) => net.isIP(a) === family);
      if (mine.length > 0)
        for (const [a, mac] of await runNmap(mine, template, family, options.signal)) known.set(a, mac);
    }
    yield* chunk;
    chunk = [];
  };
  for await (const address of addresses) {
    chunk.push(address);
    if (chunk.length >= NMAP_CHUNK) yield* flush();
  }
  if (chunk.length > 0) yield* flush();
}

function runNmap(addresses: string[], template: DiscoveryTemplate, family: 4 | 6, signal: AbortSignal) {
  return new Promise<KnownLive>((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const child = spawn('nmap', nmapArguments(template, family), { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < 4096) err += c.toString('utf8');
    });
    child.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.once('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return reject(abortReason(signal));
      if (code !== 0) return reject(new Error(`nmap exited with ${code}: ${err.trim().slice(0, 500)}`));
      resolve(parseNmapXml(Buffer.concat(out).toString('utf8')));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${addresses.join('\n')}\n`);
  });
}
