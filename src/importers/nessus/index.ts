/**
 * Nessus and Tenable reports: the .nessus v2 XML file (Nessus, Tenable.sc, Tenable Vulnerability
 * Management and Web App Scanning all export it) and Tenable's CSV exports (Nessus Professional,
 * Tenable.sc, Tenable Vulnerability Management layouts). One importer reads both: `parse` looks
 * at the first character of the stream (`<` is XML, anything else CSV), so clients pick "nessus"
 * whatever the export.
 *
 * Severity (NESSUS_SEVERITY): Nessus's own 0–4 level, kept as is —
 *   0 / None / Info → Info, 1 / Low → Low, 2 / Medium → Medium, 3 / High → High,
 *   4 / Critical → Critical.
 * DefectDojo re-derives the severity from cvss3_base_score when a plugin has one; we keep the
 * scanner's rating (it already follows the scan's CVSS v2/v3/VPR setting).
 *
 * CVSS v3 vectors are kept as Tenable writes them; the CSV exports leave out the "CVSS:3.0/"
 * prefix, which is added back (Tenable's plugins rate with CVSS 3.0).
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { csvHeadLines } from '../common/csv-rows.js';
import { peekStart } from '../common/stream-start.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import { isTenableCsvHeader, tenableCsvRecords } from './csv.js';
import { nessusXmlRecords } from './xml.js';

export { NESSUS_SEVERITY } from './severity.js';

function detect(head: string): number {
  if (/<NessusClientData_v2[\s>]/.test(head)) return 1;
  if (/^\s*</.test(head.replace(/^\uFEFF/, ''))) return 0;
  const [names] = csvHeadLines(head);
  return names && isTenableCsvHeader(names) ? 0.9 : 0;
}

async function* parse(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const start = await peekStart(input);
  if (start.first === undefined) throw new ReportError('The file is empty.');
  if (start.first === '<') yield* nessusXmlRecords(start.input, context);
  else yield* tenableCsvRecords(start.input, context);
}

export const nessusImporter: Importer = {
  format: 'nessus',
  label: 'Nessus / Tenable (.nessus v2 XML, CSV export)',
  tool: 'Nessus',
  detect,
  parse,
};
