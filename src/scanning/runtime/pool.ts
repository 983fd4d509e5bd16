// The run loop every scan engine shares: a fixed number of workers take a run's items (addresses,
// URLs) from one source, one pull at a time; a worker's failure stops them all; an abort destroys
// the run's sockets and refuses whoever waits for a slot, at once; results go out one after
// another, in the order they are handed over, each worker waiting for its own (back-pressure).

import type net from 'node:net';
import { abortReason, SerialPuller, type Slots, toAsyncIterator } from './limits.js';

export interface WorkerPoolOptions {
  /** The caller's signal: the run stops when it aborts. */
  signal: AbortSignal;
  /** The run's in-flight limit: its waiters are refused when the run aborts. */
  slots?: Slots;
}

export class WorkerPool {
  /** Aborts on the caller's signal, or when a worker fails: every worker stops. */
  readonly signal: AbortSignal;
  /** The run's open sockets: destroyed all at once when it aborts. */
  readonly sockets = new Set<net.Socket>();
  private readonly stop = new AbortController();
  private readonly onAbort: (() => void)[] = [];
  private emitted: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(private readonly options: WorkerPoolOptions) {
    this.signal = AbortSignal.any([options.signal, this.stop.signal]);
  }

  /** Something more to stop when the run aborts (and when it ends): threads, child processes. */
  whenAborted(stop: () => void): void {
    this.onAbort.push(stop);
  }

  /**
   * Hands every item of `source` to `handle`, `workers` at once. A worker ends when the source is
   * spent, the run aborts, or `more()` says no new item may start (a spent budget); items under
   * way finish. Throws the first worker's failure, or the caller's abort reason.
   */
  async run<T>(
    source: AsyncIterable<T> | Iterable<T>,
    workers: number,
    handle: (item: T) => Promise<void>,
    more: () => boolean = () => true,
  ): Promise<void> {
    const abort = () => {
      // Stop sending at once: half-open connects are dropped, waiting ones never start.
      for (const socket of this.sockets) socket.destroy();
      this.sockets.clear();
      this.options.slots?.refuseAll(abortReason(this.signal));
      for (const stop of this.onAbort) stop();
    };
    this.signal.addEventListener('abort', abort, { once: true });
    const iterator = toAsyncIterator(source);
    const puller = new SerialPuller(iterator);
    try {
      await Promise.all(Array.from({ length: workers }, () => this.worker(puller, handle, more)));
      await this.emitted;
    } finally {
      this.signal.removeEventListener('abort', abort);
      abort();
      // Lets a generator of items run its own clean-up; its failure there changes nothing.
      await Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
    if (this.failure) throw this.failure.error;
    if (this.options.signal.aborted) throw abortReason(this.options.signal);
  }

  private async worker<T>(
    puller: SerialPuller<T>,
    handle: (item: T) => Promise<void>,
    more: () => boolean,
  ): Promise<void> {
    try {
      for (;;) {
        if (this.signal.aborted || !more()) return;
        const next = await puller.next();
        if (next.done || this.signal.aborted) return;
        await handle(next.value);
      }
    } catch (error) {
      if (this.signal.aborted && !this.failure) return;
      this.failure ??= { error };
      this.stop.abort(error);
    }
  }

  /** Hands a result on after those before it; never two at once. Resolves when this one is taken. */
  emit(deliver: () => void | Promise<void>): Promise<void> {
    const mine = this.emitted.then(deliver);
    this.emitted = mine.catch(() => undefined);
    return mine;
  }
}

/** Runs `fn` over `items` in order, at most `limit` at once: one host's ports, say, in lanes. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
