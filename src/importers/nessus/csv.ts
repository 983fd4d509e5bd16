import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { cveIdsIn } from '../../parsing/ids.js';
import { type CsvRow, csvRows } from '../common/csv-rows.js';
import { cvss2Of, cvss3VectorOf } from '../common/cvss-score.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import {
  httpUrlsIn,
  isoDate,
  leadingScore,
  nonEmpty,
  SeenKeys,
  unique,
  withoutUndefined,
} from '../common/report-values.js';
import type {
  AssetRef,
  FindingRecord,
  ImportRecord,
  LocationRef,
  ParseContext,
  ServiceRecord,
  StateRef,
} from '../types.js';
import { cweIdsOf, fixedVersionIn, otherIds } from './refs.js';
import { nessusSeverity } from './severity.js';

/**
 * Tenable's CSV exports, three layouts with one reader (column names compared in lower case):
 * - Nessus Professional: "Plugin ID, CVE, CVSS, Risk, Host, Protocol, Port, Name, …";
 * - Tenable.sc (SecurityCenter): "Plugin, Plugin Name, Family, Severity, IP Address, …";
 * - Tenable Vulnerability Management (Tenable.io): "asset.*, definition.*, output, port, …",
 *   often semicolon-separated.
 * The first column name of each list below that has a value wins.
 */
const COLUMNS = {
  pluginId: ['plugin id', 'plugin', 'definition.id'],
  title: ['name', 'plugin name', 'definition.name'],
  severity: ['severity', 'risk', 'risk factor', 'definition.severity'],
  ip: ['ip address', 'asset.display_ipv4_address', 'asset.ipv4'],
  ipv6: ['asset.display_ipv6_address', 'asset.ipv6'],
  host: ['host'],
  fqdn: ['dns name', 'asset.display_fqdn', 'asset.fqdn'],
  netbios: ['netbios name', 'asset.netbios_name'],
  hostname: ['asset.host_name'],
  mac: ['mac address', 'asset.display_mac_address'],
  os: ['asset.operating_system', 'operating system'],
  assetName: ['asset.name'],
  protocol: ['protocol'],
  port: ['port'],
  synopsis: ['synopsis', 'definition.synopsis'],
  description: ['description', 'definition.description'],
  solution: ['solution', 'steps to remediate', 'definition.solution'],
  seeAlso: ['see also', 'definition.see_also'],
  output: ['plugin output', 'plugin text', 'output'],
  cve: ['cve', 'definition.cve'],
  bid: ['bid', 'definition.bugtraq'],
  xref: ['cross references', 'xref', 'definition.references'],
  cwe: ['definition.cwe'],
  // Nessus Professional's older exports call the v2 base score just "CVSS".
  cvss2Vector: ['cvss v2 vector', 'definition.cvss2.base_vector'],
  cvss2Score: ['cvss v2 base score', 'cvss v2.0 base score', 'definition.cvss2.base_score', 'cvss'],
  cvss3Vector: ['cvss v3 vector', 'definition.cvss3.base_vector'],
  cvss3Score: ['cvss v3 base score', 'cvss v3.0 base score', 'definition.cvss3.base_score', 'cvssv3'],
  published: ['vuln publication date', 'definition.vulnerability_published'],
  findingId: ['id'],
  state: ['state'],
  riskModified: ['risk_modified'],
  acceptRisk: ['accept risk comment'],
} as const satisfies Record<string, readonly string[]>;

type Column = keyof typeof COLUMNS;

/** True for the header row of one of the three layouts. */
export function isTenableCsvHeader(names: readonly string[]): boolean {
  const has = (name: string) => names.includes(name);
  const nessus = has('plugin id') && has('host') && (has('name') || has('risk'));
  const securityCenter = has('plugin') && has('plugin name') && (has('ip address') || has('dns name'));
  const vulnerabilityManagement = has('definition.id') && names.some((n) => n.startsWith('asset.'));
  return nessus || securityCenter || vulnerabilityManagement;
}

export async function* tenableCsvRecords(
  input: Readable,
  context: ParseContext,
): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  const seenServices = new SeenKeys();
  let pending: { key: string; finding: FindingRecord } | undefined;
  let warnedNoHost = false;
  const rows = csvRows(input, context, {
    isHeader: isTenableCsvHeader,
    expected: 'a Nessus or Tenable CSV export (columns such as "Plugin ID", "Host", "Name")',
  });
  for await (const row of rows) {
    const asset = assetOf(row, limits);
    if (!asset) {
      if (!warnedNoHost) context.warn(`Rows without a host (first at line ${row.line}) were skipped.`);
      warnedNoHost = true;
      continue;
    }
    const service = serviceOf(row, asset);
    if (service && seenServices.first(JSON.stringify([asset, service.protocol, service.port]))) yield service;
    const finding = findingOf(row, asset, limits);
    // Nessus Professional writes one row per CVE of a result: rows that differ only in the CVE
    // are one result, so they are joined back here (they come one after the other).
    const key = resultKey(row, asset);
    if (pending && pending.key === key) {
      pending.finding.vulnerability.cveIds = nonEmpty(
        unique([...(pending.finding.vulnerability.cveIds ?? []), ...(finding.vulnerability.cveIds ?? [])]),
      );
      continue;
    }
    if (pending) yield pending.finding;
    pending = { key, finding };
  }
  if (pending) yield pending.finding;
}

function value(row: CsvRow, column: Column): string | undefined {
  for (const name of COLUMNS[column]) {
    const cell = row.cells.get(name)?.trim();
    if (cell) return cell;
  }
  return undefined;
}

function resultKey(row: CsvRow, asset: AssetRef): string {
  const parts = ['pluginId', 'protocol', 'port', 'output', 'findingId'] as const;
  return JSON.stringify([asset, ...parts.map((column) => value(row, column) ?? '')]);
}

function list(text: string | undefined): string[] {
  return unique((text ?? '').split(/[\s,]+/));
}

/**
 * The BIDs of a "BID" cell ("11849, 33065"). A cell such as "1,184,933,065" is a list a
 * spreadsheet reformatted as one number; its ids cannot be told apart, so none is kept.
 */
function bidsOf(text: string | undefined): string[] {
  if (!text || /^\d{1,3}(,\d{3})+$/.test(text)) return [];
  return list(text);
}

function assetOf(row: CsvRow, limits: TextLimits): AssetRef | undefined {
  const host = value(row, 'host');
  // Kept as written: the import leaves out one that is not an address, and says so.
  const ipAddresses = unique([
    ...list(value(row, 'ip')),
    ...list(value(row, 'ipv6')),
    host && isIP(host) ? host : undefined,
  ]);
  const named = host && !isIP(host) ? host : undefined;
  const fqdn = value(row, 'fqdn') ?? (named?.includes('.') ? named : undefined);
  const hostname =
    value(row, 'netbios') ?? value(row, 'hostname') ?? (named && !named.includes('.') ? named : undefined);
  if (ipAddresses.length === 0 && !fqdn && !hostname) return undefined;
  return withoutUndefined<AssetRef>({
    kind: 'Host',
    name: limits.field(value(row, 'assetName'), 'host name'),
    ipAddresses: nonEmpty(ipAddresses),
    fqdn: limits.field(fqdn, 'host name'),
    hostname: limits.field(hostname, 'host name'),
    macAddresses: nonEmpty(list(value(row, 'mac')?.toLowerCase())),
    operatingSystem: limits.field(value(row, 'os')?.split('\n')[0], 'operating system'),
  });
}

function portOf(row: CsvRow): { port: number; protocol: 'tcp' | 'udp' } | undefined {
  const port = Number(value(row, 'port'));
  const protocol = value(row, 'protocol')?.toLowerCase();
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  return protocol === 'tcp' || protocol === 'udp' ? { port, protocol } : undefined;
}

function serviceOf(row: CsvRow, asset: AssetRef): ServiceRecord | undefined {
  const where = portOf(row);
  return where ? { type: 'service', asset, ...where } : undefined;
}

/** Tenable.sc starts each output with "Plugin Output: ". */
function pluginOutput(row: CsvRow): string | undefined {
  return value(row, 'output')
    ?.replace(/^Plugin Output:\s*/, '')
    .trim();
}

function stateOf(row: CsvRow): StateRef | undefined {
  if (value(row, 'state')?.toUpperCase() === 'FIXED')
    return { state: 'Fixed', reason: 'Tenable reports it fixed.' };
  const comment = value(row, 'acceptRisk');
  if (comment) return { state: 'RiskAccepted', reason: comment };
  if (value(row, 'riskModified')?.toUpperCase() === 'ACCEPTED')
    return { state: 'RiskAccepted', reason: 'Risk accepted in Tenable.' };
  return undefined;
}

function findingOf(row: CsvRow, asset: AssetRef, limits: TextLimits): FindingRecord {
  const pluginId = value(row, 'pluginId') ?? 'unknown';
  const xrefs = (value(row, 'xref') ?? '').split(/\n|,\s*(?![^[]*\])/);
  const ids = otherIds(xrefs, bidsOf(value(row, 'bid')));
  const where = portOf(row);
  const location: LocationRef = where ? { kind: 'Port', ...where } : { kind: 'None' };
  const output = pluginOutput(row);
  const solution = value(row, 'solution');
  return withoutUndefined<FindingRecord>({
    type: 'finding',
    asset,
    vulnerability: withoutUndefined({
      ruleId: pluginId,
      title: limits.field(value(row, 'title'), 'title') ?? `Nessus plugin ${pluginId}`,
      cveIds: nonEmpty(cveIdsIn(value(row, 'cve'))),
      aliases: nonEmpty(ids.aliases),
      description: limits.field(value(row, 'description') ?? value(row, 'synopsis'), 'description'),
      solution: limits.field(solution?.toLowerCase() === 'n/a' ? undefined : solution, 'solution'),
      cweIds: nonEmpty(unique([...cweIdsOf([value(row, 'cwe') ?? '']), ...ids.cweIds])),
      ...cvss2Of(leadingScore(value(row, 'cvss2Score')), value(row, 'cvss2Vector')),
      cvss3Vector: cvss3VectorOf(value(row, 'cvss3Vector'), '3.0'),
      cvss3Score: leadingScore(value(row, 'cvss3Score')),
      references: nonEmpty(httpUrlsIn(value(row, 'seeAlso'))),
      publishedAt: isoDate(value(row, 'published')),
    }),
    location,
    severity: nessusSeverity(value(row, 'severity')) ?? 'Info',
    evidence: limits.evidence(output),
    toolFindingId: limits.field(value(row, 'findingId'), 'finding id'),
    state: stateOf(row),
    fixedIn: limits.field(fixedVersionIn(output), 'fixed version'),
  });
}
