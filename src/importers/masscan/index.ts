/**
 * masscan JSON reports (`masscan -oJ`, and `--output-format ndjson`).
 *
 * Layouts:
 * - `-oJ`: a list of `{ ip, timestamp, ports: [{ port, proto, status, reason, ttl }] }`, one
 *   entry per port seen; banner grabs (`--banners`) add entries whose port has `service: { name,
 *   banner }` instead of a status. A scan that found nothing is `[ ]`. Old versions ended the list
 *   with `{ "finished": 1 }`, which is passed over.
 * - NDJSON (masscan 1.3+): one object per line, `{ ip, timestamp, port, proto, rec_type:
 *   "status" | "banner", data: { status, reason, ttl } | { service_name, banner } }`.
 *
 * Records: masscan finds no vulnerabilities. Each open port is a `service` record of the host
 * (its banner and service name when grabbed), and each host an `asset` record. Ports reported
 * closed (`--show closed`) are passed over. Repeats (the same port twice) are reported once.
 *
 * Severity (MASSCAN_SEVERITY): none — no findings are made, so nothing is rated. (DefectDojo
 * turns each open port into an Info finding "Open port: 80/tcp on 172.29.0.3"; Rampart keeps
 * open ports as services of the asset instead.)
 *
 * Memory: one entry at a time, plus the keys of hosts and ports already reported (bounded).
 */
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { jsonValues } from '../../parsing/json.js';
import { asArray, asObject, asText, type JsonObject } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { hostAsset, portNumber } from '../common/network-target.js';
import { SeenKeys } from '../common/report-values.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { AssetRef, Importer, ImportRecord, ParseContext, ServiceRecord, Severity } from '../types.js';

/** A masscan JSON file is a list of host objects; its NDJSON form one host object a line. */
const MASSCAN_LIST_SHAPE = shapeCheck('a masscan JSON report', [
  ['', 'array', 'a list of hosts'],
  ['[]', 'object', 'a host object'],
]);
const MASSCAN_LINES_SHAPE = shapeCheck('a masscan NDJSON report', [['', 'object', 'a host object']]);

/** masscan rates nothing and Rampart makes no findings of it: the mapping is empty. */
export const MASSCAN_SEVERITY: Readonly<Record<string, Severity>> = {};

/** One port of one host as masscan reports it, in either layout. */
interface PortEntry {
  ip: string;
  port: number;
  protocol: 'tcp' | 'udp';
  status?: string;
  name?: string;
  banner?: string;
}

function protocolOf(value: unknown): 'tcp' | 'udp' | undefined {
  const proto = asText(value)?.toLowerCase();
  return proto === 'tcp' || proto === 'udp' ? proto : undefined;
}

/** The ports of one `-oJ` entry or one NDJSON line; undefined when it is neither. */
function portsOf(entry: JsonObject): PortEntry[] | undefined {
  const ip = asText(entry.ip);
  if (!ip) return undefined;
  if (Array.isArray(entry.ports)) {
    const out: PortEntry[] = [];
    for (const item of asArray(entry.ports)) {
      const p = asObject(item);
      const port = portNumber(p?.port);
      const protocol = protocolOf(p?.proto);
      if (!p || !port || !protocol) continue;
      const service = asObject(p.service);
      out.push({
        ip,
        port,
        protocol,
        status: asText(p.status)?.toLowerCase(),
        name: asText(service?.name),
        banner: asText(service?.banner),
      });
    }
    return out;
  }
  // NDJSON
  const port = portNumber(entry.port);
  const protocol = protocolOf(entry.proto);
  if (!port || !protocol) return undefined;
  const data = asObject(entry.data) ?? {};
  const recType = asText(entry.rec_type)?.toLowerCase();
  return [
    {
      ip,
      port,
      protocol,
      status: recType === 'banner' ? undefined : asText(data.status)?.toLowerCase(),
      name: asText(data.service_name),
      banner: asText(data.banner),
    },
  ];
}

function notMasscan(): ReportError {
  return new ReportError(
    'This is not a masscan JSON report: its entries have no "ip" with "ports" (masscan -oJ) or "port" (NDJSON).',
  );
}

export const masscanImporter: Importer = {
  format: 'masscan',
  label: 'masscan JSON (-oJ and NDJSON)',
  tool: 'masscan',

  detect(head: string): number {
    const start = head.replace(/^\uFEFF/, '').trimStart();
    if (!start.startsWith('[') && !start.startsWith('{')) return 0;
    const ip = /"ip"\s*:\s*"/.test(head);
    if (
      ip &&
      /"ports"\s*:\s*\[/.test(head) &&
      /"proto"\s*:/.test(head) &&
      /"(status|service)"\s*:/.test(head)
    )
      return 0.9;
    if (ip && /"rec_type"\s*:\s*"(status|banner)"/.test(head) && /"port"\s*:\s*\d/.test(head)) return 0.9;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: a masscan JSON report was expected.');
    if (start.first !== '[' && start.first !== '{') throw notMasscan();
    const ndjson = start.first === '{';
    const limits: TextLimits = textLimits(context);
    const hosts = new SeenKeys();
    const ports = new SeenKeys();
    let recognised = false;
    let skipped = 0;
    const values = jsonValues(start.input, (path) => path.length === (ndjson ? 0 : 1), {
      onValue: ndjson ? MASSCAN_LINES_SHAPE : MASSCAN_LIST_SHAPE,
      jsonStreaming: ndjson,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { value } of values) {
      const entry = asObject(value);
      if (entry && 'finished' in entry && !('ip' in entry)) continue; // old versions' last entry
      const entries = entry ? portsOf(entry) : undefined;
      if (!entries) {
        if (!recognised) throw notMasscan();
        skipped += 1;
        continue;
      }
      recognised = true;
      for (const p of entries) {
        const asset: AssetRef | undefined = isIP(p.ip) ? hostAsset(p.ip) : undefined;
        if (!asset) {
          skipped += 1;
          continue;
        }
        if (hosts.first(p.ip)) yield tidyRecord({ type: 'asset', asset }, limits);
        if (p.status !== undefined && p.status !== 'open') continue;
        const key = [p.ip, p.port, p.protocol, p.name ?? '', p.banner ?? ''].join('|');
        if (!ports.first(key)) continue;
        const service: ServiceRecord = {
          type: 'service',
          asset,
          port: p.port,
          protocol: p.protocol,
          ...(p.name ? { name: p.name } : {}),
          ...(p.banner ? { banner: p.banner } : {}),
        };
        yield tidyRecord(service, limits);
      }
    }
    if (skipped > 0) context.warn(`${skipped} masscan entries without an IP address or port were skipped.`);
  },
};
