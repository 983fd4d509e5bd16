import type { JobState } from '../db/schema.js';

export { JOB_STATES, type JobState } from '../db/schema.js';

/** A background job as the queue keeps it. Every time is the application clock's. */
export interface Job {
  id: string;
  /** Null for a system job. */
  organizationId: string | null;
  kind: string;
  payload: unknown;
  state: JobState;
  /** Claims so far: the first run is attempt 1. */
  attempts: number;
  maxAttempts: number;
  /** Not before this time (a retry's backoff moves it on). */
  runAt: Date;
  /** The worker holding the lease while Running. */
  lockedBy: string | null;
  leaseUntil: Date | null;
  /** Why the last attempt failed; kept when the job is given up (Failed). */
  lastError: string | null;
  dedupKey: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface JobPage {
  items: Job[];
  nextCursor: string | null;
  totalCount: number;
}

/** What enqueues a job at the times of its rule (src/jobs/scheduler.ts). */
export interface Schedule {
  id: string;
  /** Null for a system schedule. */
  organizationId: string | null;
  /** Unique per organisation (and among system schedules), e.g. `discovery-scan:<id>`. */
  key: string;
  rule: import('./schedule-rule.js').ScheduleRule;
  /** The job each occurrence enqueues. */
  jobKind: string;
  payload: unknown;
  maxAttempts: number;
  enabled: boolean;
  /** Null once it fires no more (a once schedule that fired). */
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
