import type { JobKind, JobPayload } from './catalogue.js';
import type { JobQueue } from './queue.js';
import type { ScheduleRule } from './schedule-rule.js';
import type { Scheduler } from './scheduler.js';
import { type JobHandler, JobWorker, type JobWorkerOptions } from './worker.js';

/**
 * A schedule of the installation (no organisation), made or updated when a runner starts. Its
 * jobs carry no payload: the kind is one of the catalogue's whose payload is null.
 */
export interface SystemSchedule {
  key: string;
  rule: ScheduleRule;
  jobKind: { [K in JobKind]: JobPayload<K> extends null ? K : never }[JobKind];
  maxAttempts?: number;
}

/** Work of this process only, every `everyMs` (see JobRunner.local). */
export interface LocalTask {
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
}

export interface RunnerOptions {
  /** How often the scheduler looks for due schedules (default 10 s). */
  tickMs?: number;
  worker?: JobWorkerOptions;
  /** Told of a tick or a local task that failed. */
  onError?: (error: unknown, what: string) => void;
}

export interface StartOptions {
  /**
   * End the leases of Running jobs first, so that they are taken up at once: with the embedded
   * database, which only this process uses, whoever held them is gone.
   */
  expireLeases?: boolean;
  /** Tick the scheduler (default true); a one-off command only runs jobs. */
  schedules?: boolean;
}

/**
 * The background work of one process: a JobWorker for the registered kinds, the scheduler's tick,
 * and this process's local tasks, started and stopped together. The worker is woken whenever this
 * process enqueues a job, so that the job starts at once instead of at the next poll.
 */
export class JobRunner {
  readonly worker: JobWorker;
  private readonly schedules: SystemSchedule[] = [];
  private readonly retired: string[] = [];
  private readonly tasks: LocalTask[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private unfollow: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly scheduler: Scheduler,
    private readonly options: RunnerOptions = {},
  ) {
    this.worker = new JobWorker(queue, options.worker);
  }

  register(kind: string, handler: JobHandler): this {
    this.worker.register(kind, handler);
    return this;
  }

  /** The system schedules made (or updated) at start. */
  get systemSchedules(): readonly SystemSchedule[] {
    return this.schedules;
  }

  /** A system schedule to make (or update) at start. */
  schedule(schedule: SystemSchedule): this {
    this.schedules.push(schedule);
    return this;
  }

  /** A system schedule to remove at start: what it did is switched off (intel sync without URLs). */
  unschedule(key: string): this {
    this.retired.push(key);
    return this;
  }

  /**
   * Work on this process's own state, every `everyMs`. A job would run on whichever instance
   * claims it, so what only this process holds (its memory) is a local task, not a job.
   */
  local(task: LocalTask): this {
    this.tasks.push(task);
    return this;
  }

  async start(options: StartOptions = {}): Promise<void> {
    if (options.expireLeases) await this.queue.expireLeases();
    if (options.schedules !== false) {
      for (const key of this.retired) await this.scheduler.remove(null, key);
      for (const s of this.schedules) await this.scheduler.upsert({ ...s, organizationId: null });
    }
    this.unfollow = this.queue.onNudge(() => this.worker.wake());
    this.worker.start();
    if (options.schedules !== false)
      this.every(this.options.tickMs ?? 10_000, 'scheduler tick', () => this.scheduler.tick(), true);
    for (const task of this.tasks) this.every(task.everyMs, task.name, () => task.run());
  }

  /** Fires the due schedules now (also at start); the worker is nudged when a job was enqueued. */
  tick(): Promise<unknown> {
    return this.track(this.scheduler.tick());
  }

  /** Stops ticking and polling, waits for the running jobs and tasks, then runs each local task a last time. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.unfollow?.();
    await this.worker.stop();
    await Promise.allSettled([...this.inFlight]);
    for (const task of this.tasks)
      await task.run().catch((error) => this.options.onError?.(error, task.name));
  }

  private every(ms: number, what: string, work: () => Promise<unknown>, atOnce = false): void {
    const run = () => {
      if (this.stopped) return;
      // A task that throws before it returns its promise must not escape the timer: an uncaught
      // exception there would end the process.
      let pending: Promise<unknown>;
      try {
        pending = work();
      } catch (error) {
        this.options.onError?.(error, what);
        return;
      }
      void this.track(pending).catch((error) => this.options.onError?.(error, what));
    };
    const timer = setInterval(run, ms);
    timer.unref();
    this.timers.push(timer);
    if (atOnce) run();
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }
}
