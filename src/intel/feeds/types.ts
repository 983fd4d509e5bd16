import type { Readable } from 'node:stream';
import type { CveRecord, EpssScore, KevEntry, OsvAdvisory } from '../types.js';

export type FeedName = 'nvd' | 'cve5' | 'kev' | 'epss' | 'osv';

/** What each feed's reader yields. */
export interface FeedRecords {
  nvd: CveRecord;
  cve5: CveRecord;
  kev: KevEntry;
  epss: EpssScore;
  osv: OsvAdvisory;
}

/** What a file says about itself, apart from its records. */
export type FeedHeader =
  | { feed: 'kev'; catalogVersion: string; dateReleased: string; count?: number; title?: string }
  | { feed: 'epss'; modelVersion?: string; scoreDate?: string }
  | {
      feed: 'nvd';
      totalResults?: number;
      startIndex?: number;
      resultsPerPage?: number;
      timestamp?: string;
    };

export interface FeedReadOptions {
  /** Something was skipped or cut; the loader lists these. */
  warn(message: string): void;
  /** Called once with the file's header (KEV catalogue version, EPSS model and date, NVD page counts). */
  onHeader?(header: FeedHeader): void;
  /**
   * Opens the same file again from its start. Used only when a JSON file turns out to be broken,
   * to find the line and column of the error with a second, validating read.
   */
  reopen?: () => Readable;
}

export interface FeedReader<F extends FeedName> {
  feed: F;
  /** How sure the reader is that a file starting with `head` (its first 64 KiB) is its feed: 0 to 1. */
  detect(head: string): number;
  /** The file's records as they stream in; memory does not grow with the file. */
  read(input: Readable, options: FeedReadOptions): AsyncGenerator<FeedRecords[F]>;
}
