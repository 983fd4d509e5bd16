import { randomUUID } from 'node:crypto';
import { JobPayloadInvalid } from './catalogue.js';
import type { JobQueue } from './queue.js';
import type { Job } from './types.js';

/**
 * Runs one job. The signal aborts when the worker lost the job's lease (another worker may run it
 * now) or is stopping and its grace has run out: a handler that can stop early should. A throw
 * fails the attempt. After a stop's abort the job goes back to the queue however the handler ends.
 */
export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void>;

/**
 * Thrown by a handler that cannot run its job in this process but another may (the job's file is
 * on another instance's disk): the job goes back to the queue for `delayMs`, and the claim does
 * not count as an attempt.
 */
export class JobDeferred extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'JobDeferred';
  }
}

export interface JobWorkerOptions {
  /** Names this worker's leases; unique per process by default. */
  workerId?: string;
  /** How often to look for due jobs. */
  pollMs?: number;
  /** Jobs run at once. */
  concurrency?: number;
  /** How long a claim holds a job; renewed every third of it while the handler runs. */
  leaseMs?: number;
  /** Told of a handler's failure, a lost lease, or a claim that failed (no job); silent when left out. */
  onError?: (error: unknown, job?: Job) => void;
  /** Told of each run's end: how it ended and how long its handler ran, in seconds (the metrics). */
  onFinished?: (job: Job, outcome: JobOutcome, seconds: number) => void;
  /**
   * How long stop() lets running handlers finish before it aborts their signals (default 5 s). A
   * handler stopped that way puts its job back in the queue, its attempt not counted: a long job
   * (an intelligence sync waiting on a source) must not hold a shutdown until its timeout.
   */
  stopGraceMs?: number;
}

/** The reason a stopping worker aborts a handler's signal with. */
export class WorkerStopping extends Error {
  constructor() {
    super('The worker is stopping: the job goes back to the queue');
    this.name = 'WorkerStopping';
  }
}

/**
 * How one run of a job ended: its handler succeeded, failed (the job is retried or given up),
 * deferred it to another process, or the lease was lost before the outcome was recorded.
 */
export type JobOutcome = 'completed' | 'failed' | 'deferred' | 'lease_lost';

/**
 * Polls the queue for the kinds it has handlers for and runs their jobs, a few at a time, renewing
 * each lease while its handler runs, then completing or failing the job.
 */
export class JobWorker {
  readonly workerId: string;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Set<Promise<void>>();
  /** The signals of the running handlers, aborted when a stop's grace runs out. */
  private readonly signals = new Set<AbortController>();
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;
  /** A wake came while a claim was under way: claim once more after it. */
  private again = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly options: JobWorkerOptions = {},
  ) {
    this.workerId = options.workerId ?? `worker-${process.pid}-${randomUUID()}`;
    this.pollMs = options.pollMs ?? 1000;
    this.concurrency = options.concurrency ?? 2;
    this.leaseMs = options.leaseMs ?? 60_000;
    if (!(this.concurrency >= 1)) throw new Error('concurrency must be at least 1');
  }

  /** The kinds this worker has handlers for (and claims). */
  get kinds(): string[] {
    return [...this.handlers.keys()];
  }

  register(kind: string, handler: JobHandler): this {
    if (this.handlers.has(kind)) throw new Error(`A handler for ${kind} jobs is registered already`);
    this.handlers.set(kind, handler);
    return this;
  }

  /** Polls every pollMs until stop(); the timer does not keep the process alive. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
    void this.poll();
  }

  /**
   * Claims as many due jobs as there are free places and starts them; resolves once they are
   * started (not finished). Overlapping calls share one claim.
   */
  poll(): Promise<void> {
    this.polling ??= this.claimAndStart().finally(() => {
      this.polling = undefined;
      if (this.again) {
        this.again = false;
        void this.poll();
      }
    });
    return this.polling;
  }

  /**
   * Claims now rather than at the next poll, once started: a job was just enqueued (the queue's
   * nudge) or a place became free. A claim under way that may have missed the job is followed by
   * another.
   */
  wake(): void {
    if (!this.timer || this.stopped) return;
    if (this.polling) this.again = true;
    else void this.poll();
  }

  /** Claims and runs due jobs until none is left, then resolves: for tests and one-off runs. */
  async drain(): Promise<void> {
    for (;;) {
      await this.poll();
      if (this.running.size === 0) return;
      await Promise.race(this.running);
    }
  }

  /**
   * Stops polling and waits for the handlers that are running; those still running after the
   * grace (stopGraceMs) are aborted, and their jobs put back in the queue once they return.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.polling;
    const finished = Promise.allSettled([...this.running]);
    let grace: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'over'>((resolve) => {
      grace = setTimeout(() => resolve('over'), this.options.stopGraceMs ?? 5_000);
    });
    if ((await Promise.race([finished, graceOver])) === 'over')
      for (const controller of this.signals) controller.abort(new WorkerStopping());
    clearTimeout(grace);
    await finished;
  }

  private async claimAndStart(): Promise<void> {
    if (this.stopped) return;
    const free = this.concurrency - this.running.size;
    if (free < 1 || this.handlers.size === 0) return;
    let jobs: Job[];
    try {
      jobs = await this.queue.claim(this.workerId, [...this.handlers.keys()], this.leaseMs, free);
    } catch (error) {
      // A database that is briefly away: the next poll tries again.
      this.options.onError?.(error);
      return;
    }
    for (const job of jobs) {
      const run = this.run(job).finally(() => {
        this.running.delete(run);
        this.wake();
      });
      this.running.add(run);
    }
  }

  private async run(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind)!;
    const lost = new AbortController();
    this.signals.add(lost);
    const renewal = setInterval(
      () => {
        this.queue.renew(job.id, this.workerId, this.leaseMs).then(
          (held) => {
            if (!held) lost.abort(new Error(`The lease of job ${job.id} was lost`));
          },
          () => {},
        );
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    renewal.unref();
    let failure: { error: unknown } | undefined;
    const started = performance.now();
    try {
      await handler(job, lost.signal);
    } catch (error) {
      failure = { error };
    } finally {
      clearInterval(renewal);
      this.signals.delete(lost);
    }
    const seconds = (performance.now() - started) / 1000;
    let outcome: JobOutcome = 'lease_lost';
    try {
      // Stopped by our own stop(): the job is not at fault, and a handler that returned quietly
      // when told may not have finished its work. Jobs run at least once (a lease that runs out
      // runs them again), so running one again is safe where dropping it is not.
      const stopping = lost.signal.reason instanceof WorkerStopping;
      const deferred = stopping
        ? new JobDeferred(0, 'The worker stopped')
        : failure?.error instanceof JobDeferred
          ? failure.error
          : undefined;
      const held = deferred
        ? await this.queue.defer(job.id, this.workerId, deferred.delayMs)
        : failure
          ? await this.queue.fail(job.id, this.workerId, failure.error, {
              giveUp: failure.error instanceof JobPayloadInvalid,
            })
          : await this.queue.complete(job.id, this.workerId);
      if (failure && !deferred) this.options.onError?.(failure.error, job);
      if (!held) this.options.onError?.(new Error(`The lease of job ${job.id} was lost`), job);
      else outcome = deferred ? 'deferred' : failure ? 'failed' : 'completed';
    } catch (error) {
      // The lease runs out and another worker takes the job again.
      this.options.onError?.(error, job);
    }
    this.options.onFinished?.(job, outcome, seconds);
  }
}
