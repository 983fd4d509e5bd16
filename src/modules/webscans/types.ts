import type { WebUrlResult } from '../../scanning/types.js';
import type { SavedScan, SavedScanRun, SavedScanWrite } from '../savedscans/types.js';

/** A web scan: the URLs it checks, how (template) and where from (node). */
export interface WebScan extends SavedScan {
  urls: string[];
  /** The scan group whose monitoring added it, or that it was put in; null for none. */
  scanGroupId: string | null;
}

export interface WebScanInput {
  name: string;
  urls: string[];
  /** Null: the first web template (the built-in one). */
  templateId: string | null;
  nodeId: string | null;
  schedule: SavedScanWrite['schedule'];
  scanGroupId?: string | null;
}

export interface WebScanWrite extends SavedScanWrite {
  urls: string[];
  scanGroupId: string | null;
}

/** A scan run as this module sees it (the scanruns module owns them). */
export type WebRun = SavedScanRun;

/** How many findings a run's results created, fixed, reopened … (the import's counts). */
export type ImportCounts = Record<string, number>;

/** What became of a run's results. */
export interface WebRunOutcome {
  verifyFindingIds: string[] | null;
  importId: string | null;
  counts: ImportCounts | null;
  ingestError: string | null;
}

/** A run with what it reported, URL by URL. */
export interface WebRunReport {
  run: WebRun;
  urls: WebUrlResult[];
  outcome: WebRunOutcome | null;
}
