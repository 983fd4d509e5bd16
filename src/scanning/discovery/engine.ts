// Discovery: which addresses have a live host, by TCP connect probes to the template's ports.
// Addresses stream in (a /16 is never held in memory), each is checked by the node right before
// its first packet, and hosts stream out as they are found.

import { performance } from 'node:perf_hooks';
import { abortReason, refusalOf, Slots, sleep, TokenBucket } from '../runtime/limits.js';
import { type NeighbourTable, readNeighbours } from '../runtime/neighbours.js';
import { eachLimited, WorkerPool } from '../runtime/pool.js';
import { probePort } from '../runtime/probe.js';
import type { DiscoveredHost, DiscoveryTemplate, ScanProgress, TargetRefusal } from '../types.js';
import { guessOs } from './os-guess.js';
import { reverseResolver } from './reverse-dns.js';

export interface DiscoveryOptions {
  signal: AbortSignal;
  /** The node's check before the first packet to an address; a refusal skips it (reported). */
  check(address: string): TargetRefusal | null;
  /** Each live host once, in the order found; the next waits until the promise settles. */
  onHost(host: DiscoveredHost): void | Promise<void>;
  onProgress?(progress: ScanProgress): void;
  onRefused?(address: string, refusal: TargetRefusal): void;
  /** PTR lookups; default node:dns Resolver on the system's servers (see reverseResolver). */
  reverse?(address: string): Promise<string[]>;
  /** The neighbour table (ARP/NDP); default `ip -j neigh`, /proc/net/arp without iproute2. */
  neighbours?(): Promise<NeighbourTable>;
}

export interface DiscoveryCounts {
  /** Addresses finished: probed or refused. */
  done: number;
  found: number;
  refused: number;
}

export const SSH_PORT = 22;
/**
 * How long to wait for an SSH server's first line after the accept: twice the connect timeout (a
 * server forks before it greets), at most this long.
 */
export const BANNER_TIMEOUT_MS = 5000;
/** How long to wait for the kernel to re-check a known neighbour (DELAY 5 s, then 3 probes of 1 s). */
const NEIGHBOUR_RECHECK_MS = 9000;
const NEIGHBOUR_POLL_MS = 1000;
/** How often to look at a neighbour entry the kernel is still resolving. */
const LINK_POLL_MS = 200;

/** Checks a template's values; throws a RangeError naming the first bad one. */
export function validateDiscoveryTemplate(t: DiscoveryTemplate): void {
  const fail = (field: string, rule: string) => {
    throw new RangeError(`discovery template: ${field} ${rule}`);
  };
  if (!Array.isArray(t.ports) || t.ports.length === 0) fail('ports', 'must list at least one port');
  if (t.ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535))
    fail('ports', 'must be integers from 1 to 65535');
  if (new Set(t.ports).size !== t.ports.length) fail('ports', 'must not repeat a port');
  if (!Number.isInteger(t.timeoutMs) || t.timeoutMs < 1) fail('timeoutMs', 'must be a positive integer');
  if (!Number.isInteger(t.retries) || t.retries < 0) fail('retries', 'must be an integer ≥ 0');
  if (!Number.isInteger(t.maxInFlight) || t.maxInFlight < 1)
    fail('maxInFlight', 'must be a positive integer');
  if (!(t.connectionsPerSecond > 0)) fail('connectionsPerSecond', 'must be positive');
  if (!Number.isInteger(t.perHostInFlight) || t.perHostInFlight < 1)
    fail('perHostInFlight', 'must be a positive integer');
}

export async function discoverHosts(
  addresses: AsyncIterable<string> | Iterable<string>,
  total: number,
  template: DiscoveryTemplate,
  options: DiscoveryOptions,
): Promise<DiscoveryCounts> {
  validateDiscoveryTemplate(template);
  return new DiscoveryRun(template, options, total, null).execute(addresses);
}

interface HostAnswers {
  open: number[];
  closed: number[];
  sshBanner: string | null;
  /** When the host's probes ended (performance.now()). */
  endedAt: number;
  /** What the neighbour table said after an unanswered first probe. */
  link: 'up' | 'down' | 'unknown';
}

/**
 * Hosts another tool (nmap) found up, with the MAC it saw: the run then probes only these, to learn
 * their ports, and counts them up whatever the ports say. Entries are taken out as they are used.
 */
export type KnownLive = Map<string, string | null>;

export class DiscoveryRun {
  private readonly slots: Slots;
  private readonly bucket: TokenBucket;
  private readonly pool: WorkerPool;
  /** Aborts on the caller's signal, or when a worker fails: every worker stops. */
  private readonly signal: AbortSignal;
  private readonly neighbours: NeighbourSnapshots;
  private readonly reverse: (address: string) => Promise<string[]>;
  private readonly counts: DiscoveryCounts = { done: 0, found: 0, refused: 0 };

  constructor(
    private readonly template: DiscoveryTemplate,
    private readonly options: DiscoveryOptions,
    private readonly total: number,
    private readonly known: KnownLive | null,
  ) {
    this.slots = new Slots(template.maxInFlight);
    this.bucket = new TokenBucket(template.connectionsPerSecond);
    this.pool = new WorkerPool({ signal: options.signal, slots: this.slots });
    this.signal = this.pool.signal;
    this.neighbours = new NeighbourSnapshots(options.neighbours ?? readNeighbours);
    this.reverse = options.reverse ?? reverseResolver();
  }

  async execute(addresses: AsyncIterable<string> | Iterable<string>): Promise<DiscoveryCounts> {
    // Hosts at once: most addresses of a range are unused and hold one silent probe (or wait for
    // the neighbour table), so as many hosts as connections in flight, twice over, keep the limit
    // busy; and no more, so that memory stays flat however many addresses come.
    const workers = Math.min(4096, this.template.maxInFlight * 2 + 8);
    await this.pool.run(addresses, workers, (address) => this.handle(String(address)));
    return { ...this.counts };
  }

  private async handle(address: string): Promise<void> {
    const refusal = refusalOf(address, this.options.check);
    if (refusal) {
      this.counts.refused++;
      this.options.onRefused?.(address, refusal);
    } else if (!this.known || this.known.has(address)) {
      const answers = await this.probeHost(address);
      const host = await this.describe(address, answers);
      if (host && !this.signal.aborted) {
        this.counts.found++;
        await this.pool.emit(() => this.options.onHost(host));
      }
    }
    if (this.signal.aborted) return;
    this.counts.done++;
    this.options.onProgress?.({ done: this.counts.done, total: this.total, found: this.counts.found });
  }

  /**
   * The first probe port alone, then the others (at most perHostInFlight at once), then the silent
   * ones again (`retries` times) while the host says nothing. When the first probe went unanswered
   * and the address is on the node's own segment, the neighbour table decides first: a host that
   * does not answer ARP/NDP cannot answer TCP either, so it is down without the other ports.
   */
  private async probeHost(address: string): Promise<HostAnswers> {
    const answers: HostAnswers = { open: [], closed: [], sshBanner: null, endedAt: 0, link: 'unknown' };
    const answered = () => answers.open.length + answers.closed.length > 0;
    const probeAll = async (ports: readonly number[]) => {
      const silent: number[] = [];
      await eachLimited(ports, this.template.perHostInFlight, async (port) => {
        const answer = await this.probe(address, port);
        if (answer.state === 'open') answers.open.push(port);
        else if (answer.state === 'closed') answers.closed.push(port);
        else silent.push(port);
        if (port === SSH_PORT && answer.banner) answers.sshBanner = answer.banner;
      });
      return silent;
    };
    const [first, ...others] = this.template.ports;
    let silent = await probeAll([first!]);
    if (silent.length > 0) answers.link = await this.linkLayer(address);
    if (answers.link !== 'down') {
      silent.push(...(await probeAll(others)));
      // Once the host answered (on a port, or to ARP), a silent port is filtered: asking again
      // tells nothing.
      for (let retry = 1; retry <= this.template.retries && silent.length > 0; retry++) {
        if (answered() || answers.link === 'up') break;
        silent = await probeAll(this.template.ports.filter((p) => silent.includes(p)));
      }
    }
    const order = (a: number, b: number) => a - b;
    answers.open.sort(order);
    answers.closed.sort(order);
    answers.endedAt = performance.now();
    return answers;
  }

  /**
   * What the neighbour table says of an address after a probe went unanswered: `unknown` when the
   * address is not on the node's segment (or the kernel holds only an old entry), `up` when it
   * answered ARP/NDP, `down` when it did not within the attempts the template allows (the kernel
   * keeps asking meanwhile).
   */
  private async linkLayer(address: string): Promise<'up' | 'down' | 'unknown'> {
    const deadline = performance.now() + Math.max(1, this.template.retries) * this.template.timeoutMs;
    for (;;) {
      const entry = (await this.neighbours.after(performance.now())).get(address);
      if (!entry || entry.state === 'stale') return 'unknown';
      if (entry.state === 'reachable') return 'up';
      if (entry.state === 'failed') return 'down';
      if (performance.now() >= deadline) return entry.state === 'incomplete' ? 'down' : 'unknown';
      await sleep(LINK_POLL_MS, this.signal);
    }
  }

  private async probe(address: string, port: number) {
    await this.slots.acquire();
    try {
      await this.bucket.take(this.signal);
      return await probePort(address, port, {
        timeoutMs: this.template.timeoutMs,
        bannerTimeoutMs: port === SSH_PORT ? Math.min(BANNER_TIMEOUT_MS, this.template.timeoutMs * 2) : 0,
        sockets: this.pool.sockets,
      });
    } finally {
      this.slots.release();
    }
  }

  /** The host as reported, or null when nothing says it is up. */
  private async describe(address: string, answers: HostAnswers): Promise<DiscoveredHost | null> {
    if (this.signal.aborted || answers.link === 'down') return null;
    let neighbour = (await this.neighbours.after(answers.endedAt)).get(address);
    const answered = answers.open.length + answers.closed.length > 0;
    const knownMac = this.known?.get(address);
    this.known?.delete(address);
    if (knownMac) neighbour = { mac: knownMac, state: 'reachable' };
    if (!answered && !this.known) {
      // A host on the node's own segment that drops every probe still answered the kernel's ARP
      // (or NDP) request sent before the first probe: it is up, as nmap -sn counts a local host
      // that answers ARP. A known neighbour being re-checked (DELAY, PROBE) is waited for.
      const until = performance.now() + NEIGHBOUR_RECHECK_MS;
      while (neighbour?.state === 'pending' && performance.now() < until) {
        await sleep(NEIGHBOUR_POLL_MS, this.signal);
        neighbour = (await this.neighbours.after(performance.now())).get(address);
      }
      if (neighbour?.state !== 'reachable') return null;
    }
    const hostname = this.template.reverseDns ? await this.hostname(address) : null;
    return {
      address,
      hostname,
      openPorts: answers.open,
      closedPorts: answers.closed,
      macAddress: neighbour?.mac ?? null,
      osGuess: guessOs(answers.open, answers.sshBanner),
    };
  }

  /** The first PTR name; an abort does not wait for the DNS server. */
  private async hostname(address: string): Promise<string | null> {
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortReason(this.signal));
      if (this.signal.aborted) onAbort();
      else this.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const names = await Promise.race([this.reverse(address), aborted]);
      return names[0] ?? null;
    } finally {
      this.signal.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * Reads of the neighbour table shared by every host that needs one: a host asks for a read begun
 * after a given time; one read runs at a time, and every host waiting meanwhile shares the next.
 */
class NeighbourSnapshots {
  private current: { startedAt: number; table: Promise<NeighbourTable> } | null = null;
  private queued: Promise<NeighbourTable> | null = null;

  constructor(private readonly read: () => Promise<NeighbourTable>) {}

  after(time: number): Promise<NeighbourTable> {
    if (this.current && this.current.startedAt >= time) return this.current.table;
    // A queued read has not started yet, so it starts after `time`.
    this.queued ??= (this.current?.table ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        this.current = { startedAt: performance.now(), table: this.read() };
        return this.current.table;
      });
    return this.queued;
  }
}
