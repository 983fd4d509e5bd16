/**
 * Qualys VM reports: the XML scan report (root SCAN, scan-1.dtd), the XML Asset Data Report
 * (root ASSET_DATA_REPORT: HOST_LIST then the QID GLOSSARY) and the CSV exports (scan or
 * host-based report, PCI report). One importer reads them all: `parse` looks at the first
 * character of the stream (`<` is XML, anything else CSV), and the XML reader follows the
 * layout of the elements it meets.
 *
 * Severity (QUALYS_SEVERITY): the QID's level 1–5 (Minimal, Medium, Serious, Critical, Urgent) —
 *   1 → Info, 2 → Low, 3 → Medium, 4 → High, 5 → Critical,
 * for confirmed (Vuln) and potential (Practice) vulnerabilities; information gathered (Ig,
 * INFO, SERVICE) is Info whatever its level. See ./severity.ts for the reasoning.
 *
 * CVSS v3: base and temporal vectors are joined into one vector string prefixed "CVSS:3.0/"
 * ("CVSS:3.1/" when the report names 3.1); the score is the base score.
 */
import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { csvHeadLines } from '../common/csv-rows.js';
import { peekStart } from '../common/stream-start.js';
import type { Importer, ImportRecord, ParseContext } from '../types.js';
import { isQualysCsvHeader, qualysCsvRecords } from './csv.js';
import { qualysXmlRecords } from './xml.js';

export { QUALYS_SEVERITY } from './severity.js';

/** Title rows of a scan report CSV looked through for the header row. */
const DETECT_LINES = 30;

function detect(head: string): number {
  const text = head.replace(/^\uFEFF/, '');
  if (/^\s*</.test(text)) {
    if (/<ASSET_DATA_REPORT[\s>]/.test(text)) return 1;
    if (/<!DOCTYPE SCAN\b|<SCAN[\s>]/.test(text) && /<(IP value=|HEADER>)|scan-1\.dtd/.test(text))
      return 0.95;
    return 0;
  }
  return csvHeadLines(text, DETECT_LINES).some(isQualysCsvHeader) ? 0.9 : 0;
}

async function* parse(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const start = await peekStart(input);
  if (start.first === undefined) throw new ReportError('The file is empty.');
  if (start.first === '<') yield* qualysXmlRecords(start.input, context);
  else yield* qualysCsvRecords(start.input, context);
}

export const qualysImporter: Importer = {
  format: 'qualys',
  label: 'Qualys VM (XML scan report, Asset Data Report, CSV)',
  tool: 'Qualys',
  detect,
  parse,
};
