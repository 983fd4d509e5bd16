import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../lib/cursor.js';
import { uuidv7 } from '../lib/uuidv7.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { assertPayload, type JobKind, type JobPayload } from './catalogue.js';
import { JobRepository } from './repository.js';
import { JOB_STATES, type Job, type JobPage, type JobState } from './types.js';

export interface EnqueueOptions {
  /** Not before this time; now when left out. */
  runAt?: Date;
  /** Attempts before the job is given up (Failed); at least 1. */
  maxAttempts?: number;
  /** While a job of the same kind with this key is Queued or Running, enqueue returns its id instead. */
  dedupKey?: string;
  /** Left out for a system job. */
  organizationId?: string;
}

export interface BackoffOptions {
  /** The wait after the first failed attempt. */
  baseMs: number;
  /** No wait is longer. */
  maxMs: number;
}

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 30_000, maxMs: 3_600_000 };
export const MAX_PAGE_SIZE = 500;

/**
 * The wait before a failed job runs again: exponential in the attempts made so far, capped.
 * With the defaults: 30 s after the first failure, then 1, 2, 4, 8, 16, 32 min, then 1 h each time.
 * No jitter, so that the clock a test moves decides exactly when a retry is due.
 */
export function backoff(attempts: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, attempts - 1);
  return Math.min(options.maxMs, options.baseMs * 2 ** Math.min(exponent, 30));
}

const invalid = (detail: string) => AppError.of(Problems.ValidationFailed, detail);

/**
 * The durable job queue (issue 14, item 1), the same on the embedded database and PostgreSQL.
 * A worker claims jobs with a lease, renews it while it runs one, then completes or fails it; a
 * job whose lease ran out is claimed again by any worker (the first one died), and the first
 * worker can then no longer complete or fail it. Every time comes from the injected clock.
 */
export class JobQueue {
  private readonly repo: JobRepository;
  private readonly wakers = new Set<() => void>();

  constructor(
    db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly options: { backoff?: BackoffOptions; defaultMaxAttempts?: number } = {},
  ) {
    this.repo = new JobRepository(db);
  }

  /**
   * Adds a Queued job of a kind of the catalogue (src/jobs/catalogue.ts) and returns its id; with a
   * dedupKey already Queued or Running, that job's id. The payload's type follows from the kind,
   * and is checked against the kind's schema: a wrong one throws JobPayloadInvalid.
   */
  async enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayload<K>,
    options: EnqueueOptions = {},
    trx?: Transaction<DB>,
  ): Promise<string> {
    assertPayload(kind, payload);
    return this.enqueueUnchecked(kind, payload, options, trx);
  }

  /**
   * Adds a job of any kind, its payload unchecked: for the scheduler, whose schedules were typed
   * when saved (and whose jobs are checked again when claimed), and for tests of the queue itself.
   */
  async enqueueUnchecked(
    kind: string,
    payload: unknown,
    options: EnqueueOptions = {},
    trx?: Transaction<DB>,
  ): Promise<string> {
    if (!kind.trim()) throw invalid('A job needs a kind.');
    const maxAttempts = options.maxAttempts ?? this.options.defaultMaxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw invalid(`maxAttempts must be a whole number of at least 1, not ${maxAttempts}.`);
    if (options.runAt && Number.isNaN(options.runAt.getTime())) throw invalid('runAt is not a valid time.');
    const dedupKey = options.dedupKey ?? null;
    // The unfinished job with the key may finish between the insert and the look-up: try again.
    for (let tries = 0; tries < 3; tries++) {
      const now = this.clock();
      const id = await this.repo.insert(
        {
          id: uuidv7(now.getTime()),
          organizationId: options.organizationId ?? null,
          kind,
          payload,
          maxAttempts,
          runAt: options.runAt ?? now,
          dedupKey,
          now,
        },
        trx,
      );
      if (id) {
        // In a caller's transaction the job is not visible before it commits: the caller nudges then.
        if (!trx) this.nudge();
        return id;
      }
      const existing = await this.repo.findUnfinishedByDedupKey(kind, dedupKey!, trx);
      if (existing) return existing;
    }
    throw new Error(`Could not enqueue a ${kind} job with dedup key ${dedupKey}.`);
  }

  /**
   * Tells this process's workers that a job may be waiting, so that it starts now rather than at
   * the next poll. enqueue() does it itself; a caller that enqueued in its own transaction calls
   * it after the commit.
   */
  nudge(): void {
    for (const wake of this.wakers) wake();
  }

  /** Follows nudge(); returns the function that stops following. */
  onNudge(wake: () => void): () => void {
    this.wakers.add(wake);
    return () => this.wakers.delete(wake);
  }

  /**
   * Ends the leases of every Running job now, so that the next claim takes them up at once: for
   * the embedded database at start, which only this process uses, so whoever held them is gone.
   */
  expireLeases(): Promise<number> {
    return this.repo.expireLeases(this.clock());
  }

  /** Deletes the Completed and Cancelled jobs that finished before `before`; Failed ones stay for a look. */
  purgeFinished(before: Date): Promise<number> {
    return this.repo.purgeFinished(before);
  }

  /**
   * For the metrics: Queued and Running jobs by kind, and the age in seconds of each kind's oldest
   * Queued job that is due (how long the queue keeps work waiting), by the application clock.
   */
  async figures(): Promise<{
    states: { kind: string; state: JobState; count: number }[];
    oldestDueAge: { kind: string; seconds: number }[];
  }> {
    const now = this.clock();
    const { states, oldestDue } = await this.repo.figures(now);
    return {
      states,
      oldestDueAge: oldestDue.map((o) => ({
        kind: o.kind,
        seconds: Math.max(0, (now.getTime() - o.runAt.getTime()) / 1000),
      })),
    };
  }

  /** The payloads of the jobs of `kind` that are waiting or running. */
  unfinishedPayloads(kind: string): Promise<unknown[]> {
    return this.repo.unfinishedPayloads(kind);
  }

  /**
   * Of `ids` (of imports or scan runs), those that a job waiting or running names (`importId` or
   * `runId` in its payload): its work is still to come.
   */
  namedByUnfinished(ids: readonly string[]): Promise<Set<string>> {
    return this.repo.namedByUnfinished(ids);
  }

  /** The newest job of `kind` with `dedupKey`, finished or not. */
  findByDedupKey(kind: string, dedupKey: string): Promise<Job | undefined> {
    return this.repo.findNewestByDedupKey(kind, dedupKey);
  }

  /**
   * Claims up to `limit` due jobs of `kinds` for `workerId`, holding each for `leaseMs`: Queued jobs
   * whose run_at has come, and Running jobs whose lease ran out. Each claim is one more attempt; a
   * job whose lease ran out on its last attempt is given up instead.
   */
  async claim(workerId: string, kinds: readonly string[], leaseMs: number, limit: number): Promise<Job[]> {
    if (kinds.length === 0 || limit < 1) return [];
    if (!(leaseMs > 0)) throw invalid('leaseMs must be positive.');
    const now = this.clock();
    await this.repo.giveUpExpired(kinds, now);
    return this.repo.claim(workerId, kinds, now, new Date(now.getTime() + leaseMs), limit);
  }

  /** Extends the lease by `leaseMs` from now; false when the lease was lost to another worker. */
  renew(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    const now = this.clock();
    return this.repo.renew(id, workerId, now, new Date(now.getTime() + leaseMs));
  }

  /** Marks a job the worker holds Completed; false (and nothing changed) when the lease was lost. */
  complete(id: string, workerId: string): Promise<boolean> {
    const now = this.clock();
    return this.repo.release(id, workerId, { state: 'Completed', finishedAt: now, now });
  }

  /**
   * Records a failed attempt of a job the worker holds: Queued again after `backoff(attempts)`, or
   * given up (Failed) with the error kept once max_attempts were made, or at once with `giveUp`
   * (another attempt would fail alike). False when the lease was lost.
   */
  fail(id: string, workerId: string, error: unknown, options: { giveUp?: boolean } = {}): Promise<boolean> {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 4000);
    return this.repo.transaction(async (trx) => {
      const job = await this.repo.lockHeld(trx, id, workerId);
      if (!job) return false;
      const now = this.clock();
      const change =
        options.giveUp || job.attempts >= job.maxAttempts
          ? { state: 'Failed' as const, lastError: message, finishedAt: now, now }
          : {
              state: 'Queued' as const,
              lastError: message,
              runAt: new Date(now.getTime() + backoff(job.attempts, this.options.backoff)),
              finishedAt: null,
              now,
            };
      return this.repo.release(id, workerId, change, trx);
    });
  }

  /**
   * Puts a job the worker holds back in the queue for `delayMs` without counting the attempt: the
   * worker could not run it here, another may (see JobDeferred). False when the lease was lost.
   */
  defer(id: string, workerId: string, delayMs: number): Promise<boolean> {
    return this.repo.transaction(async (trx) => {
      const job = await this.repo.lockHeld(trx, id, workerId);
      if (!job) return false;
      const now = this.clock();
      return this.repo.release(
        id,
        workerId,
        {
          state: 'Queued',
          runAt: new Date(now.getTime() + delayMs),
          attempts: Math.max(0, job.attempts - 1),
          finishedAt: null,
          now,
        },
        trx,
      );
    });
  }

  /**
   * The job `id`. With `organizationId`, only when it is that organisation's or a system job:
   * another organisation's job is as unknown as a missing one (GET /jobs/{Id}).
   */
  get(id: string, organizationId?: string): Promise<Job | undefined> {
    return organizationId === undefined ? this.repo.findById(id) : this.repo.findVisible(organizationId, id);
  }

  /**
   * Jobs newest first, filtered by kind and state, for GET /jobs. With `organizationId`, that
   * organisation's jobs and the system jobs only, never another organisation's.
   */
  async list(params: {
    kind?: string;
    state?: string;
    pageSize: number;
    cursor?: string;
    organizationId?: string;
  }): Promise<JobPage> {
    const { kind, pageSize, cursor, organizationId } = params;
    if (params.state !== undefined && !(JOB_STATES as readonly string[]).includes(params.state))
      throw invalid(`State must be one of ${JOB_STATES.join(', ')}; ${params.state} is not.`);
    const state = params.state as JobState | undefined;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
      throw invalid(`PageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}, not ${pageSize}.`);
    const after = cursor === undefined ? undefined : decodeCreatedAtCursor(cursor);
    if (cursor !== undefined && !after)
      throw invalid('Cursor is not valid; pass the NextCursor of a previous page.');
    const filter = { kind, state, organizationId };
    const rows = await this.repo.listPage(filter, pageSize + 1, after);
    return { ...createdAtPage(rows, pageSize), totalCount: await this.repo.count(filter) };
  }
}
