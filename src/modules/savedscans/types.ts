import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { ScanKind, ScanProgress } from '../../scanning/types.js';
import type { RunRefusals } from '../scanruns/types.js';

/** What every saved scan has, whatever its kind: a name, a template, a node, a schedule, its runs. */
export interface SavedScan {
  id: string;
  organizationId: string;
  name: string;
  templateId: string;
  nodeId: string | null;
  schedule: ScheduleOption | null;
  createdBy: string | null;
  lastRunId: string | null;
  lastCompletedRunId: string | null;
  lastCompletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What every kind's checked input writes; each kind adds its own columns. */
export interface SavedScanWrite {
  name: string;
  templateId: string;
  nodeId: string | null;
  schedule: ScheduleOption | null;
}

/** The states of a scan's run, and Idle for a scan that never ran. */
export type RunState = 'Idle' | 'Queued' | 'Running' | 'Stopping' | 'Completed' | 'Failed' | 'Stopped';

/** The states in which a run is under way: the scan cannot start again, nor be deleted. */
export const ACTIVE_RUN_STATES: ReadonlySet<string> = new Set(['Queued', 'Running', 'Stopping']);

/** What a saved scan needs to know of a scan run (the scanruns module owns them). */
export interface SavedScanRun {
  id: string;
  organizationId: string;
  sourceId: string;
  state: Exclude<RunState, 'Idle'>;
  attempt: number;
  progress: ScanProgress;
  nodeId: string | null;
  claimedBy: string | null;
  /** What the run was asked to do (its targets and the policy when it started). */
  spec?: unknown;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
  /** Addresses the node refused (the scanruns module keeps them). */
  refused?: RunRefusals;
  createdAt: Date;
  kind?: string;
  sourceName?: string;
}

/** What a scan's run is asked to do: the node's spec, and what the kind keeps of the run. */
export interface RunOrder {
  spec: unknown;
  /** The run's name as the runs list shows it; the scan's name when left out. */
  sourceName?: string;
  /** Keeps the kind's own record of the run, in the transaction that queues it. */
  record?: (trx: Transaction<DB>, runId: string) => Promise<void>;
  /** The audit action (after the kind's prefix) and its details; `started` with the run id by default. */
  audit?: { action: string; details: object };
}

export const NOTIFICATION_LEVELS = ['Never', 'ScanEnds', 'ScanStartsEnds', 'ScanFails'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

/** Who is told about a scan's runs: the notification rules the scan owns deliver it. */
export interface ScanNotification {
  emailAddresses: string[];
  level: NotificationLevel;
}

/**
 * Keeps the notification rules of a scan's (or scan group's) MessageNotification in step with it
 * (src/modules/emailnotifications/scan-rules.ts); `null` when the owner is deleted.
 */
export type ScanNotificationSync = (
  ctx: import('../context.js').ServiceContext,
  owner: { kind: 'DiscoveryScan' | 'ScanGroup'; id: string; name: string },
  notifications: ScanNotification[] | null,
) => Promise<void>;

export type { ScanKind };
