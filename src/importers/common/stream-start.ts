import type { Readable } from 'node:stream';
import { peekStream } from '../../lib/peek-stream.js';

export interface StreamStart {
  /** The first character that is not white space or a byte order mark; undefined for an empty file. */
  first: string | undefined;
  /** The whole stream again, from its first byte. */
  input: Readable;
}

/** Leading white space read past before the file is taken as empty. */
const MAX_LEADING_WHITESPACE = 1024 * 1024;

const BOM = [0xef, 0xbb, 0xbf];

function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** The first significant character of a chunk, skipping a UTF-8 byte order mark at the very start. */
function firstSignificant(chunk: Buffer, atFileStart: boolean): string | undefined {
  let i = 0;
  if (atFileStart && BOM.every((b, k) => chunk[k] === b)) i = BOM.length;
  for (; i < chunk.length; i += 1) {
    const byte = chunk[i]!;
    if (!isBlank(byte))
      return byte < 0x80 ? String.fromCharCode(byte) : chunk.subarray(i).toString('utf8', 0, 4)[0];
  }
  return undefined;
}

/**
 * Looks at the first significant character of a stream (to tell XML from JSON, or an empty
 * file) and hands back a stream that replays what was read, then the rest.
 */
export async function peekStart(source: Readable): Promise<StreamStart> {
  let first: string | undefined;
  const peeked = await peekStream(source, (chunk, before) => {
    first = firstSignificant(chunk, before === 0);
    return first !== undefined || before + chunk.length > MAX_LEADING_WHITESPACE;
  });
  return { first, input: peeked.input };
}
