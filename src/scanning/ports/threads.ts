// Worker threads for one host's long port list. One Node thread started about 40,000 connects a
// second at most through net.Socket (bench/README.md), short of nmap -sT on all 65,535 ports;
// threads with a leaner probe (port-worker.mjs), each taking the next port from a counter they
// share, start more together and keep the main thread's heap out of it. The run keeps its
// limits here, on the main thread: the threads of a pass hold the host's lanes as slots of the
// run's in-flight limit, and start a connect only with a token granted from the run's bucket.

import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { abortReason, type TokenBucket } from '../runtime/limits.js';
import { type PortList, PortRange } from './port-list.js';

/** The ports of a pass: a range computed by index, or a list in memory the threads share. */
export type PassPorts = { kind: 'range'; first: number; last: number } | { kind: 'list'; ports: Int32Array };

/** One host's pass, as each thread gets it (port-worker.mjs). */
export interface PassRequest {
  type: 'pass';
  id: number;
  address: string;
  ports: PassPorts;
  /** Int32 [next index, stop]: shared by every thread of the pass. */
  cursor: SharedArrayBuffer;
  /** Connects this thread keeps in flight at once. */
  lanes: number;
  timeoutMs: number;
  /** Milliseconds left of the host's and the run's budget when the pass was sent (Infinity: none). */
  hostLeftMs: number;
  runLeftMs: number;
  closedListLimit: number;
  /** How many tokens the thread asks for at a time. */
  tokenBatch: number;
}

export type ToWorker = PassRequest | { type: 'tokens'; count: number };

export type Spent = 'host' | 'run' | null;

/** A thread's part of a pass. */
export interface PassDone {
  type: 'done';
  id: number;
  open: number[];
  closed: number;
  /** The refusing ports, up to closedListLimit of them. */
  closedPorts: number[];
  silent: number[];
  /** Ports not asked, or whose wait a budget cut short. */
  notAsked: number[];
  budgetExhausted: Spent;
}

/** What the main thread passes as workerData. */
export type Connector = 'handle' | 'socket';

export type FromWorker = PassDone | { type: 'want'; count: number } | { type: 'failed'; message: string };

/** Lists at least this long are split over threads when the scan chooses its threads itself. */
export const THREADED_PORTS = 4096;
/** Connects a second one thread keeps up with easily: above it, a further thread pays. */
const RATE_PER_THREAD = 20_000;
const MAX_THREADS = 4;
/**
 * A thread's heap, in MB. Under a steady stream of short-lived sockets V8 lets both generations
 * grow far past what a thread keeps alive (its connects in flight and its answers, a few MB):
 * 65,535 loopback ports on two threads (net.Socket probes) peaked at 179 MB for the process with
 * the young generation capped alone, 129 MB with the old one capped too.
 */
const YOUNG_GENERATION_MB = 4;
const OLD_GENERATION_MB = 32;
/** Tokens a thread asks for at once, at most. */
const MAX_TOKEN_BATCH = 512;

let live = 0;

/** Port-scan threads running in this process (a stopped scan leaves none). */
export function liveThreads(): number {
  return live;
}

/** How many threads a long list gets: enough for the pace, at most one a core and MAX_THREADS. */
export function threadsFor(connectionsPerSecond: number): number {
  const cores = os.availableParallelism();
  return Math.max(1, Math.min(cores, MAX_THREADS, Math.ceil(connectionsPerSecond / RATE_PER_THREAD)));
}

export interface ThreadPass {
  address: string;
  ports: PortList;
  /** Connects in flight to the host, all threads together (the caller holds them as slots). */
  lanes: number;
  timeoutMs: number;
  hostLeftMs: number;
  runLeftMs: number;
  closedListLimit: number;
}

export type ThreadPassResult = Omit<PassDone, 'type' | 'id'>;

interface Pending {
  parts: PassDone[];
  left: number;
  resolve(result: ThreadPassResult): void;
  reject(error: Error): void;
}

/** The threads of one port-scan run, started at its first long pass and ended with it. */
export class PortThreads {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | null = null;
  private readonly ending: Promise<number>[] = [];
  private readonly tokenBatch: number;

  constructor(
    readonly count: number,
    private readonly bucket: TokenBucket,
    private readonly signal: AbortSignal,
    /** How a thread connects: libuv's TCP handle when Node has it (the default), or net.Socket. */
    private readonly connector: Connector = 'handle',
  ) {
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`port threads: ${count} is no count`);
    // A thread holds at most one and a half batches unspent: all threads together, under 3/8 of
    // the bucket's burst, so in any window at most 1.375 bursts + rate × t connects start.
    this.tokenBatch = Math.max(1, Math.min(MAX_TOKEN_BATCH, Math.floor(bucket.burst / (4 * count))));
  }

  /** One pass over the host's ports, split between the threads; answers their findings together. */
  pass(p: ThreadPass): Promise<ThreadPassResult> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.signal.aborted) return Promise.reject(abortReason(this.signal));
    this.start();
    const id = this.nextId++;
    const threads = Math.min(this.count, p.lanes);
    const ports = passPorts(p.ports);
    const cursor = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { parts: [], left: threads, resolve, reject });
      for (let i = 0; i < threads; i++) {
        const request: PassRequest = {
          type: 'pass',
          id,
          address: p.address,
          ports,
          cursor,
          lanes: Math.floor(p.lanes / threads) + (i < p.lanes % threads ? 1 : 0),
          timeoutMs: p.timeoutMs,
          hostLeftMs: p.hostLeftMs,
          runLeftMs: p.runLeftMs,
          closedListLimit: p.closedListLimit,
          tokenBatch: this.tokenBatch,
        };
        this.workers[i]!.postMessage(request satisfies ToWorker);
      }
    });
  }

  /** Ends every thread; passes under way reject with `error`. */
  async close(error: Error = abortReason(this.signal)): Promise<void> {
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(this.failure);
    this.pending.clear();
    const workers = this.workers.splice(0);
    this.ending.push(...workers.map((w) => w.terminate()));
    // Also those a close before this one began: the run ends once every thread has.
    await Promise.all(this.ending);
  }

  private start(): void {
    while (this.workers.length < this.count) this.workers.push(this.spawn());
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./port-worker.mjs', import.meta.url), {
      // Plain JavaScript: no loader (tsx) in the thread, and none of the parent's flags.
      execArgv: [],
      resourceLimits: {
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
        maxOldGenerationSizeMb: OLD_GENERATION_MB,
      },
      workerData: { mark: 'rampart-port-scan', connector: this.connector },
    });
    live++;
    worker.once('exit', () => {
      live--;
      if (this.workers.includes(worker)) void this.close(new Error('a port-scan thread stopped'));
    });
    worker.on('error', (error) => void this.close(error));
    worker.on('message', (message: FromWorker) => this.heard(worker, message));
    return worker;
  }

  private heard(worker: Worker, message: FromWorker): void {
    if (message.type === 'want') void this.grant(worker, message.count);
    else if (message.type === 'failed') void this.close(new Error(message.message));
    else this.partDone(message);
  }

  /** Takes `count` tokens from the run's bucket, at its pace, and hands them to the thread. */
  private async grant(worker: Worker, count: number): Promise<void> {
    try {
      for (let i = 0; i < count; i++) await this.bucket.take(this.signal);
    } catch {
      return; // aborted: the threads are being ended
    }
    if (this.workers.includes(worker)) worker.postMessage({ type: 'tokens', count } satisfies ToWorker);
  }

  private partDone(part: PassDone): void {
    const pending = this.pending.get(part.id);
    if (!pending) return;
    pending.parts.push(part);
    if (--pending.left > 0) return;
    this.pending.delete(part.id);
    pending.resolve(merge(pending.parts));
  }
}

/** A range travels as its ends; any other list once, in memory the threads share. */
function passPorts(ports: PortList): PassPorts {
  if (ports instanceof PortRange) return { kind: 'range', first: ports.first, last: ports.last };
  const shared = new Int32Array(new SharedArrayBuffer(ports.length * Int32Array.BYTES_PER_ELEMENT));
  for (let i = 0; i < ports.length; i++) shared[i] = ports.at(i)!;
  return { kind: 'list', ports: shared };
}

function merge(parts: PassDone[]): ThreadPassResult {
  const all = <K extends 'open' | 'closedPorts' | 'silent' | 'notAsked'>(key: K) =>
    parts.flatMap((p) => p[key]);
  const spent = parts.map((p) => p.budgetExhausted);
  const budgetExhausted: Spent = spent.includes('run') ? 'run' : spent.includes('host') ? 'host' : null;
  return {
    open: all('open'),
    closed: parts.reduce((sum, p) => sum + p.closed, 0),
    closedPorts: all('closedPorts'),
    silent: all('silent'),
    notAsked: all('notAsked'),
    budgetExhausted,
  };
}
