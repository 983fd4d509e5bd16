import type { ScanTarget, SystemHostResult } from '../../scanning/types.js';
import type { SavedScan, SavedScanRun, SavedScanWrite } from '../savedscans/types.js';
import type { BackportNote } from '../scanresults/service.js';

/** A system scan: the targets it covers, how (a System template) and where from (a node). */
export interface SystemScan extends SavedScan {
  targets: ScanTarget[];
  exclusions: string[];
  scanGroupId: string | null;
}

export interface SystemScanInput {
  name: string;
  /** The targets; empty when `assetId` names a host asset whose addresses are scanned. */
  targets: ScanTarget[];
  assetId: string | null;
  exclusions: string[];
  templateId: string;
  nodeId: string | null;
  /** The original's ScheduleOption; null or `None`: run on demand only. */
  schedule: SavedScanWrite['schedule'];
  /** The scan group it belongs to (scan groups keep it), or null. */
  scanGroupId: string | null;
}

export interface SystemScanWrite extends SavedScanWrite {
  targets: ScanTarget[];
  exclusions: string[];
  scanGroupId: string | null;
}

/** A run as this module sees it (the scanruns module owns runs). */
export type SystemRun = SavedScanRun;

/** What a run was asked and what its ingestion made. */
export interface SystemRunRecord {
  runId: string;
  scanId: string;
  /** A Verify run's findings: only they may become Fixed. */
  verifyFindingIds: string[] | null;
  /** The ports it probes: the template's, or Verify's list. */
  ports: string;
  importId: string | null;
  counts: Record<string, number> | null;
  backports: BackportNote[];
  ingestError: string | null;
  ingestedAt: Date | null;
}

/** A run's report: the run, its hosts and what ingestion made of them. */
export interface SystemRunReport {
  run: SystemRun;
  record: SystemRunRecord | null;
  hosts: SystemHostResult[];
}
