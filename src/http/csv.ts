import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
}

/** Lists answer CSV when the client asks for it (Accept: text/csv) rather than JSON. */
export function wantsCsv(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\btext\/csv\b/i.test(accept) && !/^\s*application\/json/i.test(accept);
}

// A cell that a spreadsheet would read as a formula is prefixed with a quote (CSV injection).
function safe(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
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
  const records = Readable.from(
    (async function* () {
      for await (const row of rows) yield columns.map((c) => safe(c.value(row)));
    })(),
  );
  const csv = stringify({ header: true, columns: columns.map((c) => c.header), eof: true });
  records.on('error', (error) => {
    request.log.error({ err: error }, 'CSV export failed');
    csv.destroy(error);
  });
  records.pipe(csv);
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(csv);
}
