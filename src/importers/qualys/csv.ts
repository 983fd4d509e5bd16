import type { Readable } from 'node:stream';
import { cveIdsIn } from '../../parsing/ids.js';
import { type CsvRow, csvRows } from '../common/csv-rows.js';
import { htmlToText, linksIn } from '../common/html-text.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { nonEmpty, SeenKeys, unique, withoutUndefined } from '../common/report-values.js';
import type { AssetRef, ImportRecord, ParseContext } from '../types.js';
import { type Detection, portOf, qualysFinding } from './detection.js';
import { cvssVersionIn, type QidDetails, qualysCvss2, qualysCvss3 } from './qid.js';
import { qualysType } from './severity.js';

/**
 * Qualys VM CSV exports, one row per detection (host × QID × port). Two layouts are read:
 * - the scan and host-based reports ("IP, Network, DNS, NetBIOS, …, QID, Title, Vuln Status,
 *   Type, Severity, Port, Protocol, …, CVE ID, Vendor Reference, Bugtraq ID, CVSS3 Base, …,
 *   Threat, Impact, Solution, …, Results"), possibly after a title block;
 * - the PCI report ("IP, HOSTNAME, LAST SCAN, QID, VULN TITLE, TYPE, SEVERITY, …, Q_SEVERITY,
 *   THREAT, IMPACT, SOLUTION, …, RESULT, BUGTRAQID, CVEID"), whose SEVERITY is the PCI rating:
 *   Q_SEVERITY, the Qualys level, is used instead.
 * The first column name of each list below that has a value wins.
 */
const COLUMNS = {
  ip: ['ip'],
  dns: ['dns', 'hostname'],
  netbios: ['netbios'],
  os: ['os', 'operating system'],
  qid: ['qid'],
  title: ['title', 'vuln title'],
  type: ['type'],
  level: ['q_severity', 'severity'],
  port: ['port'],
  protocol: ['protocol'],
  status: ['vuln status'],
  cve: ['cve id', 'cveid'],
  vendor: ['vendor reference'],
  bid: ['bugtraq id', 'bugtraqid'],
  cvss2Base: ['cvss base', 'cvss_base'],
  cvss2Temporal: ['cvss temporal', 'cvss_temporal'],
  cvss3Base: ['cvss3.1 base', 'cvss3 base'],
  cvss3Temporal: ['cvss3.1 temporal', 'cvss3 temporal'],
  threat: ['threat'],
  impact: ['impact'],
  solution: ['solution'],
  result: ['results', 'result'],
} as const satisfies Record<string, readonly string[]>;

type Column = keyof typeof COLUMNS;

/** True for the column names row of a Qualys VM CSV report. */
export function isQualysCsvHeader(names: readonly string[]): boolean {
  return (
    names.includes('qid') && (names.includes('title') || names.includes('vuln title')) && names.includes('ip')
  );
}

/** Qualys scan reports start with a title block (report name, company, scan details) of about ten rows. */
const MAX_TITLE_ROWS = 100;

export async function* qualysCsvRecords(
  input: Readable,
  context: ParseContext,
): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  const seenServices = new SeenKeys();
  let warnedNoHost = false;
  const rows = csvRows(input, context, {
    isHeader: isQualysCsvHeader,
    expected: 'a Qualys CSV report (columns such as "IP", "QID", "Title")',
    maxPreambleRows: MAX_TITLE_ROWS,
  });
  for await (const row of rows) {
    const asset = assetOf(row, limits);
    const qid = value(row, 'qid');
    if (!asset || !qid) {
      if (!warnedNoHost)
        context.warn(`Rows without a host or a QID (first at line ${row.line}) were skipped.`);
      warnedNoHost = true;
      continue;
    }
    const where = portOf(value(row, 'port'), value(row, 'protocol'));
    if (where && seenServices.first(JSON.stringify([asset, where])))
      yield { type: 'service', asset, ...where };
    const detection: Detection = withoutUndefined({
      qid,
      asset,
      type: qualysType(value(row, 'type')),
      ...where,
      result: limits.evidence(value(row, 'result')),
      status: value(row, 'status'),
    });
    yield qualysFinding(detection, detailsOf(row, limits), value(row, 'level'));
  }
}

function value(row: CsvRow, column: Column): string | undefined {
  for (const name of COLUMNS[column]) {
    const cell = row.cells.get(name)?.trim();
    // Qualys writes "-" for "none" in some columns (BUGTRAQID, CVSS).
    if (cell && cell !== '-') return cell;
  }
  return undefined;
}

function assetOf(row: CsvRow, limits: TextLimits): AssetRef | undefined {
  const ip = value(row, 'ip');
  const dns = value(row, 'dns');
  // Kept as written: the import leaves out one that is not an address, and says so.
  const ipAddresses = ip ? [ip] : [];
  const fqdn = dns?.includes('.') ? dns : undefined;
  const hostname = value(row, 'netbios') ?? (dns && !fqdn ? dns : undefined);
  if (ipAddresses.length === 0 && !fqdn && !hostname) return undefined;
  return withoutUndefined<AssetRef>({
    kind: 'Host',
    ipAddresses: nonEmpty(ipAddresses),
    fqdn: limits.field(fqdn, 'host name'),
    hostname: limits.field(hostname, 'host name'),
    operatingSystem: limits.field(value(row, 'os'), 'operating system'),
  });
}

function list(text: string | undefined): string[] {
  return unique((text ?? '').split(','));
}

function detailsOf(row: CsvRow, limits: TextLimits): QidDetails {
  const threat = value(row, 'threat');
  const impact = value(row, 'impact');
  const solution = value(row, 'solution');
  const impactText = impact && htmlToText(impact);
  const description = [threat && htmlToText(threat), impactText && `Impact: ${impactText}`]
    .filter(Boolean)
    .join('\n\n');
  const version = row.cells.has('cvss3.1 base') ? '3.1' : cvssVersionIn(undefined);
  return withoutUndefined<QidDetails>({
    title: limits.field(value(row, 'title'), 'title') ?? '',
    cveIds: nonEmpty(cveIdsIn(value(row, 'cve'))),
    aliases: nonEmpty(
      unique([...list(value(row, 'bid')).map((bid) => `BID:${bid}`), ...list(value(row, 'vendor'))]),
    ),
    description: limits.field(description, 'description'),
    solution: limits.field(solution && htmlToText(solution), 'solution'),
    references: nonEmpty(linksIn(`${threat ?? ''} ${solution ?? ''}`)),
    ...qualysCvss2(value(row, 'cvss2Base'), value(row, 'cvss2Temporal')),
    ...qualysCvss3(value(row, 'cvss3Base'), value(row, 'cvss3Temporal'), version),
  });
}
