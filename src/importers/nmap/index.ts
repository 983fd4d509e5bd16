/**
 * Nmap XML output (`nmap -oX`).
 *
 * - Each live host (`<status state="up">`) is an asset: IPv4/IPv6/MAC addresses, the scanned name
 *   (hostname), the reverse-DNS name (FQDN) and the best OS match.
 * - Each `state="open"` TCP/UDP port is a `service` record (name, product, version, CPE, banner).
 *   Open ports are not findings: DefectDojo's "Open port" findings are services here.
 * - Each entry of the `vulners` NSE script on a port is a finding: rule id = the CVE (or Vulners
 *   id), located on that port.
 * - A live host with no open port yields an `asset` record so the scan still vouches for it.
 *
 * Severity (vulners entries; Nmap has none of its own), by the entry's CVSS score — see
 * NMAP_SEVERITY_BY_CVSS:
 *
 * | CVSS         | Severity |
 * |--------------|----------|
 * | ≥ 9.0        | Critical |
 * | 7.0 – 8.9    | High     |
 * | 4.0 – 6.9    | Medium   |
 * | 0.1 – 3.9    | Low      |
 * | 0 or missing | Info     |
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { xmlElements } from '../../parsing/xml.js';
import { textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import { hostRecords } from './host.js';

export { NMAP_SEVERITY_BY_CVSS, severityFromCvss } from './vulners.js';

function detect(head: string): number {
  if (!/<nmaprun[\s>]/.test(head)) return 0;
  // masscan writes the same layout; a masscan reader should win when there is one.
  if (/<nmaprun[^>]*\bscanner="masscan"/.test(head)) return 0.5;
  return /<nmaprun[^>]*\bscanner="nmap"/.test(head) ? 1 : 0.9;
}

async function* parse(source: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined) throw new ReportError('The report is empty: expected Nmap XML output (-oX).');
  if (first !== '<') throw new ReportError(`Not an Nmap XML report: it starts with "${first}", not "<".`);
  const limits = textLimits(context);
  const skippedProtocols = new Set<string>();
  const pick = (name: string, ancestors: readonly { name: string }[]) => {
    if (ancestors.length === 0 && name !== 'nmaprun')
      throw new ReportError(`Not an Nmap XML report: the root element is <${name}>, not <nmaprun>.`);
    return name === 'host' && ancestors.length === 1;
  };
  try {
    for await (const { element } of xmlElements(input, pick))
      yield* hostRecords(element, context, limits, skippedProtocols);
  } finally {
    // A failed or abandoned read must still close the file.
    input.destroy();
  }
}

export const nmapImporter: Importer = {
  format: 'nmap',
  label: 'Nmap XML (-oX)',
  tool: 'Nmap',
  detect,
  parse,
};
