import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { FeedError } from '../../../src/intel/feeds/errors.js';
import type { FeedHeader, FeedReadOptions } from '../../../src/intel/feeds/types.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');
export const INTEL = join(FIXTURES, 'intel');

export function intelPath(...parts: string[]): string {
  return join(INTEL, ...parts);
}

/** The fixture files of a feed folder ending in `ext`, sorted. */
export function intelFiles(feed: string, ext = '.json'): string[] {
  return readdirSync(intelPath(feed))
    .filter((f) => f.endsWith(ext))
    .sort();
}

export function readText(...parts: string[]): string {
  return readFileSync(intelPath(...parts), 'utf8');
}

export function textStream(text: string | Buffer): Readable {
  return Readable.from([typeof text === 'string' ? Buffer.from(text, 'utf8') : text]);
}

export function fileStream(...parts: string[]): Readable {
  return createReadStream(intelPath(...parts));
}

export interface Collected<T> {
  records: T[];
  warnings: string[];
  headers: FeedHeader[];
}

type Reader<T> = (input: Readable, options: FeedReadOptions) => AsyncIterable<T>;

/** Every record a reader yields for `input`, with the warnings and headers. */
export async function collect<T>(
  read: Reader<T>,
  input: Readable,
  extra: Partial<FeedReadOptions> = {},
): Promise<Collected<T>> {
  const out: Collected<T> = { records: [], warnings: [], headers: [] };
  const options: FeedReadOptions = {
    warn: (m) => out.warnings.push(m),
    onHeader: (h) => out.headers.push(h),
    ...extra,
  };
  for await (const record of read(input, options)) out.records.push(record);
  return out;
}

/** The FeedError a read fails with (the test fails if it does not). */
export async function failure(run: Promise<unknown>): Promise<FeedError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FeedError);
  return error as FeedError;
}
