import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asObject } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { csvRows } from '../common/csv-rows.js';
import type { ParseContext } from '../types.js';
import { Fields, looseName } from './fields.js';
import type { GenericItem } from './map.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const GENERIC_SHAPE = shapeCheck('a Generic Findings Import report', [
  // An object is named as such by the reader ("no findings list"); its elements are checked there too.
  ['findings', 'array|object?', 'a list of findings'],
]);

/** Columns a generic CSV must have (DefectDojo also requires Date and Description; Rampart does not). */
export const REQUIRED_CSV_COLUMNS = ['Title', 'Severity'] as const;

/**
 * The findings of the JSON layout, `{ "findings": [ {…}, … ] }`, one at a time. Other top-level
 * fields (name, type, version…) describe DefectDojo's test and are not needed.
 */
export async function* jsonItems(input: Readable, context: ParseContext): AsyncGenerator<GenericItem> {
  let sawFindings = false;
  let findingsIsList = true;
  const pick = (path: JsonPath): boolean => {
    if (path[0] !== 'findings') return false;
    if (path.length === 1) sawFindings = true;
    if (path.length !== 2) return false;
    if (typeof path[1] !== 'number') findingsIsList = false;
    return typeof path[1] === 'number';
  };
  const maxStringChars = Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1;
  for await (const { path, value } of jsonValues(input, pick, { onValue: GENERIC_SHAPE, maxStringChars })) {
    const where = `findings[${path[1]}]`;
    const finding = asObject(value);
    if (!finding) throw new ReportError(`Not a Generic Findings Import report: ${where} is not an object.`);
    yield { fields: new Fields(Object.entries(finding)), where };
  }
  if (!sawFindings || !findingsIsList)
    throw new ReportError('Not a Generic Findings Import report: the JSON object has no "findings" list.');
}

/** The rows of the CSV layout (header row first), one at a time. */
export async function* csvItems(input: Readable, context: ParseContext): AsyncGenerator<GenericItem> {
  const rows = csvRows(input, context, {
    expected: 'a Generic Findings Import CSV file',
    isHeader: (names) => {
      requireColumns(names);
      return true;
    },
  });
  for await (const row of rows)
    yield { fields: new Fields(row.cells), where: `line ${row.line}`, line: row.line };
}

/** Column names are matched loosely ("title", "TITLE", " Title "), as every other field is. */
function requireColumns(names: readonly string[]): void {
  const present = new Set(names.map(looseName));
  const missing = REQUIRED_CSV_COLUMNS.filter((column) => !present.has(looseName(column)));
  if (missing.length === 0) return;
  const shown = names.slice(0, 12).join(', ');
  throw new ReportError(
    `Not a Generic Findings Import CSV file: the header row lacks the required column${missing.length > 1 ? 's' : ''} ${missing.join(' and ')} (its columns: ${shown}).`,
    1,
    1,
  );
}
