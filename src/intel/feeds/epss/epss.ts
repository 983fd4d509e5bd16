/**
 * EPSS scores as CSV, plain or gzip (known by its magic bytes, unpacked while it streams). Two
 * layouts:
 *
 * - FIRST's daily file (epss_scores-YYYY-MM-DD.csv.gz): a comment line
 *   `#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000`, the header row
 *   `cve,epss,percentile` (columns are found by name, so their order may change), then rows.
 *   The comment is optional (FIRST's files before 2022 lack it).
 * - Rows without a header, semicolon or comma separated, `CVE-…;epss;percentile`, as the
 *   EMBA project's per-year files hold them (the "verbatim" sample): no model or date.
 *
 * The model version and score date go to `onHeader`; the date (YYYY-MM-DD) is also set on
 * every score. A file whose first row is neither the header nor such a row is not EPSS and fails
 * (FeedError with its line), as does a CSV that cannot be parsed (a runaway quote). A row that
 * does not hold a CVE id and two numbers between 0 and 1 is skipped with a warning naming its
 * line (the first few are shown, the rest counted): one bad row in 300,000 should not lose a day
 * of scores.
 */
import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { peekBytes } from '../../../lib/peek-stream.js';
import { guarded, LineGuard } from '../../../parsing/byte-guards.js';
import { ParseLimitError } from '../../../parsing/parse-limits.js';
import type { EpssScore } from '../../types.js';
import { FeedError } from '../errors.js';
import { HEAD_BYTES, plainInput } from '../input.js';
import { cveIdOf, isoDate, shortText, WarningLog } from '../text.js';
import type { FeedReader, FeedReadOptions } from '../types.js';

/** Where each value is in a row, and what the file says about itself. */
interface EpssLayout {
  delimiter: string;
  /** Rows to pass over before the data: the header row (comment lines are skipped anyway). */
  headerRows: number;
  cve: number;
  epss: number;
  percentile: number;
  modelVersion?: string;
  scoreDate?: string;
}

/** A row longer than this is not an EPSS row: the file fails rather than fill memory. */
const MAX_ROW_CHARS = 64 * 1024;
const DATA_ROW = /^\s*CVE-\d{4}-\d{4,}\s*([,;\t])\s*[0-9.eE+-]+\s*\1\s*[0-9.eE+-]+\s*$/i;

/** The scores of an EPSS CSV file, its model and date through `options.onHeader`. */
export async function* readEpss(input: Readable, options: FeedReadOptions): AsyncGenerator<EpssScore> {
  const peeked = await peekBytes(await plainInput(input), HEAD_BYTES);
  const layout = layoutOf(peeked.head.toString('utf8'));
  const header: { feed: 'epss'; modelVersion?: string; scoreDate?: string } = { feed: 'epss' };
  if (layout.modelVersion) header.modelVersion = layout.modelVersion;
  if (layout.scoreDate) header.scoreDate = layout.scoreDate;
  options.onHeader?.(header);

  const parser = parse({
    delimiter: layout.delimiter,
    comment: '#',
    bom: true,
    info: true,
    trim: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_ROW_CHARS,
  });
  // Lines are counted and measured before csv-parse sees them (a comment line is never cut by it).
  const lines = guarded(peeked.input, new LineGuard());
  lines.on('error', (error) => parser.destroy(error));
  lines.pipe(parser);
  const log = new WarningLog(options.warn);
  let rows = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      rows += 1;
      if (rows <= layout.headerRows) continue;
      const score = scoreOf(record, info.lines, layout, log);
      if (score) yield score;
    }
  } catch (error) {
    if (error instanceof FeedError) throw error;
    if (error instanceof ParseLimitError) throw new FeedError(error.what, error.line, error.column);
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      throw new FeedError(`Not a readable EPSS CSV file: ${error.message}`, line, 1);
    }
    throw error;
  } finally {
    lines.destroy();
  }
  log.flush();
}

function scoreOf(record: string[], line: number, layout: EpssLayout, log: WarningLog): EpssScore | undefined {
  const skip = (why: string) => {
    log.note('EPSS rows that are not valid were skipped', `EPSS line ${line}: ${why}; the row was skipped.`);
    return undefined;
  };
  const cveId = cveIdOf(record[layout.cve]);
  if (!cveId) return skip(`${JSON.stringify(shown(record[layout.cve]))} is not a CVE id`);
  const score = probability(record[layout.epss]);
  if (score === undefined)
    return skip(`the EPSS score ${JSON.stringify(shown(record[layout.epss]))} is not a number from 0 to 1`);
  const percentile = probability(record[layout.percentile]);
  if (percentile === undefined)
    return skip(
      `the percentile ${JSON.stringify(shown(record[layout.percentile]))} is not a number from 0 to 1`,
    );
  const result: EpssScore = { cveId, score, percentile };
  if (layout.scoreDate) result.scoreDate = layout.scoreDate;
  return result;
}

function shown(cell: string | undefined): string {
  if (cell === undefined) return '(nothing)';
  return cell.length > 40 ? `${cell.slice(0, 40)}…` : cell;
}

function probability(cell: string | undefined): number | undefined {
  if (cell === undefined || !/^[0-9.eE+-]+$/.test(cell)) return undefined;
  const n = Number(cell);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

/** What the first lines of a file say about its layout; a FeedError when it is not EPSS. */
function layoutOf(head: string): EpssLayout {
  const lines = head.replace(/^\uFEFF/, '').split(/\r?\n/);
  const meta: Pick<EpssLayout, 'modelVersion' | 'scoreDate'> = {};
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      Object.assign(meta, commentMeta(line));
      continue;
    }
    return { ...meta, ...firstRowLayout(line, i + 1) };
  }
  throw new FeedError('Not an EPSS CSV file: it is empty or holds only comments.');
}

/** `#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000` */
function commentMeta(line: string): Pick<EpssLayout, 'modelVersion' | 'scoreDate'> {
  const meta: Pick<EpssLayout, 'modelVersion' | 'scoreDate'> = {};
  const model = shortText(/model_version:([^,\s]+)/.exec(line)?.[1]);
  if (model) meta.modelVersion = model;
  const date = isoDate(/score_date:([^,\s]+)/.exec(line)?.[1]);
  if (date) meta.scoreDate = date;
  return meta;
}

type RowLayout = Omit<EpssLayout, 'modelVersion' | 'scoreDate'>;

function firstRowLayout(line: string, lineNumber: number): RowLayout {
  const data = DATA_ROW.exec(line);
  if (data) return { delimiter: data[1]!, headerRows: 0, cve: 0, epss: 1, percentile: 2 };
  const delimiter = [',', ';', '\t'].find((d) => line.includes(d)) ?? ',';
  const names = line.split(delimiter).map((name) => name.trim().toLowerCase().replace(/^"|"$/g, ''));
  const [cve, epss, percentile] = ['cve', 'epss', 'percentile'].map((name) => names.indexOf(name));
  if (cve! >= 0 && epss! >= 0 && percentile! >= 0)
    return { delimiter, headerRows: 1, cve: cve!, epss: epss!, percentile: percentile! };
  const shownLine = line.length > 80 ? `${line.slice(0, 80)}…` : line;
  const why =
    cve! >= 0 && epss! >= 0
      ? 'it has no percentile column (the 2021 EPSS v1 layout), which is not supported'
      : `its first row is ${JSON.stringify(shownLine)}, not the header "cve,epss,percentile" nor a "CVE-…,score,percentile" row`;
  throw new FeedError(`Not an EPSS CSV file: ${why}.`, lineNumber, 1);
}

/** How sure it is that a file (its unpacked head) is EPSS CSV. */
export function detectEpss(head: string): number {
  const lines = head
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const first = lines[0] ?? '';
  if (/^#\s*model_version:/.test(first)) return 1;
  const row = lines.find((line) => !line.startsWith('#')) ?? '';
  if (/^\s*cve\s*,\s*epss\s*,\s*percentile\s*$/i.test(row)) return 0.95;
  if (DATA_ROW.test(row) && lines.slice(0, 5).every((line) => DATA_ROW.test(line) || line.startsWith('#')))
    return 0.8;
  return 0;
}

export const epssFeed: FeedReader<'epss'> = { feed: 'epss', detect: detectEpss, read: readEpss };
