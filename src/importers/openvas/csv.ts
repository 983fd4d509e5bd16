import type { Readable } from 'node:stream';
import { cveIdsIn } from '../../parsing/ids.js';
import { type CsvRow, csvRows } from '../common/csv-rows.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { httpUrlsIn, nonEmpty, SeenKeys, unique, withoutUndefined } from '../common/report-values.js';
import type { AssetRef, FindingRecord, ImportRecord, ParseContext } from '../types.js';
import {
  describe,
  fixedVersionIn,
  isPlaceholder,
  locationOf,
  OpenvasHosts,
  type OpenvasPort,
  serviceOf,
  unwrap,
} from './result.js';
import { isFalsePositive, openvasSeverity } from './severity.js';

/** True for the header row of Greenbone's "CSV Results" report format. */
export function isOpenvasCsvHeader(names: readonly string[]): boolean {
  return names.includes('ip') && (names.includes('nvt oid') || names.includes('nvt name'));
}

/**
 * Reads Greenbone's "CSV Results" export: one row per result, columns IP, Hostname, Port,
 * Port Protocol, CVSS, Severity (the threat level), QoD, Solution Type, NVT Name, Summary,
 * Specific Result, NVT OID, CVEs, …, BIDs, CERTs, Other References.
 */
export async function* openvasCsvRecords(
  input: Readable,
  context: ParseContext,
): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  const seenServices = new SeenKeys();
  const hosts = new OpenvasHosts(context, limits);
  let warnedNoHost = false;
  const rows = csvRows(input, context, {
    isHeader: isOpenvasCsvHeader,
    expected: 'an OpenVAS CSV report (columns such as "IP", "NVT Name", "NVT OID")',
  });
  for await (const row of rows) {
    const asset = hosts.asset(cell(row, 'ip'), cell(row, 'hostname'));
    if (!asset && hosts.isUnnamed(cell(row, 'ip'))) {
      hosts.skip(cell(row, 'ip')!);
      continue;
    }
    if (!asset) {
      if (!warnedNoHost)
        context.warn(`Rows without an IP or host name (first at line ${row.line}) were skipped.`);
      warnedNoHost = true;
      continue;
    }
    const where = portOf(row);
    const service = serviceOf(asset, where);
    if (service && seenServices.first(JSON.stringify([asset, service.port, service.protocol]))) yield service;
    yield findingOf(row, asset, where, limits);
  }
}

function cell(row: CsvRow, name: string): string | undefined {
  return row.cells.get(name)?.trim() || undefined;
}

function portOf(row: CsvRow): OpenvasPort {
  const port = Number(cell(row, 'port'));
  const protocol = cell(row, 'port protocol')?.toLowerCase();
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return {};
  return protocol === 'tcp' || protocol === 'udp' ? { port, protocol } : {};
}

/** A comma-separated id column, placeholders ("NOBID") left out. */
function ids(row: CsvRow, name: string): string[] {
  return unique((cell(row, name) ?? '').split(',')).filter((id) => !isPlaceholder(id));
}

function findingOf(row: CsvRow, asset: AssetRef, where: OpenvasPort, limits: TextLimits): FindingRecord {
  const oid = cell(row, 'nvt oid') ?? 'unknown';
  const threat = cell(row, 'severity');
  const falsePositive = isFalsePositive(threat);
  const evidence = cell(row, 'specific result');
  const references = cell(row, 'other references');
  const description = describe({
    summary: cell(row, 'summary'),
    insight: cell(row, 'vulnerability insight'),
    impact: cell(row, 'impact'),
    affected: cell(row, 'affected software/os'),
    vuldetect: cell(row, 'vulnerability detection method'),
  });
  return withoutUndefined<FindingRecord>({
    type: 'finding',
    asset,
    vulnerability: withoutUndefined({
      ruleId: oid,
      title: limits.field(cell(row, 'nvt name'), 'title') ?? `OpenVAS NVT ${oid}`,
      cveIds: nonEmpty(cveIdsIn(cell(row, 'cves'))),
      aliases: nonEmpty(unique([...ids(row, 'bids').map((bid) => `BID:${bid}`), ...ids(row, 'certs')])),
      description: limits.field(description, 'description'),
      solution: limits.field(unwrap(cell(row, 'solution')), 'solution'),
      references: nonEmpty(httpUrlsIn(references)),
    }),
    location: locationOf(where),
    // The CSV gives no CVSS version, so its score only serves when the level is missing.
    severity: falsePositive ? 'Info' : openvasSeverity(threat, cell(row, 'cvss')),
    evidence: limits.evidence(evidence),
    toolFindingId: limits.field(cell(row, 'result id'), 'result id'),
    state: falsePositive
      ? { state: 'FalsePositive', reason: 'An OpenVAS override marks it a false positive.' }
      : undefined,
    fixedIn: limits.field(fixedVersionIn(evidence), 'fixed version'),
  });
}
