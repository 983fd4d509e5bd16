import type { TextLimits } from '../common/limits.js';
import { withoutUndefined } from '../common/report-values.js';
import type { AssetRef, FindingRecord, ServiceRecord } from '../types.js';
import type { QidDetails } from './qid.js';
import { type QualysType, qualysSeverity } from './severity.js';

/** One QID found on one host (and port), before the knowledge base names it. */
export interface Detection {
  qid: string;
  asset: AssetRef;
  type?: QualysType;
  port?: number;
  protocol?: 'tcp' | 'udp';
  /** The RESULT text, already cut to the evidence limit. */
  result?: string;
  /** New, Active, Re-Opened or Fixed. */
  status?: string;
}

/** A port and protocol from Qualys's text; port 0 or none means the host as a whole. */
export function portOf(
  port: string | undefined,
  protocol: string | undefined,
): { port: number; protocol: 'tcp' | 'udp' } | undefined {
  const number = Number(port?.trim() || Number.NaN);
  const name = protocol?.trim().toLowerCase();
  if (!Number.isInteger(number) || number <= 0 || number > 65535) return undefined;
  return name === 'tcp' || name === 'udp' ? { port: number, protocol: name } : undefined;
}

/** The finding of a detection; `level` is the QID's 1–5 severity. */
export function qualysFinding(
  detection: Detection,
  details: QidDetails | undefined,
  level: string | undefined,
): FindingRecord {
  const { qid, asset, port, protocol, result, status } = detection;
  return withoutUndefined<FindingRecord>({
    type: 'finding',
    asset,
    vulnerability: withoutUndefined({
      ruleId: qid,
      ...details,
      title: details?.title || `Qualys QID ${qid}`,
    }),
    location: port && protocol ? { kind: 'Port', port, protocol } : { kind: 'None' },
    severity: qualysSeverity(level, detection.type),
    evidence: result,
    state:
      status?.trim().toLowerCase() === 'fixed'
        ? { state: 'Fixed', reason: 'Qualys reports it fixed.' }
        : undefined,
  });
}

/**
 * The services of one host, each port once. A port may show up nameless (a vulnerability's
 * port) before a service list names it, so names are merged before any record is made.
 */
export class HostServices {
  private readonly names = new Map<string, { port: number; protocol: 'tcp' | 'udp'; name?: string }>();

  constructor(private readonly asset: AssetRef) {}

  note(port: number, protocol: 'tcp' | 'udp', name?: string): void {
    const key = `${protocol}/${port}`;
    const known = this.names.get(key);
    if (!known) this.names.set(key, { port, protocol, ...(name ? { name } : {}) });
    else if (!known.name && name) known.name = name;
  }

  records(limits: TextLimits): ServiceRecord[] {
    return [...this.names.values()].map(({ port, protocol, name }) => {
      const serviceName = limits.field(name, 'service name');
      return {
        type: 'service',
        asset: this.asset,
        port,
        protocol,
        ...(serviceName ? { name: serviceName } : {}),
      };
    });
  }
}
