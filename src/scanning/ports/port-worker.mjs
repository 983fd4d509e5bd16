// @ts-check
// A worker thread of the port scanner (threads.ts): it connects to its share of one host's ports,
// taking the next index from a counter shared with the other threads of the pass, and answers
// what each port said. It keeps no limits of its own: the main thread grants it connection tokens
// from the run's token bucket, and tells it how many connects to keep in flight.
//
// Plain JavaScript that imports only node: modules, so that a thread starts the same under tsx,
// Vitest and the built server, with no loader or type stripper in it (a stripper costs each
// thread about 10 MB). The message types live in threads.ts.
//
// A probe here is much leaner than the discovery probe: no promise, no banner, one timer per pass
// rather than one per connect, and no net.Socket. A Socket is a stream with its listeners, and a
// refusal builds an Error with a stack: with the connect and close syscalls themselves, that was
// all of a thread's time (CPU profile), and V8's garbage collector a fifth of it. The thread asks
// libuv's TCP handle directly, through Node's own tcp_wrap binding (as net.Socket does inside),
// which answers a connect with an errno and nothing else: about twice the connects a second, in a
// third of the memory (bench/README.md). process.binding is deprecated in documentation only;
// should it go or change, the thread falls back to net.connect.

import net from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import util from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * @typedef {import('./threads.js').PassRequest} PassRequest
 * @typedef {import('./threads.js').PassDone} PassDone
 * @typedef {import('./threads.js').ToWorker} ToWorker
 * @typedef {import('./threads.js').FromWorker} FromWorker
 * @typedef {{ end(open: boolean): void }} Connect  A connect under way; `end` closes it (with a
 *   reset after an accept: no TIME_WAIT left per open port, as nmap does).
 * @typedef {(address: string, port: number, heard: (status: number) => void) => Connect} Connector
 *   Starts a connect and calls `heard` once: 0 when accepted, else a negative errno.
 * @typedef {{ connect: Connect, port: number, deadline: number, short: boolean, settled: boolean }} Probe
 *   One connect under way, settled once (by what it heard or by the pass's timer). `short`: a
 *   budget cut its wait below the template's timeout, so silence says nothing.
 */

/** The cursor's cells: the next index, and the stop set by the first thread to find a budget spent. */
const NEXT = 0;
const STOP = 1;
const STOPPED_HOST = 1;
const STOPPED_RUN = 2;

/** Errors that say the machine itself ran out of something: the run fails rather than miss ports. */
const LOCAL_FAILURES = new Set(['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM', 'EADDRNOTAVAIL']);
const REFUSED = -os.constants.errno.ECONNREFUSED;

/** @type {Connector} Through net.Socket: what Node documents, at twice the cost. */
function socketConnect(address, port, heard) {
  const socket = net.connect({ host: address, port });
  let answered = false;
  socket.once('connect', () => {
    answered = true;
    heard(0);
  });
  // `on`, not `once`: an error after the first must not go unheard (it would throw).
  socket.on('error', (/** @type {NodeJS.ErrnoException} */ error) => {
    if (answered) return;
    answered = true;
    heard(typeof error.errno === 'number' && error.errno < 0 ? error.errno : -os.constants.errno.EIO);
  });
  return {
    end(open) {
      if (socket.destroyed) return;
      if (open && socket.readyState === 'open') socket.resetAndDestroy();
      else socket.destroy();
    },
  };
}

/**
 * @returns {Connector | null} Through libuv's TCP handle, as net.Socket does inside; null when this
 * Node has no such binding (the thread then uses socketConnect).
 */
function handleConnector() {
  /** @type {any} */
  let binding;
  try {
    binding = /** @type {any} */ (process).binding('tcp_wrap');
  } catch {
    return null;
  }
  const { TCP, TCPConnectWrap, constants } = binding ?? {};
  if (typeof TCP !== 'function' || typeof TCPConnectWrap !== 'function' || constants?.SOCKET === undefined)
    return null;
  if (typeof TCP.prototype.connect !== 'function' || typeof TCP.prototype.close !== 'function') return null;
  return (address, port, heard) => {
    const handle = new TCP(constants.SOCKET);
    const request = new TCPConnectWrap();
    let answered = false;
    let closed = false;
    request.oncomplete = (/** @type {number} */ status) => {
      if (answered) return;
      answered = true;
      heard(status);
    };
    const error = net.isIPv6(address)
      ? handle.connect6(request, address, port)
      : handle.connect(request, address, port);
    if (error) {
      // Refused before a packet (no descriptor left, say): answered on the next turn, as a socket would.
      answered = true;
      process.nextTick(heard, error);
    }
    return {
      end(open) {
        if (closed) return;
        closed = true;
        if (open && typeof handle.reset === 'function' && handle.reset(noop) === 0) return;
        handle.close();
      },
    };
  };
}

/**
 * Connection tokens granted by the main thread, asked for in batches before they run out: one
 * request out at a time, so a thread holds at most about one and a half batches unspent.
 */
class Tokens {
  /** @param {(count: number) => void} ask */
  constructor(ask) {
    this.ask = ask;
    this.count = 0;
    this.asked = false;
    this.batch = 1;
    /** @type {Array<() => void>} */
    this.waiting = [];
    this.head = 0;
  }

  /** @param {number} batch */
  setBatch(batch) {
    this.batch = Math.max(1, batch);
  }

  /**
   * Takes a token now (true), or queues `then` to run when one comes (false).
   * @param {() => void} then
   */
  take(then) {
    if (this.count > 0 && this.head === this.waiting.length) {
      this.count--;
      this.refill();
      return true;
    }
    this.waiting.push(then);
    this.refill();
    return false;
  }

  /** @param {number} count */
  grant(count) {
    this.asked = false;
    this.count += count;
    while (this.count > 0 && this.head < this.waiting.length) {
      this.count--;
      const next = /** @type {() => void} */ (this.waiting[this.head]);
      this.waiting[this.head++] = noop;
      next();
    }
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    }
    this.refill();
  }

  refill() {
    const queued = this.waiting.length - this.head;
    if (this.asked || this.count - queued >= this.batch / 2) return;
    this.asked = true;
    this.ask(this.batch);
  }
}

function noop() {}

/** One host's pass on this thread: `lanes` connects at a time until the shared cursor runs out. */
class Pass {
  /**
   * @param {PassRequest} request
   * @param {Tokens} tokens
   * @param {(done: PassDone) => void} report
   * @param {(message: string) => void} fail
   */
  constructor(request, tokens, report, fail) {
    this.request = request;
    this.tokens = tokens;
    this.report = report;
    this.fail = fail;
    this.cursor = new Int32Array(request.cursor);
    const p = request.ports;
    this.length = p.kind === 'range' ? p.last - p.first + 1 : p.ports.length;
    const now = performance.now();
    this.hostDeadline = now + request.hostLeftMs;
    this.runDeadline = now + request.runLeftMs;
    /** @type {PassDone} */
    this.done = {
      type: 'done',
      id: request.id,
      open: [],
      closed: 0,
      closedPorts: [],
      silent: [],
      notAsked: [],
      budgetExhausted: null,
    };
    this.running = 0;
    /** @type {Probe[]} Connects in start order: their deadlines never decrease, so one timer serves all. */
    this.waits = [];
    this.waitsHead = 0;
    /** @type {NodeJS.Timeout | null} */
    this.timer = null;
    this.timerAt = 0;
    this.failed = false;
  }

  start() {
    this.tokens.setBatch(this.request.tokenBatch);
    this.running = this.request.lanes;
    for (let i = 0; i < this.request.lanes; i++) this.next();
  }

  /** @param {number} index */
  portAt(index) {
    const p = this.request.ports;
    return p.kind === 'range' ? p.first + index : /** @type {number} */ (p.ports[index]);
  }

  /**
   * What is left of the host's and the run's time, or 0 once one is spent (for every thread).
   * @returns {number}
   */
  remaining() {
    const stop = Atomics.load(this.cursor, STOP);
    if (stop !== 0) {
      this.done.budgetExhausted ??= stop === STOPPED_RUN ? 'run' : 'host';
      return 0;
    }
    const now = performance.now();
    const spent = now >= this.runDeadline ? STOPPED_RUN : now >= this.hostDeadline ? STOPPED_HOST : 0;
    if (spent === 0) return Math.min(this.runDeadline, this.hostDeadline) - now;
    Atomics.compareExchange(this.cursor, STOP, 0, spent);
    return this.remaining();
  }

  /** Takes ports off the shared cursor until one is being probed, or none is left (the lane ends). */
  next() {
    for (;;) {
      if (this.failed) return;
      const index = Atomics.add(this.cursor, NEXT, 1);
      if (index >= this.length) return this.laneDone();
      const port = this.portAt(index);
      if (this.remaining() <= 0) {
        this.done.notAsked.push(port);
        continue;
      }
      if (this.tokens.take(() => this.probe(port))) this.probe(port);
      return;
    }
  }

  laneDone() {
    if (--this.running > 0) return;
    if (this.timer) clearTimeout(this.timer);
    if (!this.failed) this.report(this.done);
  }

  /** @param {number} port */
  probe(port) {
    // Waiting for a token took time: the budget is asked again before the packet.
    const left = this.remaining();
    if (left <= 0) {
      this.done.notAsked.push(port);
      return this.next();
    }
    const timeoutMs = Math.max(1, Math.min(this.request.timeoutMs, Math.floor(left)));
    /** @type {Probe} */
    const probe = {
      connect: connector(this.request.address, port, (status) => this.heard(probe, status)),
      port,
      deadline: performance.now() + timeoutMs,
      short: timeoutMs < this.request.timeoutMs,
      settled: false,
    };
    this.waits.push(probe);
    this.arm();
  }

  /**
   * An accept is open, a refusal closed; a local failure fails the run, anything else (no route,
   * host unreachable) is silence.
   * @param {Probe} probe
   * @param {number} status
   */
  heard(probe, status) {
    if (status === 0) return this.settle(probe, 'open');
    if (status === REFUSED) return this.settle(probe, 'closed');
    const name = util.getSystemErrorName(status);
    if (LOCAL_FAILURES.has(name) && !probe.settled && !this.failed) {
      this.failed = true;
      this.fail(`probing ${this.request.address}:${probe.port} failed on this node: ${name}`);
    }
    this.settle(probe, 'silent');
  }

  /**
   * @param {Probe} probe
   * @param {'open' | 'closed' | 'silent' | 'cut'} answer
   */
  settle(probe, answer) {
    if (probe.settled) return;
    probe.settled = true;
    probe.connect.end(answer === 'open');
    const done = this.done;
    if (answer === 'open') done.open.push(probe.port);
    else if (answer === 'closed') {
      done.closed++;
      if (done.closedPorts.length < this.request.closedListLimit) done.closedPorts.push(probe.port);
    } else if (answer === 'silent') done.silent.push(probe.port);
    else done.notAsked.push(probe.port);
    this.next();
  }

  /** Keeps the one timer set for the earliest connect still waiting. */
  arm() {
    const waits = this.waits;
    while (this.waitsHead < waits.length && waits[this.waitsHead]?.settled) this.waitsHead++;
    if (this.waitsHead > 1024 && this.waitsHead * 2 > waits.length) {
      waits.splice(0, this.waitsHead);
      this.waitsHead = 0;
    }
    const first = waits[this.waitsHead];
    if (!first) return;
    if (this.timer && this.timerAt <= first.deadline) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = first.deadline;
    // The verdict waits for the loop's next poll: on a loaded loop the timer can come due before
    // the loop has read answers that already arrived, and they must not be taken for silence.
    this.timer = setTimeout(
      () => setImmediate(() => this.expire()),
      Math.max(0, first.deadline - performance.now()),
    );
  }

  /** Every connect whose time is up is silent; one a budget cut short was not scanned. */
  expire() {
    this.timer = null;
    const now = performance.now();
    const waits = this.waits;
    for (let probe = waits[this.waitsHead]; probe; probe = waits[this.waitsHead]) {
      if (!probe.settled && probe.deadline > now) break;
      this.waitsHead++;
      if (probe.settled) continue;
      if (probe.short) this.remaining();
      this.settle(probe, probe.short ? 'cut' : 'silent');
    }
    this.arm();
  }
}

/** How this thread connects (threads.ts chooses; a test asks for net.Socket to check the fallback). */
let connector = socketConnect;

const parent = parentPort;
// Only as a port-scan thread (threads.ts passes this mark): imported anywhere else it does nothing.
if (parent && workerData?.mark === 'rampart-port-scan') {
  Error.stackTraceLimit = 0;
  if (workerData.connector !== 'socket') connector = handleConnector() ?? socketConnect;
  const tokens = new Tokens((count) =>
    parent.postMessage(/** @type {FromWorker} */ ({ type: 'want', count })),
  );
  /** @param {string} message */
  const fail = (message) => parent.postMessage(/** @type {FromWorker} */ ({ type: 'failed', message }));
  /** @param {PassDone} done */
  const report = (done) => parent.postMessage(done);
  parent.on('message', (/** @type {ToWorker} */ message) => {
    if (message.type === 'tokens') tokens.grant(message.count);
    else new Pass(message, tokens, report, fail).start();
  });
}
