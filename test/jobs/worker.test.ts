import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import type { Job } from '../../src/jobs/types.js';
import { JobDeferred, type JobOutcome, JobWorker, WorkerStopping } from '../../src/jobs/worker.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

// Issue 14, item 1: the worker that runs the queue's jobs.
describe.each(DB_KINDS)('job worker [%s]', (kind) => {
  let tdb: TestDatabase;
  let now: Date;
  const clock = () => new Date(now);
  let queue: JobQueue;
  let n = 0;
  let k: string;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    queue = new JobQueue(tdb.database.db, clock, { backoff: { baseMs: 1000, maxMs: 1000 } });
  });
  afterAll(() => tdb.drop());
  beforeEach(() => {
    now = new Date('2026-11-21T12:00:00.000Z');
    k = `worker-kind-${++n}`;
  });

  it('polls and runs a registered handler, then completes the job', async () => {
    const seen: unknown[] = [];
    const worker = new JobWorker(queue, { pollMs: 10 }).register(k, async (job) => {
      seen.push(job.payload);
    });
    const id = await queue.enqueueUnchecked(k, { hello: 'world' });
    worker.start();
    try {
      await vi.waitFor(async () => expect((await queue.get(id))?.state).toBe('Completed'), { timeout: 5000 });
      expect(seen).toEqual([{ hello: 'world' }]);
    } finally {
      await worker.stop();
    }
  });

  it('puts a deferred job back without counting the attempt, and reports no error', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const worker = new JobWorker(queue, { onError: (e) => errors.push(e) }).register(k, async () => {
      calls++;
      if (calls === 1) throw new JobDeferred(5000, 'not here');
    });
    const id = await queue.enqueueUnchecked(k, {}, { maxAttempts: 1 });
    await worker.drain();
    expect(await queue.get(id)).toMatchObject({ state: 'Queued', attempts: 0, lockedBy: null });
    expect((await queue.get(id))!.runAt.toISOString()).toBe(new Date(now.getTime() + 5000).toISOString());
    await worker.drain(); // not due yet
    expect(calls).toBe(1);
    now = new Date(now.getTime() + 5000);
    await worker.drain();
    expect(await queue.get(id)).toMatchObject({ state: 'Completed', attempts: 1 });
    expect(errors).toEqual([]);
    await worker.stop();
  });

  it('retries a throwing handler’s job, then gives it up with the error', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const worker = new JobWorker(queue, { onError: (e) => errors.push(e) }).register(k, async () => {
      calls++;
      throw new Error(`attempt ${calls} broke`);
    });
    const id = await queue.enqueueUnchecked(k, {}, { maxAttempts: 2 });
    await worker.drain();
    expect(await queue.get(id)).toMatchObject({ state: 'Queued', attempts: 1, lastError: 'attempt 1 broke' });
    await worker.drain(); // not due yet: the backoff is a second
    expect(calls).toBe(1);
    now = new Date(now.getTime() + 1000);
    await worker.drain();
    expect(calls).toBe(2);
    expect(await queue.get(id)).toMatchObject({ state: 'Failed', attempts: 2, lastError: 'attempt 2 broke' });
    expect(errors.map((e) => (e as Error).message)).toEqual(['attempt 1 broke', 'attempt 2 broke']);
    await worker.stop();
  });

  it('runs no more handlers at once than its concurrency, and stop() waits for them', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const started: Job[] = [];
    let finished = 0;
    const worker = new JobWorker(queue, { concurrency: 2 }).register(k, async (job) => {
      started.push(job);
      await gate;
      finished++;
    });
    const ids = [
      await queue.enqueueUnchecked(k, {}),
      await queue.enqueueUnchecked(k, {}),
      await queue.enqueueUnchecked(k, {}),
    ];
    await worker.poll();
    await worker.poll();
    await vi.waitFor(() => expect(started).toHaveLength(2));
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(2);
    const states = await Promise.all(ids.map(async (id) => (await queue.get(id))!.state));
    expect(states.sort()).toEqual(['Completed', 'Completed', 'Queued']);
    await worker.poll(); // a stopped worker claims nothing
    expect(started).toHaveLength(2);
  });

  it('stop() lets handlers finish within its grace, then aborts the rest and puts their jobs back uncounted', async () => {
    type Mode = 'quick' | 'throws' | 'returns';
    const errors: unknown[] = [];
    const outcomes: [string, JobOutcome][] = [];
    let releaseQuick!: () => void;
    const quickGate = new Promise<void>((r) => {
      releaseQuick = r;
    });
    const reasons: unknown[] = [];
    const worker = new JobWorker(queue, {
      concurrency: 3,
      stopGraceMs: 200,
      onError: (e) => errors.push(e),
      onFinished: (job, outcome) => outcomes.push([job.id, outcome]),
    }).register(k, async (job, signal) => {
      const { mode } = job.payload as { mode: Mode };
      if (mode === 'quick') return quickGate;
      // Long jobs (a sync waiting on a source) that stop when told: by throwing, or by returning
      // quietly with their work unfinished.
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      reasons.push(signal.reason);
      if (mode === 'throws') throw signal.reason;
    });
    const quick = await queue.enqueueUnchecked(k, { mode: 'quick' }, { maxAttempts: 1 });
    const long = await queue.enqueueUnchecked(k, { mode: 'throws' }, { maxAttempts: 1 });
    const quiet = await queue.enqueueUnchecked(k, { mode: 'returns' }, { maxAttempts: 1 });
    await worker.poll();
    await vi.waitFor(async () => {
      expect((await queue.get(long))?.state).toBe('Running');
      expect((await queue.get(quiet))?.state).toBe('Running');
    });
    const stopping = worker.stop();
    releaseQuick();
    await stopping;
    expect(reasons).toHaveLength(2);
    for (const reason of reasons) expect(reason).toBeInstanceOf(WorkerStopping);
    expect(await queue.get(quick)).toMatchObject({ state: 'Completed', attempts: 1 });
    // Their one attempt is not spent: the next worker (this process's next start) runs them.
    for (const id of [long, quiet]) {
      expect(await queue.get(id)).toMatchObject({
        state: 'Queued',
        attempts: 0,
        lockedBy: null,
        lastError: null,
      });
      expect((await queue.get(id))!.runAt.toISOString()).toBe(now.toISOString());
    }
    expect(errors).toEqual([]);
    expect(outcomes.sort()).toEqual(
      [
        [quick, 'completed'],
        [long, 'deferred'],
        [quiet, 'deferred'],
      ].sort(),
    );
  });

  it('renews the lease while a handler runs, and aborts the handler once the lease is lost', async () => {
    const errors: string[] = [];
    let renewedUntil: Date | null = null;
    let aborted = false;
    const worker = new JobWorker(queue, {
      leaseMs: 60,
      onError: (e) => errors.push((e as Error).message),
    }).register(k, async (job, signal) => {
      // Renewals move lease_until on while the clock stands still: it only grows with the clock.
      now = new Date(now.getTime() + 1000);
      await vi.waitFor(async () => {
        renewedUntil = (await queue.get(job.id))!.leaseUntil;
        expect(renewedUntil!.getTime()).toBeGreaterThan(job.leaseUntil!.getTime());
      });
      // Another worker takes the job over once the lease has run out.
      now = new Date(now.getTime() + 3_600_000);
      expect(await queue.claim('other', [k], 60_000, 1)).toHaveLength(1);
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve());
      });
      aborted = true;
    });
    const id = await queue.enqueueUnchecked(k, {});
    await worker.drain();
    expect(aborted).toBe(true);
    expect(errors).toEqual([`The lease of job ${id} was lost`]);
    expect(await queue.get(id)).toMatchObject({ state: 'Running', lockedBy: 'other', attempts: 2 });
    await worker.stop();
  });
});
