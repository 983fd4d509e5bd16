import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { JsonGuard } from '../../parsing/byte-guards.js';
import { ReportError } from '../../parsing/report-error.js';
import { wellFormed } from '../../parsing/well-formed.js';

/**
 * A line longer than this fails the report instead of filling memory. Nuclei cuts the
 * responses it records (10 MiB by default), so real lines stay far below.
 */
export const MAX_LINE_CHARS = 32 * 1024 * 1024;

export interface JsonLine {
  line: number;
  value: unknown;
}

/**
 * The values of a JSON Lines file, one a line, with their line numbers; blank lines are passed
 * over. Each line is parsed on its own (one record at a time, never the whole file), which is
 * what lets a line that is not JSON fail the report with its line and column.
 */
export async function* jsonLines(input: Readable, maxLineChars = MAX_LINE_CHARS): AsyncGenerator<JsonLine> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let line = 0;
  // Nesting, string sizes and value counts are bounded before a line is parsed.
  const guard = new JsonGuard();
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    guard.write(bytes);
    pending += decoder.write(bytes);
    let start = 0;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      line += 1;
      const value = parseLine(pending.slice(start, end), line);
      if (value !== undefined) yield { line, value };
      start = end + 1;
    }
    pending = pending.slice(start);
    if (pending.length > maxLineChars)
      throw new ReportError(`Line ${line + 1} is longer than ${maxLineChars} characters.`, line + 1, 1);
  }
  pending += decoder.end();
  const value = parseLine(pending, line + 1);
  if (value !== undefined) yield { line: line + 1, value };
}

/** "\u0000" or a surrogate escape: the line may hold a text PostgreSQL cannot store. */
const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f])/i;

function storable(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? wellFormed(value) : value;
}

function parseLine(raw: string, line: number): unknown {
  // Untrimmed, so the position JSON.parse reports is the column in the file.
  const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text, UNSTORABLE_ESCAPE.test(text) ? storable : undefined);
  } catch (error) {
    const detail = (error as Error).message;
    const position = /position (\d+)/.exec(detail);
    throw new ReportError(
      `Not valid JSON Lines (one JSON result a line): ${detail}`,
      line,
      position ? Number(position[1]) + 1 : undefined,
    );
  }
}
