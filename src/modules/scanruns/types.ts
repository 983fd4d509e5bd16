import type { ScanRunState } from '../../db/schema.js';
import type { ScanKind, ScanProgress } from '../../scanning/types.js';

export { SCAN_RUN_STATES, type ScanRunState } from '../../db/schema.js';

/** The states a node may end a run in. */
export const FINISH_STATES = ['Completed', 'Failed', 'Stopped'] as const;
export type ScanRunFinishState = (typeof FINISH_STATES)[number];

/** One step of a run's life: queued, claimed, stopping, queued again, finished. */
export interface ScanRunHistoryEntry {
  at: Date;
  state: ScanRunState;
  attempt: number;
  nodeId: string | null;
  message: string | null;
}

/**
 * One execution of a scan (a discovery scan's, for now) by a scan node. A run whose node falls
 * silent is queued again with `attempt + 1` and starts from scratch.
 */
export interface ScanRun {
  id: string;
  organizationId: string;
  kind: ScanKind;
  /** The scan this is a run of (a discovery scan's id). */
  sourceId: string;
  sourceName: string;
  /** The node asked for; null for any node serving the kind. */
  nodeId: string | null;
  /** The node that claimed the current (or last) attempt. */
  claimedBy: string | null;
  state: ScanRunState;
  /** Claims so far: 0 while first queued, 1 for the first run, up to 3. */
  attempt: number;
  spec: unknown;
  progress: ScanProgress;
  leaseUntil: Date | null;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
  /** Addresses the node refused in this attempt: the first ones listed, all of them counted. */
  refused: RunRefusals;
  stopRequested: boolean;
  history: ScanRunHistoryEntry[];
  createdAt: Date;
}

export interface RunRefusals {
  count: number;
  addresses: { address: string; rule: string; message: string }[];
}

/** A run as a node receives it when it claims one. */
export interface ClaimedRun {
  id: string;
  kind: ScanKind;
  attempt: number;
  spec: unknown;
}

export interface ScanRunPage {
  items: ScanRun[];
  nextCursor: string | null;
  totalCount: number;
}
