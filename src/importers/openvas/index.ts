/**
 * OpenVAS / Greenbone (GVM) reports: the XML report format (classic OMP layout of OpenVAS 8/9
 * and the current GMP layout of GVM 10+, bare or wrapped in <get_reports_response>) and the
 * "CSV Results" format. One importer reads both: `parse` looks at the first character of the
 * stream (`<` is XML, anything else CSV).
 *
 * Severity (OPENVAS_THREAT): the result's threat level, the tool's own rating —
 *   Critical → Critical, High → High, Medium → Medium, Low → Low, Log/Debug → Info;
 *   without a level, the score with the CVSS v3.x bands (≥9.0 Critical, ≥7.0 High, ≥4.0 Medium,
 *   >0 Low, 0 Info). "False Positive" (an override) keeps the original level, state FalsePositive.
 *
 * CVSS v3/v4 vectors come from <severities> (or the cvss_base_vector tag) with their own
 * "CVSS:3.x/" prefix; the CSV gives only a score of unknown CVSS version, used for nothing else.
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { csvHeadLines } from '../common/csv-rows.js';
import { peekStart } from '../common/stream-start.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import { isOpenvasCsvHeader, openvasCsvRecords } from './csv.js';
import { openvasXmlRecords } from './xml.js';

export { OPENVAS_THREAT } from './severity.js';

function detect(head: string): number {
  const text = head.replace(/^\uFEFF/, '');
  if (/^\s*</.test(text)) {
    const report = /<(report|get_reports_response)[\s>]/.test(text);
    const openvas =
      /<(nvt oid=|results[\s>]|scan_run_status>|omp>|gmp>)|format_id="a994b278-1f62-11e1-96ac-406186ea4fc5"/;
    return report && openvas.test(text) ? 0.95 : 0;
  }
  const [names] = csvHeadLines(text);
  return names && isOpenvasCsvHeader(names) ? 0.9 : 0;
}

async function* parse(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const start = await peekStart(input);
  if (start.first === undefined) throw new ReportError('The file is empty.');
  if (start.first === '<') yield* openvasXmlRecords(start.input, context);
  else yield* openvasCsvRecords(start.input, context);
}

export const openvasImporter: Importer = {
  format: 'openvas',
  label: 'OpenVAS / Greenbone (XML report, CSV results)',
  tool: 'OpenVAS',
  detect,
  parse,
};
