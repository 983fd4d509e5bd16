import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { peekBytes } from '../../lib/peek-stream.js';
import { FeedError } from './errors.js';

/** How much of a file detection looks at. */
export const HEAD_BYTES = 64 * 1024;

/**
 * The most a gzip file may unpack to. The full daily EPSS file is about 15 MB and a yearly NVD
 * feed about 500 MB unpacked; a file that unpacks beyond this is refused rather than read on.
 */
export const MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024;

function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * The file as plain bytes: unpacked while it streams when it is gzip (known by its first two
 * bytes, 1f 8b, whatever its name), else as it is.
 */
export async function plainInput(input: Readable, maxBytes = MAX_UNPACKED_BYTES): Promise<Readable> {
  const peeked = await peekBytes(input, 2);
  return isGzip(peeked.head) ? gunzip(peeked.input, maxBytes) : peeked.input;
}

function gunzip(input: Readable, maxBytes: number): Readable {
  const unzip = createGunzip();
  input.on('error', (error) => unzip.destroy(error));
  input.pipe(unzip);
  async function* bounded(): AsyncGenerator<Buffer> {
    let total = 0;
    try {
      for await (const chunk of unzip as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes)
          throw new FeedError(
            `The gzip file unpacks to more than ${maxBytes.toLocaleString('en')} bytes; it was not read further.`,
          );
        yield chunk;
      }
    } catch (error) {
      if (error instanceof FeedError) throw error;
      throw new FeedError(`Not a readable gzip file: ${(error as Error).message}.`);
    } finally {
      unzip.destroy();
      input.destroy();
    }
  }
  return Readable.from(bounded(), { objectMode: false });
}

/**
 * A feed file made ready to detect and read: its first 64 KiB as text (unpacked when the file
 * is gzip) and the whole, unpacked file again.
 */
export async function openFeed(input: Readable): Promise<{ head: string; input: Readable }> {
  const plain = await plainInput(input);
  const peeked = await peekBytes(plain, HEAD_BYTES);
  return { head: peeked.head.toString('utf8'), input: peeked.input };
}
