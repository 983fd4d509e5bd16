/**
 * Vulnerability intelligence feed files: NVD CVE API 2.0 JSON, CVE JSON 5 records, the CISA KEV
 * catalogue, EPSS CSV and OSV advisories. Each reader streams its file (gzip or not) and yields
 * the records of src/intel/types.ts; none knows the database.
 *
 * A loader that takes any file: `openFeed` it (unpacks gzip, gives the head), `detectFeed` the
 * head, then `readFeed` the stream. Files that are malformed or are not the feed asked for fail
 * with a FeedError (with line and column for broken JSON when the file can be reopened);
 * incomplete records and values beyond the caps are warnings.
 */
import type { Readable } from 'node:stream';
import { cve5Feed } from './cve5/cve5.js';
import { epssFeed } from './epss/epss.js';
import { kevFeed } from './kev/kev.js';
import { nvdFeed } from './nvd/nvd.js';
import { osvFeed } from './osv/osv.js';
import type { FeedName, FeedReader, FeedReadOptions, FeedRecords } from './types.js';

export { configurationsFromAffected } from './cve5/affected.js';
export { detectCve5, readCve5 } from './cve5/cve5.js';
export { detectEpss, readEpss } from './epss/epss.js';
export { FeedError } from './errors.js';
export { HEAD_BYTES, openFeed, plainInput } from './input.js';
export { detectKev, readKev } from './kev/kev.js';
export { detectNvd, readNvd } from './nvd/nvd.js';
export { detectOsv, readOsv } from './osv/osv.js';
export { MAX_REFERENCES, MAX_TEXT_CHARS } from './text.js';
export type { FeedHeader, FeedName, FeedReader, FeedReadOptions, FeedRecords } from './types.js';

type AnyReader = { [F in FeedName]: FeedReader<F> }[FeedName];

/** Most specific first: a tie goes to the earlier reader. */
export const FEED_READERS: readonly AnyReader[] = [nvdFeed, cve5Feed, kevFeed, osvFeed, epssFeed];

/** Below this a reader's claim is not taken. */
const MIN_CONFIDENCE = 0.5;

export interface DetectedFeed {
  feed: FeedName;
  confidence: number;
}

/** The feed a file is, from its first 64 KiB as text (unpacked: see openFeed); undefined when none claims it. */
export function detectFeed(head: string): DetectedFeed | undefined {
  let best: DetectedFeed | undefined;
  for (const reader of FEED_READERS) {
    const confidence = reader.detect(head);
    if (confidence >= MIN_CONFIDENCE && confidence > (best?.confidence ?? 0))
      best = { feed: reader.feed, confidence };
  }
  return best;
}

/**
 * Reads a feed file with the reader of `feed`. Given a function that opens the file, the reader
 * can open it a second time to find where broken JSON breaks (line and column in the FeedError).
 */
export function readFeed<F extends FeedName>(
  feed: F,
  input: Readable | (() => Readable),
  options: FeedReadOptions,
): AsyncGenerator<FeedRecords[F]> {
  const reader = FEED_READERS.find((r) => r.feed === feed) as FeedReader<F> | undefined;
  if (!reader) throw new TypeError(`Unknown feed "${feed}".`);
  if (typeof input !== 'function') return reader.read(input, options);
  return reader.read(input(), { ...options, reopen: options.reopen ?? input });
}
