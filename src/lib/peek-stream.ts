import { Readable } from 'node:stream';

export interface Peeked {
  /** What was read, in order. */
  chunks: Buffer[];
  /** The whole stream again, from its first byte: what was read, then the rest. */
  input: Readable;
}

/**
 * Reads a stream's first chunks until `enough(chunk, bytesBefore)` says so (or the stream ends)
 * and hands back a stream that replays them, then the rest. Detection looks at a file's start
 * this way without reading it twice.
 */
export async function peekStream(
  source: Readable,
  enough: (chunk: Buffer, bytesBefore: number) => boolean,
): Promise<Peeked> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    chunks.push(chunk);
    const stop = enough(chunk, size);
    size += chunk.length;
    if (stop) break;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      yield* chunks;
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
  return { chunks, input: Readable.from(replay(), { objectMode: false }) };
}

/** The first `bytes` bytes of a stream (fewer if it is shorter), and the whole stream again. */
export async function peekBytes(input: Readable, bytes: number): Promise<{ head: Buffer; input: Readable }> {
  const peeked = await peekStream(input, (chunk, before) => before + chunk.length >= bytes);
  return { head: Buffer.concat(peeked.chunks).subarray(0, bytes), input: peeked.input };
}
