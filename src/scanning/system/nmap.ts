// `nmap -sV` on one host's open ports, when the template asks and nmap is on the node: its XML is
// read with the nmap importer's own reader, and its detections fill in what Rampart did not name.

import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { nmapImporter } from '../../importers/nmap/index.js';
import type { ServiceRecord } from '../../importers/types.js';
import { formatCpe, literalText, parseCpe } from '../../intel/cpe/cpe.js';
import { cpesFor, VENDOR_ALIASES } from '../fingerprints/index.js';
import type { ScannedService } from '../types.js';

/** nmap's XML for one host and a handful of ports stays far below this. */
const MAX_XML_BYTES = 4 * 1024 * 1024;

export interface NmapService {
  port: number;
  name: string | null;
  product: string;
  version: string | null;
  cpes: string[];
}

export function nmapVersionArguments(address: string, ports: number[], budgetMs: number): string[] {
  return [
    '-sV',
    '-Pn',
    '-n',
    '--host-timeout',
    `${Math.max(1000, Math.floor(budgetMs))}ms`,
    ...(address.includes(':') ? ['-6'] : []),
    '-oX',
    '-',
    '-p',
    ports.join(','),
    address,
  ];
}

/** Runs nmap; killed when the budget ends or the run aborts. Rejects when it fails. */
export function runNmapVersion(
  nmapPath: string,
  address: string,
  ports: number[],
  budgetMs: number,
  signal: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const child = spawn(nmapPath, nmapVersionArguments(address, ports, budgetMs), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(kill, budgetMs);
    signal.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_XML_BYTES) return kill();
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 2000) err += chunk.toString('utf8');
    });
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
    };
    child.once('error', (error) => {
      done();
      reject(error);
    });
    child.once('close', (code, killedBy) => {
      done();
      if (killedBy)
        return reject(new Error(`nmap was stopped (${signal.aborted ? 'run aborted' : 'budget spent'})`));
      if (code !== 0) return reject(new Error(`nmap exited with ${code}: ${err.trim().slice(0, 300)}`));
      resolve(Buffer.concat(out).toString('utf8'));
    });
  });
}

/** The services nmap named a product for, read by the nmap importer. */
export async function readNmapServices(xml: string): Promise<NmapService[]> {
  const found: NmapService[] = [];
  const context = { warn: () => undefined, maxEvidenceChars: 4000, maxFieldChars: 512 };
  for await (const record of nmapImporter.parse(Readable.from([xml]), context)) {
    if (record.type !== 'service' || record.protocol !== 'tcp' || !record.product) continue;
    found.push(nmapService(record));
  }
  return found;
}

function nmapService(record: ServiceRecord): NmapService {
  const product = record.product!;
  const version = record.version ?? null;
  const cpes = new Set<string>();
  if (record.cpe) {
    const parsed = parseCpe(record.cpe);
    if (parsed.ok) {
      cpes.add(formatCpe(parsed.cpe));
      // The vendor aliases of the same product, under the name identify() knows it by.
      // nmap's version text carries the distribution's build ("9.2p1 Debian 2+deb12u3"): the CPE's is the release.
      const vendorProduct = `${parsed.cpe.vendor}:${parsed.cpe.product}`;
      const release = /^[*-]?$/.test(parsed.cpe.version) ? null : literalText(parsed.cpe.version);
      for (const alias of aliasNames(vendorProduct)) for (const cpe of cpesFor(alias, release)) cpes.add(cpe);
    }
  }
  return { port: record.port, name: record.name ?? null, product, version, cpes: [...cpes] };
}

/** Products of the alias table that list this vendor:product. */
function aliasNames(vendorProduct: string): string[] {
  return KNOWN_PRODUCTS.filter((name) =>
    cpesFor(name, null).some((cpe) => cpe.split(':').slice(3, 5).join(':') === vendorProduct),
  );
}

const KNOWN_PRODUCTS = Object.keys(VENDOR_ALIASES);

/**
 * Rampart's service with nmap's detection: nmap's when Rampart found nothing or only the protocol;
 * Rampart's with nmap's noted in its evidence when both named a product.
 */
export function mergeNmap(port: number, ours: ScannedService | null, nmap: NmapService): ScannedService {
  const nmapWords = [nmap.product, nmap.version].filter(Boolean).join(' ');
  if (ours?.product) return { ...ours, evidence: `${ours.evidence} (nmap -sV: ${nmapWords})`.slice(0, 4000) };
  return {
    port,
    protocol: 'tcp',
    service: ours?.service ?? nmap.name,
    product: nmap.product,
    version: nmap.version,
    cpes: nmap.cpes,
    confidence: nmap.version ? 0.9 : 0.75,
    banner: ours?.banner ?? null,
    evidence: `nmap -sV: ${nmapWords}`,
    tls: ours?.tls ?? false,
    detectedBy: 'nmap',
  };
}
