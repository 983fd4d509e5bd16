// What the scan engines (discovery, port scans, system, web, TLS) share: the limits they keep — connections in
// flight (all hosts together, and per host) and new connections per second — and how they take
// and check the addresses of a run. Time here is monotonic (performance.now), never the wall clock:
// it only paces packets and is never stored or compared with a date.

import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TargetRefusal } from '../types.js';

/** Rejects with the signal's reason once it aborts; resolves after `ms` otherwise. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The scan run was aborted', 'AbortError');
}

/** A counting semaphore: at most `size` holders at once, waiters served first come first served. */
export class Slots {
  private held = 0;
  private readonly waiting: Array<{ count: number; grant(): void; refuse(error: Error): void }> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`slots must be a positive integer: ${size}`);
  }

  get inUse(): number {
    return this.held;
  }

  acquire(): Promise<void> {
    return this.acquireMany(1);
  }

  /**
   * Takes `count` slots at once, when that many are free: a port scan's threads hold a host's lanes
   * for a whole pass, and taking them one by one beside another host doing the same could leave
   * both waiting for ever.
   */
  acquireMany(count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 1 || count > this.size)
      throw new RangeError(`slots: cannot take ${count} of ${this.size}`);
    if (this.waiting.length === 0 && this.held + count <= this.size) {
      this.held += count;
      return Promise.resolve();
    }
    return new Promise((grant, refuse) => this.waiting.push({ count, grant, refuse }));
  }

  release(): void {
    this.releaseMany(1);
  }

  releaseMany(count: number): void {
    this.held -= count;
    // In order: a waiter for many is not overtaken by later waiters for one.
    while (this.waiting.length > 0 && this.held + this.waiting[0]!.count <= this.size) {
      const next = this.waiting.shift()!;
      this.held += next.count;
      next.grant();
    }
  }

  /** Refuses every waiter (the run is aborting); holders release as they finish. */
  refuseAll(error: Error): void {
    for (const w of this.waiting.splice(0)) w.refuse(error);
  }
}

/**
 * New connections per second: a token bucket refilled at `ratePerSecond`, holding at most `burst`
 * tokens (a tenth of a second's worth, at least one), so that in any window of t seconds at most
 * burst + rate × t connections start.
 */
export class TokenBucket {
  readonly burst: number;
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(
    readonly ratePerSecond: number,
    /** Monotonic milliseconds; a test passes a clock it moves. */
    private readonly monotonic: () => number = () => performance.now(),
  ) {
    if (!(ratePerSecond > 0)) throw new RangeError(`rate must be positive: ${ratePerSecond}`);
    this.burst = Math.max(1, Math.floor(ratePerSecond / 10));
    this.tokens = this.burst;
    this.last = this.monotonic();
  }

  /** Takes a token and answers 0, or answers how many milliseconds until one is there. */
  tryTake(): number {
    const at = this.monotonic();
    this.tokens = Math.min(this.burst, this.tokens + ((at - this.last) * this.ratePerSecond) / 1000);
    this.last = at;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    // (The small subtraction keeps floating-point dust from adding a millisecond.)
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond - 1e-9));
  }

  /** Waits for a token; takers are served in order. */
  take(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    // Nobody waiting and a token there: no queue to join (most takes, below the rate).
    if (this.waiting === 0 && this.tryTake() === 0) return Promise.resolve();
    this.waiting++;
    const mine = this.queue.then(async () => {
      try {
        for (;;) {
          if (signal.aborted) throw abortReason(signal);
          const wait = this.tryTake();
          if (wait === 0) return;
          await sleep(wait, signal);
        }
      } finally {
        this.waiting--;
      }
    });
    // The next taker waits for this one whether it got its token or was aborted.
    this.queue = mine.catch(() => undefined);
    return mine;
  }
}

/**
 * Several workers taking addresses from one iterator: one caller of next() at a time, since not
 * every async iterator copes with overlapping calls.
 */
export class SerialPuller<T> {
  private pulling: Promise<unknown> = Promise.resolve();

  constructor(private readonly iterator: AsyncIterator<T>) {}

  next(): Promise<IteratorResult<T>> {
    const next = this.pulling.then(() => this.iterator.next());
    this.pulling = next.catch(() => undefined);
    return next;
  }
}

/** The node's check of one address before its first packet; a text that is no IP is refused. */
export function refusalOf(
  address: string,
  check: (address: string) => TargetRefusal | null,
): TargetRefusal | null {
  return isIP(address) === 0
    ? { rule: 'Syntax', message: `${address} is not an IP address` }
    : check(address);
}

/** Items (addresses, URLs) as one async iterator, whether they come as a list, a generator or a stream. */
export function toAsyncIterator<T>(source: AsyncIterable<T> | Iterable<T>): AsyncIterator<T> {
  if (Symbol.asyncIterator in source) return source[Symbol.asyncIterator]();
  const sync = source[Symbol.iterator]();
  return {
    next: async () => sync.next(),
    return: async () => sync.return?.() ?? { done: true, value: undefined },
  };
}
