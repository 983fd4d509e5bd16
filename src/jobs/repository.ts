import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { DB, JobState, JobsTable } from '../db/schema.js';
import type { Job } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const UNFINISHED: JobState[] = ['Queued', 'Running'];

/**
 * What a listing keeps. With `organizationId`, that organisation's jobs and the system jobs only
 * (tenant isolation); without it, every job (the queue's own callers, not the API).
 */
export interface JobFilter {
  kind?: string;
  state?: JobState;
  organizationId?: string;
}

const toJob = (r: Selectable<JobsTable>): Job => ({
  id: r.id,
  organizationId: r.organization_id,
  kind: r.kind,
  payload: r.payload,
  state: r.state,
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  runAt: new Date(r.run_at),
  lockedBy: r.locked_by,
  leaseUntil: r.lease_until === null ? null : new Date(r.lease_until),
  lastError: r.last_error,
  dedupKey: r.dedup_key,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  finishedAt: r.finished_at === null ? null : new Date(r.finished_at),
});

/** The SQL of the job queue (table `jobs`). Callers pass every time, taken from the application clock. */
export class JobRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Inserts a Queued job; undefined when an unfinished job of the kind has the same dedup key. */
  async insert(
    row: {
      id: string;
      organizationId: string | null;
      kind: string;
      payload: unknown;
      maxAttempts: number;
      runAt: Date;
      dedupKey: string | null;
      now: Date;
    },
    trx?: Transaction<DB>,
  ): Promise<string | undefined> {
    const inserted = await (trx ?? this.db)
      .insertInto('jobs')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        kind: row.kind,
        payload: JSON.stringify(row.payload ?? null),
        state: 'Queued',
        attempts: 0,
        max_attempts: row.maxAttempts,
        run_at: row.runAt,
        dedup_key: row.dedupKey,
        created_at: row.now,
        updated_at: row.now,
      })
      .onConflict((oc) =>
        oc
          .columns(['kind', 'dedup_key'])
          .where('state', 'in', UNFINISHED)
          .where('dedup_key', 'is not', null)
          .doNothing(),
      )
      .returning('id')
      .executeTakeFirst();
    return inserted?.id;
  }

  /** The unfinished job of `kind` with `dedupKey`, if any. */
  async findUnfinishedByDedupKey(kind: string, dedupKey: string, trx?: Transaction<DB>) {
    const row = await (trx ?? this.db)
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', kind)
      .where('dedup_key', '=', dedupKey)
      .where('state', 'in', UNFINISHED)
      .executeTakeFirst();
    return row?.id;
  }

  async findNewestByDedupKey(kind: string, dedupKey: string): Promise<Job | undefined> {
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('dedup_key', '=', dedupKey)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toJob(row);
  }

  async purgeFinished(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('jobs')
      .where('state', 'in', ['Completed', 'Cancelled'])
      .where('finished_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Ends every Running job's lease at `now` less a millisecond: the next claim takes them. */
  async expireLeases(now: Date): Promise<number> {
    const result = await this.db
      .updateTable('jobs')
      .set({ lease_until: new Date(now.getTime() - 1), updated_at: now })
      .where('state', '=', 'Running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async findById(id: string, db: Db = this.db): Promise<Job | undefined> {
    const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  /** The payloads of the Queued and Running jobs of `kind`. */
  async unfinishedPayloads(kind: string): Promise<unknown[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', kind)
      .where('state', 'in', UNFINISHED)
      .execute();
    return rows.map((r) => r.payload);
  }

  /** Of `ids`, those that a Queued or Running job's payload names as its `importId` or `runId`. */
  async namedByUnfinished(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await sql<{ id: string }>`
      select distinct coalesce(payload->>'importId', payload->>'runId') as id
        from jobs
       where state in ('Queued', 'Running')
         and coalesce(payload->>'importId', payload->>'runId') = any(${[...ids]}::text[])`.execute(this.db);
    return new Set(rows.rows.map((r) => r.id));
  }

  /**
   * Gives up the Running jobs of `kinds` whose lease ran out on their last attempt: their worker
   * died, and no attempt is left to claim them again.
   */
  async giveUpExpired(kinds: readonly string[], now: Date): Promise<number> {
    const result = await this.db
      .updateTable('jobs')
      .set({
        state: 'Failed',
        last_error: 'The lease ran out on the last attempt: the worker stopped while running the job.',
        locked_by: null,
        lease_until: null,
        updated_at: now,
        finished_at: now,
      })
      .where('kind', 'in', [...kinds])
      .where('state', '=', 'Running')
      .where('lease_until', '<', now)
      .whereRef('attempts', '>=', 'max_attempts')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Claims up to `limit` jobs of `kinds` in one statement: Queued ones that are due and Running ones
   * whose lease ran out (their worker died). Rows another transaction is claiming are skipped, so
   * two workers never get the same job.
   */
  async claim(
    workerId: string,
    kinds: readonly string[],
    now: Date,
    leaseUntil: Date,
    limit: number,
  ): Promise<Job[]> {
    const { rows } = await sql<Selectable<JobsTable>>`
      update jobs
         set state = 'Running',
             attempts = attempts + 1,
             locked_by = ${workerId},
             lease_until = ${leaseUntil}::timestamptz,
             updated_at = ${now}::timestamptz
       where id in (
         select id
           from jobs
          where kind = any(${[...kinds]}::text[])
            and ((state = 'Queued' and run_at <= ${now}::timestamptz)
              or (state = 'Running' and lease_until < ${now}::timestamptz and attempts < max_attempts))
          order by run_at, id
          limit ${limit}
          for update skip locked)
      returning *`.execute(this.db);
    return rows.map(toJob).sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  /** Extends the lease of a job `workerId` still holds; false when the lease was lost. */
  async renew(id: string, workerId: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ lease_until: leaseUntil, updated_at: now })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('state', '=', 'Running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The job `workerId` holds, locked for this transaction; undefined when the lease was lost. */
  async lockHeld(trx: Transaction<DB>, id: string, workerId: string): Promise<Job | undefined> {
    const row = await trx
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('state', '=', 'Running')
      .forUpdate()
      .executeTakeFirst();
    return row && toJob(row);
  }

  /** Ends the lease of a job `workerId` holds with a new state; false when the lease was lost. */
  async release(
    id: string,
    workerId: string,
    change: {
      state: JobState;
      runAt?: Date;
      attempts?: number;
      lastError?: string | null;
      finishedAt: Date | null;
      now: Date;
    },
    db: Db = this.db,
  ): Promise<boolean> {
    const result = await db
      .updateTable('jobs')
      .set({
        state: change.state,
        ...(change.runAt ? { run_at: change.runAt } : {}),
        ...(change.attempts !== undefined ? { attempts: change.attempts } : {}),
        ...(change.lastError !== undefined ? { last_error: change.lastError } : {}),
        locked_by: null,
        lease_until: null,
        updated_at: change.now,
        finished_at: change.finishedAt,
      })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('state', '=', 'Running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * The job `id` as `organizationId` may see it: its own jobs and the system jobs (no organisation),
   * never another organisation's.
   */
  async findVisible(organizationId: string, id: string): Promise<Job | undefined> {
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('organization_id', 'is', null)]))
      .executeTakeFirst();
    return row && toJob(row);
  }

  /** A page of jobs, newest first, after the (createdAt, id) of the last row of the page before. */
  async listPage(
    filter: JobFilter,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<Job[]> {
    let q = this.db.selectFrom('jobs').selectAll();
    if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
    if (filter.state !== undefined) q = q.where('state', '=', filter.state);
    if (filter.organizationId !== undefined) {
      const org = filter.organizationId;
      q = q.where((eb) => eb.or([eb('organization_id', '=', org), eb('organization_id', 'is', null)]));
    }
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', new Date(after.createdAt)),
          eb.and([eb('created_at', '=', new Date(after.createdAt)), eb('id', '<', after.id)]),
        ]),
      );
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toJob);
  }

  async count(filter: JobFilter): Promise<number> {
    let q = this.db.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n'));
    if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
    if (filter.state !== undefined) q = q.where('state', '=', filter.state);
    if (filter.organizationId !== undefined) {
      const org = filter.organizationId;
      q = q.where((eb) => eb.or([eb('organization_id', '=', org), eb('organization_id', 'is', null)]));
    }
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * For the metrics (docs/metrics.md), across organisations, labelled by kind only: how many jobs
   * are Queued and Running (the claim index's partial range), and per kind the run_at of the
   * oldest Queued job that is due by `now`.
   */
  async figures(now: Date): Promise<{
    states: { kind: string; state: JobState; count: number }[];
    oldestDue: { kind: string; runAt: Date }[];
  }> {
    const states = await this.db
      .selectFrom('jobs')
      .select(['kind', 'state', (eb) => eb.fn.countAll<string>().as('n')])
      .where('state', 'in', UNFINISHED)
      .groupBy(['kind', 'state'])
      .execute();
    const oldest = await this.db
      .selectFrom('jobs')
      .select(['kind', (eb) => eb.fn.min('run_at').as('run_at')])
      .where('state', '=', 'Queued')
      .where('run_at', '<=', now)
      .groupBy('kind')
      .execute();
    return {
      states: states.map((r) => ({ kind: r.kind, state: r.state, count: Number(r.n) })),
      oldestDue: oldest
        .filter((r) => r.run_at !== null)
        .map((r) => ({ kind: r.kind, runAt: new Date(r.run_at as Date | string) })),
    };
  }
}
