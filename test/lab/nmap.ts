// nmap -sV as the baseline that Rampart's service detection is held to, in lab tests and in
// bench:scan: runs it on lab addresses only (the caller proved they are routed into the lab),
// reads its XML with Rampart's own Nmap importer, and compares the two port by port.

import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { nmapImporter } from '../../src/importers/nmap/index.js';
import type { ScannedService } from '../../src/scanning/types.js';

/** One open port as nmap -sV saw it. */
export interface NmapService {
  address: string;
  port: number;
  service: string | null;
  product: string | null;
  /** nmap's whole version field: `9.2p1 Debian 2+deb12u7`. */
  version: string | null;
  cpe: string | null;
}

/** nmap's XML (and its stdout as a whole) is read up to this much: a lab scan writes a few KiB. */
const MAX_XML_BYTES = 8 * 1024 * 1024;

/**
 * `nmap -sV -Pn -n -oX - -p <ports> <addresses>`, bounded by `timeoutMs` (nmap's own
 * --host-timeout, and a kill a little later). Resolves with its open ports and its wall time.
 */
export async function nmapVersionScan(
  addresses: string[],
  ports: readonly number[],
  timeoutMs: number,
): Promise<{ services: NmapService[]; ms: number }> {
  if (addresses.length === 0) throw new RangeError('nmap -sV: addresses must not be empty');
  if (ports.length === 0) throw new RangeError('nmap -sV: ports must not be empty');
  const args = [
    '-sV',
    '-Pn',
    '-n',
    '-oX',
    '-',
    '--host-timeout',
    `${Math.ceil(timeoutMs / 1000)}s`,
    '-p',
    ports.join(','),
    ...addresses,
  ];
  const start = process.hrtime.bigint();
  const xml = await runBounded('nmap', args, timeoutMs + 10_000);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { services: await readNmapServices(xml), ms };
}

/**
 * `nmap -sT -Pn -n --top-ports <top> -oX - <addresses>`: nmap's own list of the most common
 * ports, run here (never copied), with TCP connects as Rampart's scanner makes them. Resolves with
 * the open ports it found and its wall time.
 */
export async function nmapTopPortsScan(
  addresses: string[],
  top: number,
  timeoutMs: number,
): Promise<{ open: { address: string; port: number }[]; ms: number }> {
  if (addresses.length === 0) throw new RangeError('nmap --top-ports: addresses must not be empty');
  if (!Number.isInteger(top) || top < 1)
    throw new RangeError('nmap --top-ports: top must be a positive integer');
  const args = [
    '-sT',
    '-Pn',
    '-n',
    '-oX',
    '-',
    '--host-timeout',
    `${Math.ceil(timeoutMs / 1000)}s`,
    '--top-ports',
    String(top),
    ...addresses,
  ];
  const start = process.hrtime.bigint();
  const xml = await runBounded('nmap', args, timeoutMs + 10_000);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const open = (await readNmapServices(xml)).map((s) => ({ address: s.address, port: s.port }));
  return { open, ms };
}

/** The open TCP ports of an nmap XML report, through Rampart's Nmap importer. */
export async function readNmapServices(xml: string): Promise<NmapService[]> {
  const services: NmapService[] = [];
  const context = { warn: () => undefined, maxEvidenceChars: 65_536, maxFieldChars: 32_768 };
  for await (const record of nmapImporter.parse(Readable.from([xml]), context)) {
    if (record.type !== 'service' || record.protocol !== 'tcp') continue;
    services.push({
      address: record.asset.ipAddresses?.[0] ?? '',
      port: record.port,
      service: record.name ?? null,
      product: record.product ?? null,
      version: record.version ?? null,
      cpe: record.cpe ?? null,
    });
  }
  return services;
}

function runBounded(file: string, args: string[], killAfterMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.stdout.on('data', (c: Buffer) => {
      if (out.length < MAX_XML_BYTES) out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < 4000) err += c.toString();
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${file} exited with ${code ?? signal}: ${err.trim()}`));
    });
  });
}

/**
 * How a product name is compared: lower case, and nmap's longer name counts when it starts with
 * Rampart's followed by a space (nmap's `Redis key-value store` is Rampart's `Redis`).
 */
export function sameProduct(rampart: string | null, nmap: string | null): boolean {
  if (!rampart || !nmap) return false;
  const r = rampart.toLowerCase();
  const n = nmap.toLowerCase();
  return n === r || n.startsWith(`${r} `);
}

/**
 * How a version is compared: nmap's first word (`9.2p1` of `9.2p1 Debian 2+deb12u7`, where the
 * rest is the distribution's build) must equal Rampart's version.
 */
export function sameVersion(rampart: string | null, nmap: string | null): boolean {
  if (!nmap) return true; // nmap named no version: nothing to hold Rampart to
  return rampart !== null && nmap.split(/\s+/, 1)[0] === rampart;
}

/** Rampart's services of one address, as the system engine emits them. */
export interface RampartHost {
  address: string;
  services: ScannedService[];
}

export interface Comparison {
  /** Ports where nmap named a product. */
  identified: number;
  /** Of those, ports where Rampart has the same product and version. */
  same: number;
  /** One line per port that differs: what nmap said, what Rampart said. */
  differences: string[];
}

/** Every port on which nmap names a product, against Rampart's service on the same port. */
export function compareWithNmap(rampart: RampartHost[], nmap: NmapService[]): Comparison {
  const result: Comparison = { identified: 0, same: 0, differences: [] };
  for (const theirs of nmap) {
    if (!theirs.product) continue;
    result.identified++;
    const ours = rampart
      .find((h) => h.address === theirs.address)
      ?.services.find((s) => s.port === theirs.port);
    if (ours && sameProduct(ours.product, theirs.product) && sameVersion(ours.version, theirs.version)) {
      result.same++;
      continue;
    }
    const said = ours ? `${ours.product ?? '?'} ${ours.version ?? '?'}` : 'nothing';
    result.differences.push(
      `${theirs.address}:${theirs.port}: nmap ${theirs.product} ${theirs.version ?? ''}, Rampart ${said}`,
    );
  }
  return result;
}
