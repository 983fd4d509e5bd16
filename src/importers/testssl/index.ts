/**
 * testssl.sh CSV reports (`--csvfile`): one row per check with the columns
 * `id, fqdn/ip, port, severity, finding, cve, cwe` (testssl 3.x; 2.9 adds none that matter).
 *
 * - One finding per row that reports something: rows rated OK are passed over (the check
 *   passed), and so are the rating rows (`overall_grade`, `final_score`, the `*_score*` and
 *   `rating_*` rows, `grade_cap_reason_*`), which summarise the other rows rather than report a
 *   weakness — as DefectDojo does. INFO rows are kept (as DefectDojo does), rated Info.
 * - DefectDojo splits a row naming several CVEs into one finding per CVE and merges equal
 *   (finding text, id, CVE) across hosts; Rampart keeps one finding per row with all its CVEs
 *   (one weakness on one host and port) and the import service merges repeats.
 * - Asset: a Host from `fqdn/ip` ("name/address"; either part may be empty).
 * - Location: the port (TCP).
 * - Rule id: the check's `id` ("DROWN", "cipher_order"…), also the title; description: the
 *   `finding` text; CVE ids from `cve`, CWE ids from `cwe`.
 *
 * Severity — see TESTSSL_SEVERITY:
 *
 * | testssl.sh severity | Severity          |
 * |---------------------|-------------------|
 * | CRITICAL            | Critical          |
 * | HIGH                | High              |
 * | MEDIUM              | Medium            |
 * | LOW                 | Low               |
 * | WARN, FATAL         | Info (a problem of the scan itself, e.g. no engine support) |
 * | INFO                | Info              |
 * | OK                  | not imported      |
 */
import type { Readable } from 'node:stream';
import { cveIdsIn, cweIdsIn } from '../../parsing/ids.js';
import { type CsvRow, csvHeadLines, csvRows } from '../common/csv-rows.js';
import { textLimits } from '../common/limits.js';
import { hostAsset, portLocation, portNumber } from '../common/network-target.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { FindingRecord, Importer, ImportRecord, ParseContext, Severity } from '../types.js';

export const TESTSSL_SEVERITY: Readonly<Record<string, Severity | null>> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  LOW: 'Low',
  WARN: 'Info',
  FATAL: 'Info',
  INFO: 'Info',
  OK: null,
};

/** Rows that grade the scan as a whole rather than report a weakness. */
const RATING_IDS = new Set([
  'rating_spec',
  'rating_doc',
  'protocol_support_score',
  'protocol_support_score_weighted',
  'key_exchange_score',
  'key_exchange_score_weighted',
  'cipher_strength_score',
  'cipher_strength_score_weighted',
  'final_score',
  'overall_grade',
]);

const REQUIRED = ['id', 'fqdn/ip', 'port', 'severity', 'finding'] as const;

/** True for the header row of a testssl.sh CSV file. */
export function isTestsslHeader(names: readonly string[]): boolean {
  return REQUIRED.every((name) => names.includes(name));
}

function detect(head: string): number {
  const [names] = csvHeadLines(head);
  if (!names || !isTestsslHeader(names)) return 0;
  return names.includes('cve') && names.includes('cwe') ? 0.95 : 0.85;
}

function cell(row: CsvRow, name: string): string {
  return row.cells.get(name)?.trim() ?? '';
}

async function* parse(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  const warned = new Set<string>();
  const warnOnce = (key: string, message: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    context.warn(message);
  };
  const rows = csvRows(input, context, {
    isHeader: isTestsslHeader,
    expected:
      'a testssl.sh CSV report (columns "id", "fqdn/ip", "port", "severity", "finding", "cve", "cwe")',
  });
  for await (const row of rows) {
    const id = cell(row, 'id');
    const rated = cell(row, 'severity').toUpperCase();
    const severity = TESTSSL_SEVERITY[rated];
    if (severity === null) continue;
    if (RATING_IDS.has(id) || id.startsWith('grade_cap_reason_')) continue;
    if (severity === undefined) {
      warnOnce(
        `severity ${rated}`,
        `Rows with the unknown severity "${rated}" (first at line ${row.line}) were read as Info.`,
      );
    }
    const [name = '', ip] = cell(row, 'fqdn/ip').split('/');
    const asset = hostAsset(name, ip);
    const port = portNumber(cell(row, 'port'));
    if (!id || !asset || !port) {
      warnOnce(
        'incomplete',
        `Rows without an id, a host or a port (first at line ${row.line}) were skipped.`,
      );
      continue;
    }
    const finding = cell(row, 'finding');
    yield tidyRecord<FindingRecord>(
      {
        type: 'finding',
        asset,
        vulnerability: {
          ruleId: id,
          title: id,
          description: finding,
          cveIds: cveIdsIn(cell(row, 'cve')),
          cweIds: cweIdsIn(cell(row, 'cwe')),
        },
        location: portLocation(port),
        severity: severity ?? 'Info',
        evidence: finding,
      },
      limits,
    );
  }
}

export const testsslImporter: Importer = {
  format: 'testssl',
  label: 'testssl.sh (CSV)',
  tool: 'testssl.sh',
  detect,
  parse,
};
