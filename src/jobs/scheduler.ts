import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/uuidv7.js';
import { invalid } from '../problems/app-error.js';
import { DEFAULT_MAX_ATTEMPTS, type JobQueue } from './queue.js';
import { ScheduleRepository } from './schedule-repository.js';
import { firstRun, nextRun, ruleToJson, type ScheduleRule, validateRule } from './schedule-rule.js';
import type { Schedule } from './types.js';

export interface ScheduleInput {
  /** Null or left out for a system schedule. */
  organizationId?: string | null;
  /** Unique per organisation, e.g. `discovery-scan:<id>`. */
  key: string;
  rule: ScheduleRule;
  jobKind: string;
  payload?: unknown;
  /** Attempts of each occurrence's job. */
  maxAttempts?: number;
  /** Default true. */
  enabled?: boolean;
}

/** One occurrence fired by a tick: the job it enqueued. */
export interface Fired {
  scheduleId: string;
  key: string;
  occurrence: Date;
  jobId: string;
}

/** Due schedules fired by one transaction of a tick; a tick takes as many as are due. */
const BATCH = 100;

/** A stored rule that no longer computes (a time zone this runtime dropped) stops its schedule, not the others. */
function nextRunOrNone(rule: ScheduleRule, occurrence: Date, now: Date): Date | null {
  try {
    return nextRun(rule, occurrence, now);
  } catch {
    return null;
  }
}

/** The dedup key of an occurrence's job: another enqueue of the same occurrence finds it. */
export const occurrenceKey = (scheduleId: string, occurrence: Date) =>
  `schedule:${scheduleId}:${occurrence.toISOString()}`;

/**
 * Schedules that enqueue jobs (issue 14). `tick()` fires every due schedule once per occurrence
 * however many instances tick at the same moment: due rows are claimed with FOR UPDATE SKIP LOCKED
 * and, in the same transaction, the occurrence's job is enqueued and next_run_at moved past now.
 * An instance that tries a row another is firing skips it, and finds it no longer due once that
 * one commits. Occurrences missed while nothing ran fire once, for the earliest of them.
 */
export class Scheduler {
  private readonly repo: ScheduleRepository;

  constructor(
    db: Kysely<DB>,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
  ) {
    this.repo = new ScheduleRepository(db);
  }

  /**
   * Makes or changes the schedule of (organisation, key). An unchanged rule keeps its next run,
   * so that instances registering the same system schedule at start do not move it; a changed
   * rule (or a schedule enabled again) runs next at the rule's first time from now.
   */
  async upsert(input: ScheduleInput): Promise<Schedule> {
    const organizationId = input.organizationId ?? null;
    if (!input.key.trim()) throw invalid('key', 'A schedule needs a key.');
    if (!input.jobKind.trim()) throw invalid('jobKind', 'A schedule needs the kind of job it enqueues.');
    const maxAttempts = input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw invalid('maxAttempts', `maxAttempts must be a whole number of at least 1, not ${maxAttempts}.`);
    validateRule(input.rule);
    const rule = JSON.stringify(ruleToJson(input.rule));
    const payload = JSON.stringify(input.payload ?? null);
    const enabled = input.enabled ?? true;
    await this.repo.transaction(async (trx) => {
      const now = this.clock();
      const row = {
        rule,
        jobKind: input.jobKind,
        payload,
        maxAttempts,
        enabled,
        nextRunAt: enabled ? firstRun(input.rule, now) : null,
        now,
      };
      const inserted = await this.repo.insert(trx, {
        ...row,
        id: uuidv7(now.getTime()),
        organizationId,
        key: input.key,
      });
      if (inserted) return;
      const existing = (await this.repo.lock(trx, organizationId, input.key))!;
      const sameRule = JSON.stringify(ruleToJson(existing.rule)) === rule;
      const keepNext = sameRule && existing.enabled && enabled;
      await this.repo.update(trx, existing.id, {
        ...row,
        enabled: enabled && (keepNext ? existing.nextRunAt !== null : row.nextRunAt !== null),
        nextRunAt: keepNext ? existing.nextRunAt : row.nextRunAt,
      });
    });
    return (await this.repo.find(organizationId, input.key))!;
  }

  /** Removes the schedule; false when there was none. Jobs it enqueued already still run. */
  remove(organizationId: string | null, key: string): Promise<boolean> {
    return this.repo.remove(organizationId, key);
  }

  get(organizationId: string | null, key: string): Promise<Schedule | undefined> {
    return this.repo.find(organizationId, key);
  }

  /** Whether the organisation has a schedule with this id (the id the original's clients send). */
  exists(organizationId: string, id: string): Promise<boolean> {
    return this.repo.hasId(organizationId, id);
  }

  /** Fires every due schedule once and nudges this process's worker; returns what it fired. */
  async tick(): Promise<Fired[]> {
    const fired: Fired[] = [];
    for (;;) {
      const batch = await this.repo.transaction(async (trx) => {
        const now = this.clock();
        const due = await this.repo.claimDue(trx, now, BATCH);
        const done: Fired[] = [];
        for (const schedule of due) {
          const occurrence = schedule.nextRunAt!;
          // The kind and payload were checked when the schedule was saved; the worker checks them
          // again when it claims the job, and fails one a stored schedule left wrong.
          const jobId = await this.queue.enqueueUnchecked(
            schedule.jobKind,
            schedule.payload,
            {
              organizationId: schedule.organizationId ?? undefined,
              dedupKey: occurrenceKey(schedule.id, occurrence),
              maxAttempts: schedule.maxAttempts,
            },
            trx,
          );
          await this.repo.advance(trx, schedule.id, {
            nextRunAt: nextRunOrNone(schedule.rule, occurrence, now),
            lastRunAt: now,
            now,
          });
          done.push({ scheduleId: schedule.id, key: schedule.key, occurrence, jobId });
        }
        return done;
      });
      fired.push(...batch);
      if (batch.length < BATCH) break;
    }
    if (fired.length > 0) this.queue.nudge();
    return fired;
  }
}
