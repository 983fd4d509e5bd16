import type { Clock } from '../../lib/clock.js';
import { readSpec } from '../contract.js';
import type { RunContext, RunExecutor, ScanKind, ScanProgress } from '../types.js';
import {
  type ClaimedRun,
  type FinishState,
  LeaseLostError,
  type NodeTransport,
  NodeUnauthorizedError,
} from './transport.js';

export interface AgentOptions {
  transport: NodeTransport;
  /** The engines this node runs, by kind: the node serves these kinds. */
  executors: ReadonlyMap<ScanKind, RunExecutor>;
  /** Runs executed at once. */
  capacity: number;
  version: string;
  /** Decides when heartbeats and flushes are due; tests move it. */
  clock: Clock;
  /** Heartbeat period while idle (default 10 s). */
  heartbeatMs?: number;
  /** Heartbeat period while running scans, so that a stop is seen in time (default 2 s). */
  stopCheckMs?: number;
  /** A batch goes as soon as it holds this many items (default 500)… */
  flushItems?: number;
  /** …or once its oldest item waited this long (default 1 s). */
  flushMs?: number;
  /** Pause between two ticks of the loop (default 1 s). */
  tickMs?: number;
  /** Let the process exit while the loop waits (the server's local node). */
  unref?: boolean;
  log?: (message: string, details?: Record<string, unknown>) => void;
}

/** Why a run's signal was aborted. */
type AbortReason = 'stop' | 'lost' | 'shutdown' | 'error';

interface ActiveRun {
  claim: ClaimedRun;
  controller: AbortController;
  reason: AbortReason | null;
  error: string | null;
  seq: number;
  buffer: unknown[];
  progress: ScanProgress | null;
  progressChanged: boolean;
  lastFlushAt: number;
  /** Batches go one after another, in order. */
  sending: Promise<void>;
  done: Promise<void>;
}

/**
 * A scan node: heartbeats, claims runs while it has free capacity, executes each with the engine
 * of its kind, sends results in numbered batches and finishes the run. Everything happens in
 * `tick()`, which the loop calls every second (tests call it themselves with a moved clock):
 *
 * - a heartbeat every 10 s, every 2 s while runs execute: its answer stops runs (a stop takes
 *   effect within 5 s) and drops runs the server took away;
 * - batches whose oldest item waited a second are sent (a full batch goes at once, from `emit`);
 * - runs are claimed while fewer than `capacity` execute.
 */
export class ScanNodeAgent {
  private readonly runs = new Map<string, ActiveRun>();
  private lastHeartbeatAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private resolveEnded: () => void = () => {};
  /** Resolves when the loop has ended: after `stop()`, or when the server refused the node's key. */
  readonly ended: Promise<void>;
  /** Why the loop ended on its own (the node's key was refused), if it did. */
  fatal: Error | null = null;

  constructor(private readonly options: AgentOptions) {
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  /** The kinds this node serves: those it has an engine for. */
  get kinds(): ScanKind[] {
    return [...this.options.executors.keys()];
  }

  /** The ids of the runs executing now. */
  get activeRunIds(): string[] {
    return [...this.runs.keys()];
  }

  private log(message: string, details?: Record<string, unknown>): void {
    this.options.log?.(message, details);
  }

  /** Starts the loop: a tick now, then one every `tickMs`. */
  start(): void {
    const next = () => {
      if (this.stopping) return;
      this.loop = this.tick()
        .catch((error) => this.onTickError(error))
        .then(() => {
          if (this.stopping) return;
          this.timer = setTimeout(next, this.options.tickMs ?? 1000);
          if (this.options.unref) this.timer.unref();
        });
    };
    next();
  }

  private onTickError(error: unknown): void {
    if (error instanceof NodeUnauthorizedError) {
      this.fatal = error;
      this.log('the server refused this node’s key: stopping', { error: error.message });
      for (const run of this.runs.values()) this.abort(run, 'lost');
      this.stopping = true;
      this.resolveEnded();
      return;
    }
    this.log('scan node tick failed', { error: (error as Error).message });
  }

  /** One step: heartbeat when due, send due batches, claim while there is room. */
  async tick(): Promise<void> {
    const now = this.options.clock().getTime();
    const period =
      this.runs.size > 0 ? (this.options.stopCheckMs ?? 2000) : (this.options.heartbeatMs ?? 10_000);
    if (now - this.lastHeartbeatAt >= period) await this.heartbeat(now);
    for (const run of this.runs.values())
      if (now - run.lastFlushAt >= (this.options.flushMs ?? 1000)) await this.flush(run);
    await this.claimWhileRoom();
  }

  private async heartbeat(now: number): Promise<void> {
    const answer = await this.options.transport.heartbeat({
      kinds: this.kinds,
      version: this.options.version,
      capacity: this.options.capacity,
      runIds: this.activeRunIds,
    });
    this.lastHeartbeatAt = now;
    for (const id of answer.stopRunIds) {
      const run = this.runs.get(id);
      if (run) this.abort(run, 'stop');
    }
    for (const id of answer.lostRunIds) {
      const run = this.runs.get(id);
      if (run) this.abort(run, 'lost');
    }
  }

  private async claimWhileRoom(): Promise<void> {
    while (!this.stopping && this.runs.size < this.options.capacity && this.kinds.length > 0) {
      const claim = await this.options.transport.claim(this.kinds);
      if (!claim) return;
      this.begin(claim);
    }
  }

  private begin(claim: ClaimedRun): void {
    const run: ActiveRun = {
      claim,
      controller: new AbortController(),
      reason: null,
      error: null,
      seq: 0,
      buffer: [],
      progress: null,
      progressChanged: false,
      lastFlushAt: this.options.clock().getTime(),
      sending: Promise.resolve(),
      done: Promise.resolve(),
    };
    this.runs.set(claim.id, run);
    this.log('scan run claimed', { runId: claim.id, kind: claim.kind, attempt: claim.attempt });
    // A lost attempt may still be ending when the next attempt of the run arrives: only this
    // attempt's entry is removed when it ends.
    run.done = this.execute(run).finally(() => {
      if (this.runs.get(claim.id) === run) this.runs.delete(claim.id);
    });
  }

  private abort(run: ActiveRun, reason: AbortReason, error?: string): void {
    if (run.controller.signal.aborted) return;
    run.reason = reason;
    if (error) run.error = error;
    run.controller.abort(new Error(`scan run ${reason}`));
  }

  private context(run: ActiveRun): RunContext {
    return {
      signal: run.controller.signal,
      emit: async (items) => {
        if (run.controller.signal.aborted) return;
        run.buffer.push(...items);
        if (run.buffer.length >= (this.options.flushItems ?? 500)) await this.flush(run);
      },
      progress: (progress) => {
        run.progress = { ...progress };
        run.progressChanged = true;
      },
      log: (message, details) => this.log(message, { runId: run.claim.id, ...details }),
    };
  }

  /** Sends what waits as the next numbered batch, after the batches before it. */
  private flush(run: ActiveRun): Promise<void> {
    run.sending = run.sending.then(() => this.send(run));
    return run.sending;
  }

  private async send(run: ActiveRun): Promise<void> {
    run.lastFlushAt = this.options.clock().getTime();
    if (run.reason === 'lost' || (run.buffer.length === 0 && !run.progressChanged)) return;
    const items = run.buffer.splice(0);
    run.progressChanged = false;
    run.seq += 1;
    try {
      const answer = await this.options.transport.sendBatch(run.claim.id, run.claim.attempt, run.seq, {
        items,
        progress: run.progress,
      });
      if (answer.stopRequested) this.abort(run, 'stop');
    } catch (error) {
      if (error instanceof LeaseLostError) this.abort(run, 'lost');
      else this.abort(run, 'error', `Could not send results: ${(error as Error).message}`);
    }
  }

  private async execute(run: ActiveRun): Promise<void> {
    const { claim } = run;
    const executor = this.options.executors.get(claim.kind);
    let outcome: { state: FinishState; error?: string };
    try {
      if (!executor) throw new Error(`This node has no engine for ${claim.kind} scans.`);
      // Checked before anything is sent: the spec came over the network.
      await executor(readSpec(claim.kind, claim.spec), this.context(run));
      outcome = { state: 'Completed' };
    } catch (error) {
      outcome = { state: 'Failed', error: (error as Error)?.message ?? String(error) };
    }
    if (run.reason === 'stop') outcome = { state: 'Stopped' };
    if (run.reason === 'shutdown')
      outcome = { state: 'Stopped', error: 'The scan node shut down during the run.' };
    if (run.reason === 'error') outcome = { state: 'Failed', error: run.error ?? 'The scan failed.' };
    if (run.reason !== 'error' && run.reason !== 'lost') {
      await this.flush(run);
      // The server refused the last results (they break the contract): the run did not complete.
      // (The send sets the reason meanwhile, which the narrowing above cannot know.)
      if ((run.reason as AbortReason | null) === 'error')
        outcome = { state: 'Failed', error: run.error ?? 'The scan failed.' };
    }
    if (run.reason === 'lost') {
      this.log('scan run lost: the server gave it to another attempt', { runId: claim.id });
      return;
    }
    try {
      await this.options.transport.finish(claim.id, claim.attempt, outcome.state, outcome.error);
      this.log('scan run finished', { runId: claim.id, state: outcome.state, error: outcome.error });
    } catch (error) {
      this.log('could not finish the scan run', { runId: claim.id, error: (error as Error).message });
    }
  }

  /** Resolves once no run executes (tests). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.all([...this.runs.values()].map((r) => r.done));
  }

  /** Stops claiming, stops the runs (finished Stopped) and ends the loop. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.loop;
    for (const run of this.runs.values()) this.abort(run, 'shutdown');
    await this.idle();
    this.resolveEnded();
  }
}
