import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { peekBytes } from '../../lib/peek-stream.js';
import { guarded, LineGuard } from '../../parsing/byte-guards.js';
import {
  count,
  ParseLimitError,
  type ParseLimits,
  parseLimits,
  settingOf,
} from '../../parsing/parse-limits.js';
import { ReportError } from '../../parsing/report-error.js';
import { wellFormed } from '../../parsing/well-formed.js';
import type { ParseContext } from '../types.js';

/** One data row: cells by column name (trimmed, lower case), and the line it ends on. */
export interface CsvRow {
  line: number;
  cells: Map<string, string>;
}

export interface CsvRowsOptions {
  /** True for the row of column names (given trimmed and lower case). */
  isHeader(names: readonly string[]): boolean;
  /** What the file should be, for the error when no header row is found: "a Nessus CSV export". */
  expected: string;
  /** Rows before the header to pass over (report titles some tools write first); default 0. */
  maxPreambleRows?: number;
  /** Row size, cells per row and rows the file may reach; default: the configured parseLimits(). */
  limits?: ParseLimits;
}

/** How much of the file is read to find the first line and guess its delimiter. */
const HEAD_BYTES = 64 * 1024;
const DELIMITERS = [',', ';', '\t'] as const;

/**
 * Streams the data rows of a CSV report: the header row is found by `isHeader` (after at most
 * `maxPreambleRows` other rows), the delimiter (comma, semicolon or tab) is guessed from the
 * first line, rows with nothing in them are skipped, and every cell is cut to the larger of the
 * import's field and evidence limits (the caller applies the exact limit per field).
 *
 * Rows are read as arrays rather than with csv-parse's `columns: true` because some exports put
 * a title block before the header row.
 *
 * Hostile files: the bytes pass a LineGuard (line length, line count) before csv-parse sees
 * them; a row longer than limits.maxTextBytes (a runaway quote, a binary file) or with more
 * than limits.maxAttributes cells fails the report where it is, before the row is built; cells
 * are made storable (a NUL is dropped).
 */
export async function* csvRows(
  input: Readable,
  context: ParseContext,
  options: CsvRowsOptions,
): AsyncGenerator<CsvRow> {
  const limits = options.limits ?? parseLimits();
  const peeked = await peekText(input, HEAD_BYTES);
  const { head } = peeked;
  if (head.replace(/^\uFEFF/, '').trim() === '') throw new ReportError('The file is empty.');
  const stream = guarded(peeked.stream, new LineGuard(limits));
  const parser = parse({
    delimiter: guessDelimiter(head),
    bom: true,
    info: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: limits.maxTextBytes,
    // Called for every cell as it ends: the row is refused before it holds more than the limit.
    cast: (value, cell) => {
      if (cell.index >= limits.maxAttributes)
        throw new ParseLimitError(
          'maxAttributes',
          `A CSV row with more than ${count(limits.maxAttributes)} cells ${settingOf('maxAttributes')}`,
          cell.lines,
          1,
        );
      return value;
    },
  });
  stream.on('error', (error) => parser.destroy(error));
  stream.pipe(parser);

  const maxCell = Math.max(context.maxFieldChars, context.maxEvidenceChars);
  const maxPreamble = options.maxPreambleRows ?? 0;
  let header: string[] | undefined;
  let rowsBeforeHeader = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (!header) {
        const names = record.map((name) => name.trim().toLowerCase());
        if (options.isHeader(names)) header = names;
        else if (++rowsBeforeHeader > maxPreamble) throw notExpected(options.expected, names, info.lines);
        continue;
      }
      if (record.every((cell) => cell.trim() === '')) continue;
      yield { line: info.lines, cells: cellsOf(header, record, maxCell) };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines ?? 0;
      if (error.code === 'CSV_MAX_RECORD_SIZE')
        throw new ParseLimitError(
          'maxTextBytes',
          `A CSV row longer than ${count(limits.maxTextBytes)} characters ${settingOf('maxTextBytes')}`,
          line,
          1,
        );
      throw new ReportError(`Not a readable CSV file: ${error.message}`, line, 1);
    }
    throw error;
  } finally {
    // Stopping early (a bad header, a failed consumer) must release the file.
    stream.destroy();
  }
  if (!header) throw new ReportError(`Not ${options.expected}: no row of column names was found.`);
}

function notExpected(expected: string, names: string[], line: number): ReportError {
  const shown = names.slice(0, 8).join(', ');
  return new ReportError(`Not ${expected}: the columns are "${shown}".`, line, 1);
}

function cellsOf(header: string[], record: string[], maxCell: number): Map<string, string> {
  const cells = new Map<string, string>();
  header.forEach((name, i) => {
    const value = record[i];
    // A repeated column name keeps its first non-empty value.
    if (name === '' || value === undefined || cells.get(name)) return;
    cells.set(name, wellFormed(value.length > maxCell ? value.slice(0, maxCell + 1) : value));
  });
  return cells;
}

/** The delimiter that splits the first line most, outside quotes; comma when none does. */
export function guessDelimiter(head: string): string {
  const firstLine = firstRecordLine(head.replace(/^\uFEFF/, ''));
  let best: string = ',';
  let bestCount = 0;
  for (const delimiter of DELIMITERS) {
    const count = firstLine.split(delimiter).length - 1;
    if (count > bestCount) {
      best = delimiter;
      bestCount = count;
    }
  }
  return best;
}

/** The first line that is not empty, with quoted parts removed (they may hold any delimiter). */
function firstRecordLine(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return line.replace(/"[^"]*"/g, '""');
}

/** The first bytes of a stream as text, and a stream that yields everything again. */
async function peekText(input: Readable, bytes: number): Promise<{ head: string; stream: Readable }> {
  const peeked = await peekBytes(input, bytes);
  return { head: peeked.head.toString('utf8'), stream: peeked.input };
}

/**
 * The cells of the first `maxLines` non-empty lines of a file's head, trimmed and lower case:
 * what detection compares with a format's column names. A quoted cell spanning lines is cut at
 * the line end, which is harmless for header rows.
 */
export function csvHeadLines(head: string, maxLines = 1): string[][] {
  const text = head.replace(/^\uFEFF/, '');
  const delimiter = guessDelimiter(text);
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(0, maxLines)
    .map((line) => splitLine(line, delimiter).map((cell) => cell.trim().toLowerCase()));
}

function splitLine(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells;
}
