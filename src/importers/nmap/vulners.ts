import { isCveId } from '../../parsing/ids.js';
import { children, type XmlElement } from '../../parsing/xml.js';
import type { TextLimits } from '../common/limits.js';
import type { AssetRef, FindingRecord, Severity } from '../types.js';

/** One entry of the `vulners` NSE script: a known weakness of the software on a port. */
export interface VulnersEntry {
  /** The software as the script names it: "cpe:/a:openbsd:openssh:8.9p1". */
  cpe: string;
  /** "CVE-2023-38408", or a Vulners id such as "PACKETSTORM:173661" or a GUID. */
  id: string;
  /** Vulners' kind of record: "cve", "githubexploit", "packetstorm"… */
  type?: string;
  cvss?: number;
  exploit: boolean;
}

/**
 * Vulners scores by CVSS; these bounds turn a score into our severity (the first that the score
 * reaches wins; a score of 0 or none is Info).
 */
export const NMAP_SEVERITY_BY_CVSS = [
  { atLeast: 9, severity: 'Critical' },
  { atLeast: 7, severity: 'High' },
  { atLeast: 4, severity: 'Medium' },
  { atLeast: Number.MIN_VALUE, severity: 'Low' },
] as const satisfies readonly { atLeast: number; severity: Severity }[];

export function severityFromCvss(score: number | undefined): Severity {
  if (score === undefined || !Number.isFinite(score)) return 'Info';
  return NMAP_SEVERITY_BY_CVSS.find((band) => score >= band.atLeast)?.severity ?? 'Info';
}

function parseScore(text: string | undefined): number | undefined {
  const score = Number.parseFloat(text ?? '');
  return Number.isFinite(score) && score >= 0 && score <= 10 ? score : undefined;
}

/** The `<elem key="…">` values of a table, keys in lower case. */
function elems(table: XmlElement): Map<string, string> {
  const values = new Map<string, string>();
  for (const e of children(table, 'elem')) {
    const key = e.attributes.key?.toLowerCase();
    if (key) values.set(key, e.text.trim());
  }
  return values;
}

/** Entries from the structured tables (vulners 1.2 and later). */
function entriesFromTables(script: XmlElement): VulnersEntry[] {
  const entries: VulnersEntry[] = [];
  for (const software of children(script, 'table')) {
    const cpe = software.attributes.key?.trim() ?? '';
    for (const row of children(software, 'table')) {
      const values = elems(row);
      const id = values.get('id');
      if (!id) continue;
      entries.push({
        cpe,
        id,
        type: values.get('type') || undefined,
        cvss: parseScore(values.get('cvss')),
        exploit: values.get('is_exploit') === 'true',
      });
    }
  }
  return entries;
}

const OUTPUT_SOFTWARE = /^\s*(cpe:\/\S+?):?\s*$/;
const OUTPUT_ENTRY =
  /^\s+(\S+)\s+(\d{1,2}(?:\.\d+)?)\s+https?:\/\/vulners\.com\/([^/\s]+)\/\S+(\s+\*EXPLOIT\*)?/;

/** Entries read from the script's text, for old versions that wrote no tables. */
function entriesFromOutput(output: string): VulnersEntry[] {
  const entries: VulnersEntry[] = [];
  let cpe = '';
  for (const line of output.split('\n')) {
    const software = OUTPUT_SOFTWARE.exec(line);
    if (software) {
      cpe = software[1]!;
      continue;
    }
    const entry = OUTPUT_ENTRY.exec(line);
    if (entry)
      entries.push({
        cpe,
        id: entry[1]!,
        type: entry[3],
        cvss: parseScore(entry[2]),
        exploit: Boolean(entry[4]),
      });
  }
  return entries;
}

export function vulnersEntries(script: XmlElement): VulnersEntry[] {
  const fromTables = entriesFromTables(script);
  return fromTables.length > 0 ? fromTables : entriesFromOutput(script.attributes.output ?? '');
}

/** "openssh 8.9p1" from "cpe:/a:openbsd:openssh:8.9p1" (CPE 2.2 URI or 2.3 string). */
function softwareName(cpe: string): string | undefined {
  const parts = cpe.startsWith('cpe:2.3:')
    ? cpe.split(':').slice(3)
    : cpe
        .replace(/^cpe:\//, '')
        .split(':')
        .slice(2);
  const [product, version] = parts.filter((p) => p && p !== '*' && p !== '-');
  if (!product) return undefined;
  return version ? `${product} ${version}` : product;
}

/** The script's own line for the entry, as Nmap prints it. */
function outputLine(entry: VulnersEntry, link: string | undefined): string {
  const columns = [entry.id, entry.cvss?.toString() ?? '', link ?? ''];
  if (entry.exploit) columns.push('*EXPLOIT*');
  return `${entry.cpe}:\n\t${columns.join('\t')}`;
}

export interface PortRef {
  port: number;
  protocol: 'tcp' | 'udp';
}

export function vulnersFinding(
  asset: AssetRef,
  where: PortRef,
  entry: VulnersEntry,
  limits: TextLimits,
): FindingRecord {
  const cve = isCveId(entry.id);
  const id = limits.field(cve ? entry.id.toUpperCase() : entry.id, 'rule id') ?? entry.id;
  const software = softwareName(entry.cpe);
  // Vulners links keep the colon of ids such as "PACKETSTORM:173661".
  const path = `${encodeURIComponent(entry.type ?? '')}/${encodeURIComponent(entry.id).replaceAll('%3A', ':')}`;
  const link = entry.type ? `https://vulners.com/${path}` : undefined;
  const score = entry.cvss === undefined ? 'no CVSS score' : `CVSS ${entry.cvss}`;
  const exploit = entry.exploit ? ' Vulners knows a public exploit for it.' : '';
  const description = `${id} (${entry.type ?? 'vulners'}, ${score}) affects ${entry.cpe || 'the software Nmap identified'}, according to the Vulners database.${exploit}`;
  return {
    type: 'finding',
    asset,
    vulnerability: {
      ruleId: id,
      title: limits.field(software ? `${id} in ${software}` : id, 'title') ?? id,
      ...(cve ? { cveIds: [id] } : {}),
      description: limits.field(description, 'description'),
      ...(link ? { references: [limits.field(link, 'reference')!] } : {}),
    },
    location: { kind: 'Port', port: where.port, protocol: where.protocol },
    severity: severityFromCvss(entry.cvss),
    evidence: limits.evidence(outputLine(entry, link)),
  };
}
