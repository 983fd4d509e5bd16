import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

type Cell = string | number | boolean | null | undefined;

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => Cell;
}

/** Lists answer CSV when the client asks for it (Accept: text/csv) rather than JSON. */
export function wantsCsv(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\btext\/csv\b/i.test(accept) && !/^\s*application\/json/i.test(accept);
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One RFC 4180 cell. A cell that a spreadsheet would read as a formula is prefixed with a quote
 * (CSV injection). Written by hand rather than through a CSV library because exports run to
 * millions of rows and a per-record stream transform was most of their cost.
 */
export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const CHUNK_CHARS = 64 * 1024;

/** The CSV text of rows, header first, in chunks of about 64 KB (LF line ends). */
export async function* csvLines<T>(
  columns: readonly CsvColumn<T>[],
  rows: AsyncIterable<T>,
): AsyncGenerator<string> {
  let chunk = `${columns.map((c) => csvCell(c.header)).join(',')}\n`;
  for await (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      if (i > 0) line += ',';
      line += csvCell(columns[i]!.value(row));
    }
    chunk += `${line}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/**
 * Streams rows as CSV: rows are read from the database in chunks and written as the client
 * takes them, so memory stays flat however many there are.
 */
export function sendCsv<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  filename: string,
  columns: readonly CsvColumn<T>[],
  rows: AsyncIterable<T>,
): FastifyReply {
  const body = Readable.from(csvLines(columns, rows), { objectMode: false });
  body.on('error', (error) => request.log.error({ err: error }, 'CSV export failed'));
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(body);
}
