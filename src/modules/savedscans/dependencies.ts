import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { JobKind, JobPayload } from '../../jobs/catalogue.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { Clock } from '../../lib/clock.js';
import type { ScanResults } from '../../scanning/contract.js';
import type { ScanKind, ScanTarget, TargetPolicy } from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { SavedScanRun } from './types.js';

// What saved scans ask of the modules they work with, by the little they use of each.

/** The scan runs module: runs are queued there, claimed by nodes, and their results come back here. */
export interface ScanRuns {
  queue(
    ctx: ServiceContext,
    input: { kind: ScanKind; sourceId: string; sourceName: string; nodeId: string | null; spec: unknown },
    trx?: Transaction<DB>,
  ): Promise<SavedScanRun>;
  stop(ctx: ServiceContext, runId: string): Promise<SavedScanRun>;
  get(ctx: ServiceContext, runId: string): Promise<SavedScanRun>;
  latest(ctx: ServiceContext, sourceId: string): Promise<SavedScanRun | null>;
  /** Where a run's results and end come back to the kind of scan that queued it. */
  onBatch(
    kind: ScanKind,
    handler: (run: SavedScanRun, items: ScanResults[ScanKind][], trx: Transaction<DB>) => Promise<void>,
  ): void;
  onFinished(kind: ScanKind, handler: (run: SavedScanRun, trx: Transaction<DB>) => Promise<void>): void;
  /** What scan events say of the scan: its group. */
  onDescribe(
    kind: ScanKind,
    describe: (run: SavedScanRun, trx: Transaction<DB>) => Promise<{ scanGroupId: string | null }>,
  ): void;
  onBeforeStart(
    kind: ScanKind,
    check: (run: SavedScanRun & { spec: unknown }) => Promise<string | null>,
  ): void;
}

/** The allowed-targets module: the organisation's policy, and the 422 for targets outside it. */
export interface TargetRules {
  policy(organizationId: string): Promise<TargetPolicy>;
  assertAllowed(ctx: ServiceContext, targets: ScanTarget[], exclusions: string[]): Promise<void>;
  /** The first refusal of these targets under a policy, as a sentence; null when all are allowed. */
  refusal(targets: ScanTarget[], exclusions: string[], policy: TargetPolicy): string | null;
}

/** The job scheduler: a scan's ScheduleOption becomes a schedule that starts it. */
export interface ScanSchedules {
  /** Checks the option (400 naming the field under `Schedule`) before anything is saved. */
  check(option: ScheduleOption | null): void;
  /** Sets (or, for null and None, removes) the scan's schedule; answers its next run. */
  apply(organizationId: string, scanId: string, option: ScheduleOption | null): Promise<Date | null>;
  nextRunAt(organizationId: string, scanId: string): Promise<Date | null>;
  /** The id of the scan's schedule, or null when it is not scheduled. */
  scheduleId(organizationId: string, scanId: string): Promise<string | null>;
}

/** The scan nodes module: whether a node exists for the organisation and serves a kind. */
export interface ScanNodes {
  servesKind(ctx: ServiceContext, nodeId: string, kind: ScanKind): Promise<boolean>;
}

/** The durable job queue: what a run's end leaves to do is enqueued in the run's transaction. */
export interface ScanJobs {
  enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayload<K>,
    options: { organizationId?: string; dedupKey?: string; maxAttempts?: number },
    trx?: Transaction<DB>,
  ): Promise<string>;
}

/** The audit trail. */
export interface ScanAudit {
  record(
    ctx: ServiceContext,
    action: string,
    target: { type: string; id: string },
    details?: object,
  ): Promise<void>;
}

/** What the generic saved-scan service needs, whatever the kind. */
export interface SavedScanDependencies {
  runs: ScanRuns;
  schedules: ScanSchedules;
  audit: ScanAudit;
  clock: Clock;
}

/** What every kind's definition works with: the allowed targets, the nodes, the jobs and schedules. */
export interface KindDependencies {
  targets: TargetRules;
  nodes: ScanNodes;
  jobs: ScanJobs;
  schedules: ScanSchedules;
}
