// TCP connect port scans: every port of a list on every host, through the operating system's own
// stack (the discovery probe). Hosts stream in and results stream out one host at a time; each
// host's ports are pulled by index by at most perHostInFlight lanes, so 65,535 ports never mean
// 65,535 promises. Time budgets per connect, per host and per run: when one is spent the probes
// stop, what was found is kept and the ports not asked are reported unscanned.

import { performance } from 'node:perf_hooks';
import { abortReason, refusalOf, Slots, TokenBucket } from '../runtime/limits.js';
import { WorkerPool } from '../runtime/pool.js';
import { probePort } from '../runtime/probe.js';
import type { ScanProgress, TargetRefusal } from '../types.js';
import { isPort, type PortList } from './port-list.js';
import { PortThreads, THREADED_PORTS, threadsFor } from './threads.js';

/** Closed ports are listed up to this many per host; above it only counted. */
export const CLOSED_LIST_LIMIT = 64;

export type BudgetExhausted = 'host' | 'run' | null;

/** One host's ports, reported once as the host finishes. */
export interface HostPorts {
  address: string;
  open: number[];
  /** How many ports refused the connection. */
  closed: number;
  /** The refusing ports when there are at most CLOSED_LIST_LIMIT of them, else null. */
  closedPorts: number[] | null;
  /** Ports that stayed silent through every retry (dropped, or behind a firewall). */
  filtered: number;
  /** Ports not asked, or cut short, because a budget was spent (or the run aborted). */
  unscanned: number[];
  budgetExhausted: BudgetExhausted;
}

export interface PortScanOptions {
  signal: AbortSignal;
  /** The node's check before the first packet to an address; a refusal skips it. */
  check(address: string): TargetRefusal | null;
  /** How long one connect may take before the port counts as silent. */
  timeoutMs: number;
  /** Extra connects to a silent port before it counts as filtered. */
  retries: number;
  /** Connections in flight at once, all hosts together. */
  maxInFlight: number;
  /** New connections started per second, all hosts together. */
  connectionsPerSecond: number;
  /** Connections in flight to one host at once. */
  perHostInFlight: number;
  /** A host's probes stop once this long has passed since its first; undefined: no limit. */
  hostBudgetMs?: number;
  /** The run's probes stop once this long has passed since it began; undefined: no limit. */
  runBudgetMs?: number;
  /**
   * Worker threads sharing each host's ports: 0 keeps every probe on this thread; n > 0 splits
   * every pass over n threads; undefined (the default) splits passes of THREADED_PORTS ports or
   * more over as many threads as the pace needs and the cores allow. The limits hold for all
   * threads together. Threads measure the budgets on the real clock from the start of a pass.
   */
  threads?: number;
  /** Monotonic milliseconds for the budgets (not the pace); a test passes a clock it moves. */
  clock?: () => number;
  /** Each host once, as it finishes; the next waits until the promise settles. */
  onHost(result: HostPorts): void | Promise<void>;
  onRefused?(address: string, refusal: TargetRefusal): void;
  /** done: hosts finished (scanned or refused), total: hosts seen so far, found: hosts with an open port. */
  onProgress?(progress: ScanProgress): void;
}

export interface PortScanResult {
  /** Hosts scanned (fully or in part). */
  scanned: number;
  refused: number;
  /** Hosts with at least one open port. */
  found: number;
  /** 'run' when the run budget stopped it before every host was done. */
  budgetExhausted: 'run' | null;
}

/** Checks the options and the ports; throws a RangeError naming the first bad one. */
export function validatePortScan(ports: PortList, o: PortScanOptions): void {
  const fail = (field: string, rule: string) => {
    throw new RangeError(`port scan: ${field} ${rule}`);
  };
  const positiveInteger = (field: keyof PortScanOptions) => {
    const value = o[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
      fail(field, 'must be a positive integer');
  };
  if (!ports || typeof ports.length !== 'number' || ports.length < 1)
    fail('ports', 'must list at least one port');
  if (Array.isArray(ports)) {
    const seen = new Set<number>();
    for (const port of ports as readonly number[]) {
      if (!isPort(port)) fail('ports', `must be integers from 1 to 65535 (not ${port})`);
      if (seen.has(port)) fail('ports', `must not repeat a port (${port})`);
      seen.add(port);
    }
  }
  positiveInteger('timeoutMs');
  if (!Number.isInteger(o.retries) || o.retries < 0) fail('retries', 'must be an integer ≥ 0');
  positiveInteger('maxInFlight');
  if (typeof o.connectionsPerSecond !== 'number' || !(o.connectionsPerSecond > 0))
    fail('connectionsPerSecond', 'must be positive');
  positiveInteger('perHostInFlight');
  if (o.hostBudgetMs !== undefined) positiveInteger('hostBudgetMs');
  if (o.runBudgetMs !== undefined) positiveInteger('runBudgetMs');
  if (o.threads !== undefined && (!Number.isInteger(o.threads) || o.threads < 0 || o.threads > 64))
    fail('threads', 'must be an integer from 0 to 64');
  if (typeof o.check !== 'function') fail('check', 'must be a function');
  if (typeof o.onHost !== 'function') fail('onHost', 'must be a function');
}

export async function scanPorts(
  hosts: AsyncIterable<string> | Iterable<string>,
  ports: PortList,
  options: PortScanOptions,
): Promise<PortScanResult> {
  validatePortScan(ports, options);
  return new PortScanRun(ports, options).execute(hosts);
}

/** Where a host's scan is; lanes share it. */
interface HostState {
  address: string;
  deadline: number;
  next: number;
  open: number[];
  closed: number;
  closedPorts: number[];
  silent: number[];
  unscanned: number[];
  budgetExhausted: BudgetExhausted;
}

class PortScanRun {
  private readonly slots: Slots;
  private readonly bucket: TokenBucket;
  private readonly pool: WorkerPool;
  /** Aborts on the caller's signal, or when a worker fails: every worker stops. */
  private readonly signal: AbortSignal;
  private readonly clock: () => number;
  private readonly runDeadline: number;
  private readonly result: PortScanResult = { scanned: 0, refused: 0, found: 0, budgetExhausted: null };
  private seen = 0;
  /** Threads for long passes, or null when every probe runs here. */
  private readonly threads: PortThreads | null;
  /** Shortest pass the threads take. */
  private readonly threadedFrom: number;

  constructor(
    private readonly ports: PortList,
    private readonly options: PortScanOptions,
  ) {
    this.clock = options.clock ?? (() => performance.now());
    this.slots = new Slots(options.maxInFlight);
    // The pace stays on the real monotonic clock: a test's clock that stands still must not stall it.
    this.bucket = new TokenBucket(options.connectionsPerSecond);
    this.pool = new WorkerPool({ signal: options.signal, slots: this.slots });
    this.signal = this.pool.signal;
    this.runDeadline = this.clock() + (options.runBudgetMs ?? Number.POSITIVE_INFINITY);
    const auto = options.threads === undefined;
    const count = auto
      ? ports.length >= THREADED_PORTS
        ? threadsFor(options.connectionsPerSecond)
        : 0
      : options.threads!;
    this.threads = count > 0 ? new PortThreads(count, this.bucket, this.signal) : null;
    this.threadedFrom = auto ? THREADED_PORTS : 1;
  }

  async execute(hosts: AsyncIterable<string> | Iterable<string>): Promise<PortScanResult> {
    // A stopped scan ends its threads at once (their sockets close with them).
    this.pool.whenAborted(() => {
      if (this.signal.aborted) void this.threads?.close(abortReason(this.signal));
    });
    // Enough hosts at once to fill maxInFlight with each host's lanes, and no more: a host's
    // budget starts at its first probe, so it must not wait behind other hosts for its slots.
    const workers = Math.min(4096, Math.ceil(this.options.maxInFlight / this.options.perHostInFlight));
    try {
      await this.pool.run(
        hosts,
        workers,
        (address) => {
          this.seen++;
          return this.handle(String(address));
        },
        // A spent run budget starts no new host (those under way report what they found).
        () => {
          if (!this.runSpent()) return true;
          this.result.budgetExhausted = 'run';
          return false;
        },
      );
    } finally {
      await this.threads?.close(new Error('the port scan has ended'));
    }
    return { ...this.result };
  }

  private runSpent(): boolean {
    return this.clock() >= this.runDeadline;
  }

  private async handle(address: string): Promise<void> {
    const refusal = refusalOf(address, this.options.check);
    if (refusal) {
      this.result.refused++;
      this.options.onRefused?.(address, refusal);
    } else {
      const host = await this.scanHost(address);
      if (this.signal.aborted) return;
      this.result.scanned++;
      if (host.open.length > 0) this.result.found++;
      if (host.budgetExhausted === 'run') this.result.budgetExhausted = 'run';
      await this.pool.emit(() => this.options.onHost(host));
    }
    if (this.signal.aborted) return;
    this.options.onProgress?.({
      done: this.result.scanned + this.result.refused,
      total: this.seen,
      found: this.result.found,
    });
  }

  private async scanHost(address: string): Promise<HostPorts> {
    const state: HostState = {
      address,
      deadline: this.clock() + (this.options.hostBudgetMs ?? Number.POSITIVE_INFINITY),
      next: 0,
      open: [],
      closed: 0,
      closedPorts: [],
      silent: [],
      unscanned: [],
      budgetExhausted: null,
    };
    let pass: PortList = this.ports;
    for (let attempt = 0; attempt <= this.options.retries && pass.length > 0; attempt++) {
      state.next = 0;
      state.silent = [];
      const lanes = Math.min(this.options.perHostInFlight, pass.length);
      const current = pass;
      const retry = attempt > 0;
      if (this.threads && pass.length >= this.threadedFrom)
        await this.threadedPass(this.threads, state, current, retry);
      else await Promise.all(Array.from({ length: lanes }, () => this.lane(state, current, retry)));
      if (state.budgetExhausted || this.signal.aborted) break;
      pass = state.silent;
    }
    const order = (a: number, b: number) => a - b;
    return {
      address,
      open: state.open.sort(order),
      closed: state.closed,
      closedPorts: state.closed <= CLOSED_LIST_LIMIT ? state.closedPorts.sort(order) : null,
      filtered: state.silent.length,
      unscanned: state.unscanned.sort(order),
      budgetExhausted: state.budgetExhausted,
    };
  }

  /** What is left of the host's and the run's time, or a note of which one is spent. */
  private remaining(state: HostState): number {
    const now = this.clock();
    if (now >= this.runDeadline) state.budgetExhausted ??= 'run';
    else if (now >= state.deadline) state.budgetExhausted ??= 'host';
    if (state.budgetExhausted) return 0;
    return Math.min(this.runDeadline, state.deadline) - now;
  }

  /**
   * One pass over the threads. The host's lanes are held as slots of the run's in-flight limit for
   * the whole pass: each lane of a thread has at most one connect in flight.
   */
  private async threadedPass(
    threads: PortThreads,
    state: HostState,
    ports: PortList,
    retry: boolean,
  ): Promise<void> {
    const notAsked = retry ? state.silent : state.unscanned;
    const lanes = Math.min(this.options.perHostInFlight, this.options.maxInFlight, ports.length);
    await this.slots.acquireMany(lanes);
    try {
      if (this.signal.aborted || this.remaining(state) <= 0) {
        for (let i = 0; i < ports.length; i++) notAsked.push(ports.at(i)!);
        return;
      }
      const now = this.clock();
      const found = await threads.pass({
        address: state.address,
        ports,
        lanes,
        timeoutMs: this.options.timeoutMs,
        hostLeftMs: state.deadline - now,
        runLeftMs: this.runDeadline - now,
        closedListLimit: CLOSED_LIST_LIMIT,
      });
      append(state.open, found.open);
      state.closed += found.closed;
      append(
        state.closedPorts,
        found.closedPorts.slice(0, Math.max(0, CLOSED_LIST_LIMIT - state.closedPorts.length)),
      );
      append(state.silent, found.silent);
      append(notAsked, found.notAsked);
      if (found.budgetExhausted) state.budgetExhausted ??= found.budgetExhausted;
    } finally {
      this.slots.releaseMany(lanes);
    }
  }

  /**
   * Takes the host's next port until none is left or a budget is spent; the rest is unscanned (or,
   * on a retry, stays filtered: it was asked once and kept silent).
   */
  private async lane(state: HostState, ports: PortList, retry: boolean): Promise<void> {
    const notAsked = retry ? state.silent : state.unscanned;
    while (state.next < ports.length) {
      const port = ports.at(state.next++)!;
      if (this.signal.aborted || this.remaining(state) <= 0) {
        notAsked.push(port);
        continue;
      }
      const answer = await this.probe(state, port);
      if (answer === 'open') state.open.push(port);
      else if (answer === 'closed') {
        state.closed++;
        if (state.closed <= CLOSED_LIST_LIMIT) state.closedPorts.push(port);
      } else if (answer === 'silent') state.silent.push(port);
      else notAsked.push(port);
    }
  }

  /** One connect within the limits; 'cut' when a budget ran out before it could finish. */
  private async probe(state: HostState, port: number): Promise<'open' | 'closed' | 'silent' | 'cut'> {
    await this.slots.acquire();
    try {
      await this.bucket.take(this.signal);
      // Waiting for a slot and a token took time: the budget is asked again before the packet.
      const left = this.remaining(state);
      if (left <= 0) return 'cut';
      const timeoutMs = Math.max(1, Math.min(this.options.timeoutMs, Math.floor(left)));
      const answer = await probePort(state.address, port, {
        timeoutMs,
        bannerTimeoutMs: 0,
        sockets: this.pool.sockets,
      });
      // Silent because the budget cut its wait short: nothing learnt, the port was not scanned.
      if (answer.state === 'silent' && timeoutMs < this.options.timeoutMs) {
        this.remaining(state);
        return 'cut';
      }
      return answer.state;
    } finally {
      this.slots.release();
    }
  }
}

/** Pushes `items` onto `list` (a spread of 65,535 arguments could overflow the stack). */
function append(list: number[], items: readonly number[]): void {
  for (const item of items) list.push(item);
}
