import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BackupFormatError } from '../../../src/db/backup/format.js';
import { LineReader } from '../../../src/db/backup/lines.js';

/** `text` in chunks of `size` bytes. */
const chunks = (text: string, size: number) => {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return Readable.from(out);
};

async function read(text: string, size: number) {
  const reader = new LineReader(chunks(text, size));
  const before = await reader.nextLine();
  const data: Buffer[] = [];
  const rows = await reader.copyRows(async (chunk) => {
    data.push(Buffer.from(chunk));
  });
  const after = await reader.nextLine();
  return {
    before,
    rows,
    data: Buffer.concat(data).toString('utf8'),
    after,
    line: reader.line,
    end: await reader.nextLine(),
  };
}

describe('LineReader', () => {
  // Rows that look like the end marker but are not: `\\.` (an escaped backslash, then a dot), a
  // row starting with `\.x`, an empty row, and text in several bytes a character.
  const rows = 'a\tb\n\\\\.\n\\.x\n\nü 🛡\t\\N\n';
  const text = `COPY public.t (a, b) FROM stdin;\n${rows}\\.\n-- after\n`;

  it.each([1, 2, 3, 5, 64 * 1024])(
    'passes the rows on whole, up to the end marker, in chunks of %i',
    async (size) => {
      expect(await read(text, size)).toEqual({
        before: 'COPY public.t (a, b) FROM stdin;',
        rows: 5,
        data: rows,
        after: '-- after',
        line: 8,
        end: null,
      });
    },
  );

  it('takes an end marker without a line break at the end of the input', async () => {
    const result = await read(`COPY x\nrow\n\\.`, 2);
    expect([result.rows, result.data, result.after]).toEqual([1, 'row\n', null]);
  });

  it.each([
    ['in a row', `COPY x\nrow one\nrow tw`],
    ['after a whole row', `COPY x\nrow one\n`],
    ['in the end marker', `COPY x\nrow one\n\\`],
  ])('refuses input that ends %s', async (_name, input) => {
    const reader = new LineReader(chunks(input, 3));
    await reader.nextLine();
    const error = await reader.copyRows(async () => {}).catch((e) => e);
    expect(error).toBeInstanceOf(BackupFormatError);
    expect(error.message).toMatch(/ends inside a COPY block/);
  });
});
