import { Readable } from 'node:stream';

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
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const read: Buffer[] = [];
  let size = 0;
  let first: string | undefined;
  let done = false;
  while (first === undefined && size <= MAX_LEADING_WHITESPACE) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    first = firstSignificant(chunk, size === 0);
    read.push(chunk);
    size += chunk.length;
  }

  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* read;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
      }
    } finally {
      // Stopping early (a failed parse) must release the source.
      await iterator.return?.();
    }
  }
  return { first, input: Readable.from(replay(), { objectMode: false }) };
}
