import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { csvRows } from '../../src/importers/common/csv-rows.js';
import type { ParseContext } from '../../src/importers/types.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from '../../src/parsing/parse-limits.js';

const limits = (over: Partial<ParseLimits>): ParseLimits => ({ ...DEFAULT_PARSE_LIMITS, ...over });

describe('csvRows applies the guards', () => {
  const context: ParseContext = { warn: () => {}, maxEvidenceChars: 65536, maxFieldChars: 32768 };
  const drain = async (values: AsyncIterable<unknown>) => {
    const out: unknown[] = [];
    for await (const value of values) out.push(value);
    return out;
  };

  it('csvRows refuses a row with too many cells or too long, and makes cells storable', async () => {
    const rows = (text: string, over: Partial<ParseLimits>) =>
      drain(
        csvRows(Readable.from([Buffer.from(text)]), context, {
          isHeader: (names) => names[0] === 'a',
          expected: 'a test file',
          limits: limits(over),
        }),
      );
    await expect(rows('a,b\n1,2,3,4\n', { maxAttributes: 3 })).rejects.toThrow(
      'A CSV row with more than 3 cells (RAMPART_PARSE_MAX_ATTRIBUTES) (line 2, column 1)',
    );
    await expect(rows('a,b\n"1\n2\n3\n4",5\n', { maxTextBytes: 5 })).rejects.toThrow(
      /^A CSV row longer than 5 characters \(RAMPART_PARSE_MAX_TEXT_BYTES\)/,
    );
    const [row] = (await rows('a,b\nx\u0000y,2\n', {})) as { cells: Map<string, string> }[];
    expect(row?.cells.get('a')).toBe('xy');
  });
});
