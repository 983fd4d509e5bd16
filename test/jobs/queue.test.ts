import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../../src/db/database.js';
import { backoff, JobQueue } from '../../src/jobs/queue.js';
import { AppError } from '../../src/problems/app-error.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

// Issue 14, item 1: the durable job queue, the same on the embedded server and PostgreSQL, on a clock the test moves.
const T0 = new Date('2026-11-21T12:00:00.000Z');
const SECOND = 1000;
const BACKOFF = { baseMs: 10 * SECOND, maxMs: 60 * SECOND };

describe.each(DB_KINDS)('job queue [%s]', (kind) => {
  let tdb: TestDatabase;
  let now: Date;
  const clock = () => new Date(now);
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  let queue: JobQueue;
  let n = 0;
  /** A job kind of its own for each test, so that tests do not claim each other's jobs. */
  let k: string;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    queue = new JobQueue(tdb.database.db, clock, { backoff: BACKOFF });
  });
  afterAll(() => tdb.drop());
  beforeEach(() => {
    now = new Date(T0);
    k = `test-kind-${++n}`;
  });

  it('enqueues, claims and completes a job, with every time from the clock', async () => {
    const id = await queue.enqueueUnchecked(k, { a: 1 });
    const queued = await queue.get(id);
    expect(queued).toMatchObject({
      kind: k,
      payload: { a: 1 },
      state: 'Queued',
      attempts: 0,
      maxAttempts: 5,
      organizationId: null,
      lockedBy: null,
      finishedAt: null,
    });
    expect(queued!.runAt.toISOString()).toBe(T0.toISOString());
    expect(queued!.createdAt.toISOString()).toBe(T0.toISOString());

    advance(SECOND);
    const [job, ...rest] = await queue.claim('w1', [k], 30 * SECOND, 10);
    expect(rest).toEqual([]);
    expect(job).toMatchObject({ id, state: 'Running', attempts: 1, lockedBy: 'w1' });
    expect(job!.leaseUntil!.toISOString()).toBe(new Date(T0.getTime() + 31 * SECOND).toISOString());
    expect(await queue.claim('w2', [k], 30 * SECOND, 10)).toEqual([]);

    advance(SECOND);
    expect(await queue.complete(id, 'w1')).toBe(true);
    const done = await queue.get(id);
    expect(done).toMatchObject({ state: 'Completed', lockedBy: null, leaseUntil: null });
    expect(done!.finishedAt!.toISOString()).toBe(new Date(T0.getTime() + 2 * SECOND).toISOString());
    expect(await queue.complete(id, 'w1')).toBe(false);
  });

  it('claims only due jobs of the kinds asked for, up to the limit, oldest run_at first', async () => {
    const later = await queue.enqueueUnchecked(k, {}, { runAt: new Date(T0.getTime() + 60 * SECOND) });
    const a = await queue.enqueueUnchecked(k, { n: 'a' });
    advance(1);
    const b = await queue.enqueueUnchecked(k, { n: 'b' });
    await queue.enqueueUnchecked(`${k}-other`, {});
    advance(1);
    const first = await queue.claim('w1', [k], 30 * SECOND, 1);
    expect(first.map((j) => j.id)).toEqual([a]);
    const second = await queue.claim('w1', [k], 30 * SECOND, 5);
    expect(second.map((j) => j.id)).toEqual([b]);
    for (const id of [a, b]) expect(await queue.complete(id, 'w1')).toBe(true);
    advance(60 * SECOND);
    expect((await queue.claim('w1', [k], 30 * SECOND, 5)).map((j) => j.id)).toEqual([later]);
    expect(await queue.claim('w1', [], 30 * SECOND, 5)).toEqual([]);
  });

  it('never gives two workers the same job when they claim at once', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(await queue.enqueueUnchecked(k, { i }));
    let other: Database | undefined;
    try {
      // On PostgreSQL the second worker claims through a connection pool of its own.
      other = tdb.url ? await openPostgres(tdb.url, 3) : undefined;
      const queue2 = other ? new JobQueue(other.db, clock) : queue;
      const claims = await Promise.all([
        queue.claim('w1', [k], 30 * SECOND, 7),
        queue2.claim('w2', [k], 30 * SECOND, 7),
        queue.claim('w3', [k], 30 * SECOND, 7),
        queue2.claim('w4', [k], 30 * SECOND, 7),
      ]);
      const claimed = claims.flat().map((j) => j.id);
      expect(claimed).toHaveLength(20);
      expect(new Set(claimed)).toEqual(ids);
      for (const [i, c] of claims.entries()) for (const j of c) expect(j.lockedBy).toBe(`w${i + 1}`);
    } finally {
      await other?.close();
    }
  });

  it('lets another worker claim a job whose lease ran out, and refuses the first worker', async () => {
    const id = await queue.enqueueUnchecked(k, {});
    await queue.claim('w1', [k], 30 * SECOND, 1);
    advance(20 * SECOND);
    expect(await queue.renew(id, 'w1', 30 * SECOND)).toBe(true); // lease until T0 + 50 s
    advance(29 * SECOND);
    expect(await queue.claim('w2', [k], 30 * SECOND, 1)).toEqual([]);
    advance(2 * SECOND); // past the lease: w1 is taken for dead
    const [again] = await queue.claim('w2', [k], 30 * SECOND, 1);
    expect(again).toMatchObject({ id, attempts: 2, lockedBy: 'w2', state: 'Running' });
    expect(await queue.complete(id, 'w1')).toBe(false);
    expect(await queue.fail(id, 'w1', new Error('late'))).toBe(false);
    expect(await queue.renew(id, 'w1', 30 * SECOND)).toBe(false);
    expect(await queue.get(id)).toMatchObject({ state: 'Running', lockedBy: 'w2', lastError: null });
    expect(await queue.complete(id, 'w2')).toBe(true);
    expect(await queue.get(id)).toMatchObject({ state: 'Completed', attempts: 2 });
  });

  it('gives up a job whose lease ran out on its last attempt', async () => {
    const id = await queue.enqueueUnchecked(k, {}, { maxAttempts: 1 });
    await queue.claim('w1', [k], 30 * SECOND, 1);
    advance(31 * SECOND);
    expect(await queue.claim('w2', [k], 30 * SECOND, 1)).toEqual([]);
    const job = await queue.get(id);
    expect(job).toMatchObject({ state: 'Failed', attempts: 1, lockedBy: null });
    expect(job!.lastError).toMatch(/lease ran out/);
  });

  it('retries a failed job after an exponential, capped backoff, then gives it up with the reason', async () => {
    expect([1, 2, 3, 4, 5].map((a) => backoff(a, BACKOFF))).toEqual(
      [10, 20, 40, 60, 60].map((s) => s * SECOND),
    );
    expect(backoff(1)).toBe(30 * SECOND);
    expect(backoff(1000)).toBe(3_600_000);

    const id = await queue.enqueueUnchecked(k, {}, { maxAttempts: 3 });
    for (const [attempt, wait] of [
      [1, 10],
      [2, 20],
    ] as const) {
      const [job] = await queue.claim('w1', [k], 30 * SECOND, 1);
      expect(job).toMatchObject({ id, attempts: attempt });
      expect(await queue.fail(id, 'w1', new Error(`boom ${attempt}`))).toBe(true);
      const queued = await queue.get(id);
      expect(queued).toMatchObject({ state: 'Queued', lastError: `boom ${attempt}`, lockedBy: null });
      expect(queued!.runAt.getTime() - now.getTime()).toBe(wait * SECOND);
      advance(wait * SECOND - 1);
      expect(await queue.claim('w1', [k], 30 * SECOND, 1)).toEqual([]);
      advance(1);
    }
    await queue.claim('w1', [k], 30 * SECOND, 1);
    expect(await queue.fail(id, 'w1', 'out of luck')).toBe(true);
    const failed = await queue.get(id);
    expect(failed).toMatchObject({ state: 'Failed', attempts: 3, lastError: 'out of luck' });
    expect(failed!.finishedAt!.toISOString()).toBe(now.toISOString());
    advance(3_600_000);
    expect(await queue.claim('w1', [k], 30 * SECOND, 1)).toEqual([]);
  });

  it('returns the unfinished job with the same dedup key instead of adding one', async () => {
    const id = await queue.enqueueUnchecked(k, { v: 1 }, { dedupKey: 'feed-x' });
    expect(await queue.enqueueUnchecked(k, { v: 2 }, { dedupKey: 'feed-x' })).toBe(id);
    const other = await queue.enqueueUnchecked(`${k}-b`, {}, { dedupKey: 'feed-x' });
    expect(other).not.toBe(id);
    const plain = await queue.enqueueUnchecked(k, {});
    expect(plain).not.toBe(id);
    expect((await queue.claim('w1', [k], 30 * SECOND, 5)).map((j) => j.id).sort()).toEqual(
      [id, plain].sort(),
    );
    expect(await queue.enqueueUnchecked(k, {}, { dedupKey: 'feed-x' })).toBe(id); // Running still counts
    expect(await queue.complete(id, 'w1')).toBe(true);
    const next = await queue.enqueueUnchecked(k, { v: 3 }, { dedupKey: 'feed-x' });
    expect(next).not.toBe(id);
    expect(await queue.get(next)).toMatchObject({ state: 'Queued', payload: { v: 3 } });
  });

  it('enqueues inside a caller’s transaction: a rolled-back transaction leaves no job', async () => {
    await expect(
      tdb.database.db.transaction().execute(async (trx) => {
        await queue.enqueueUnchecked(k, {}, {}, trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await queue.list({ kind: k, pageSize: 10 })).totalCount).toBe(0);
  });

  it('lists jobs newest first, by kind and state, a page at a time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await queue.enqueueUnchecked(k, { i }));
      advance(SECOND);
    }
    await queue.claim('w1', [k], 30 * SECOND, 2);
    const first = await queue.list({ kind: k, pageSize: 2 });
    expect(first.totalCount).toBe(5);
    expect(first.items.map((j) => j.id)).toEqual([ids[4], ids[3]]);
    const second = await queue.list({ kind: k, pageSize: 2, cursor: first.nextCursor! });
    expect(second.items.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    const third = await queue.list({ kind: k, pageSize: 2, cursor: second.nextCursor! });
    expect(third.items.map((j) => j.id)).toEqual([ids[0]]);
    expect(third.nextCursor).toBeNull();
    const running = await queue.list({ kind: k, state: 'Running', pageSize: 10 });
    expect(running.items.map((j) => j.id)).toEqual([ids[1], ids[0]]);
    expect(running.totalCount).toBe(2);
    expect((await queue.list({ kind: `${k}-none`, pageSize: 10 })).items).toEqual([]);
  });

  it('refuses bad input with a clear error', async () => {
    const refused = async (p: Promise<unknown>, message: RegExp) => {
      const error = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).problem.slug).toBe('validation-failed');
      expect((error as AppError).message).toMatch(message);
    };
    await refused(queue.list({ state: 'Done', pageSize: 10 }), /State must be one of Queued, Running/);
    await refused(queue.list({ pageSize: 0 }), /PageSize must be a whole number from 1 to 500/);
    await refused(queue.list({ pageSize: 501 }), /PageSize/);
    await refused(queue.list({ pageSize: 10, cursor: 'nonsense' }), /Cursor is not valid/);
    await refused(
      queue.enqueueUnchecked(k, {}, { maxAttempts: 0 }),
      /maxAttempts must be a whole number of at least 1/,
    );
    await refused(queue.enqueueUnchecked(k, {}, { maxAttempts: 1.5 }), /maxAttempts/);
    await refused(queue.enqueueUnchecked(' ', {}), /needs a kind/);
    expect((await queue.list({ kind: k, pageSize: 10 })).totalCount).toBe(0);
  });
});
