import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { ScanTarget, SystemHostResult } from '../../scanning/types.js';
import type { DiscoveryRun } from '../discoveryscans/types.js';
import type { BackportNote } from '../scanresults/service.js';

/** A system scan: the targets it covers, how (a System template) and where from (a node). */
export interface SystemScan {
  id: string;
  organizationId: string;
  name: string;
  targets: ScanTarget[];
  exclusions: string[];
  templateId: string;
  nodeId: string | null;
  schedule: ScheduleOption | null;
  scanGroupId: string | null;
  createdBy: string | null;
  lastRunId: string | null;
  lastCompletedRunId: string | null;
  lastCompletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
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
  schedule: ScheduleOption | null;
  /** The scan group it belongs to (scan groups keep it), or null. */
  scanGroupId: string | null;
}

/** A run as this module sees it (the scanruns module owns runs). */
export type SystemRun = DiscoveryRun & { kind?: string; sourceName?: string };

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
