/**
 * osv.dev publishes each ecosystem's advisories as one zip of JSON files (<Ecosystem>/all.zip).
 * This turns such a zip, entry by entry, into one JSON array file the OSV reader streams, so that
 * memory holds one advisory at a time however large the ecosystem (Debian's zip is hundreds of MB).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { FeedError } from '../feeds/errors.js';

export interface ZipLimits {
  /** The largest single advisory. */
  maxEntryBytes: number;
  /** The most the whole zip may unpack to. */
  maxTotalBytes: number;
}

/**
 * Writes the advisories of `zipPath` to `outPath` as a JSON array. Entries that are not `.json`
 * are passed over; an entry that is not a JSON object is left out with a warning, so one broken
 * advisory does not keep the rest of its ecosystem out. A zip that cannot be read fails.
 */
export async function osvZipToJsonArray(
  zipPath: string,
  outPath: string,
  limits: ZipLimits,
  warn: (message: string) => void,
): Promise<{ advisories: number }> {
  const zip = await openZip(zipPath);
  const out = createWriteStream(outPath);
  let advisories = 0;
  let total = 0;
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  try {
    await write('[');
    for await (const entry of entries(zip)) {
      if (!entry.fileName.toLowerCase().endsWith('.json')) continue;
      if (entry.uncompressedSize > limits.maxEntryBytes) {
        warn(`${entry.fileName}: larger than ${limits.maxEntryBytes.toLocaleString('en')} bytes; left out.`);
        continue;
      }
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes)
        throw new FeedError(
          `The zip unpacks to more than ${limits.maxTotalBytes.toLocaleString('en')} bytes; it was not read further.`,
        );
      const text = (await readEntry(zip, entry)).toString('utf8');
      if (!isJsonObject(text)) {
        warn(`${entry.fileName}: not a JSON object; left out.`);
        continue;
      }
      await write(advisories === 0 ? text : `,\n${text}`);
      advisories += 1;
    }
    await write(']');
  } catch (error) {
    if (error instanceof FeedError) throw error;
    throw new FeedError(`Not a readable zip file: ${(error as Error).message}`);
  } finally {
    zip.close();
    out.end();
    await once(out, 'close');
  }
  return { advisories };
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error || !zip) reject(new FeedError(`Not a readable zip file: ${error?.message ?? 'no zip'}`));
      else resolve(zip);
    }),
  );
}

/** The zip's entries one at a time: the next is read only when the loop asks for it. */
async function* entries(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  for (;;) {
    const next = new Promise<yauzl.Entry | undefined>((resolve, reject) => {
      const onEntry = (entry: yauzl.Entry) => settle(() => resolve(entry));
      const onEnd = () => settle(() => resolve(undefined));
      const onError = (error: Error) => settle(() => reject(error));
      const settle = (then: () => void) => {
        zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
        then();
      };
      zip.once('entry', onEntry).once('end', onEnd).once('error', onError);
    });
    zip.readEntry();
    const entry = await next;
    if (!entry) return;
    yield entry;
  }
}

async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (error, s) =>
      error || !s ? reject(error ?? new Error('no stream')) : resolve(s),
    ),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
