// The system scan engine: the port scanner finds each host's open ports, then every open port is
// examined (banner, suggested probe, TLS, safe checks) within the port's, the host's and the run's
// budgets, optionally with `nmap -sV`, and the host is reported once. Partial results are kept
// when a budget runs out; what was not reached is listed as unscanned.

import { performance } from 'node:perf_hooks';
import { type HostPorts, scanPorts } from '../ports/index.js';
import { sleep } from '../runtime/limits.js';
import { type NeighbourTable, readNeighbours } from '../runtime/neighbours.js';
import { eachLimited } from '../runtime/pool.js';
import { endpointTlsChecks, probeTls } from '../tls/index.js';
import type {
  CheckResult,
  ScannedService,
  ScanProgress,
  SystemHostResult,
  SystemTemplate,
  TargetRefusal,
} from '../types.js';
import { examinePort } from './examine.js';
import { mergeNmap, readNmapServices, runNmapVersion } from './nmap.js';
import { runPorts, validateSystemTemplate } from './template.js';

export interface SystemScanOptions {
  signal: AbortSignal;
  /** The node's policy check before the first packet to an address. */
  check(address: string): TargetRefusal | null;
  /** The application's clock: certificates' validity is judged against it. */
  now: () => Date;
  /** Monotonic milliseconds for the budgets; a test passes a clock it moves. */
  monotonic?: () => number;
  /** nmap's path; null or absent: nmap is not used. */
  nmapPath?: string | null;
  /** address → the name the target was given by (SNI, certificate name). */
  hostnames?: Map<string, string>;
  /** The neighbour table (ARP/NDP); default `ip -j neigh`, /proc/net/arp without iproute2. */
  neighbours?(): Promise<NeighbourTable>;
  onHost(result: SystemHostResult): void | Promise<void>;
  onRefused?(address: string, refusal: TargetRefusal): void;
  onProgress?(p: ScanProgress): void;
  log?(message: string, details?: Record<string, unknown>): void;
}

export interface SystemScanResult {
  scanned: number;
  refused: number;
  budgetExhausted: 'run' | null;
}

/** How long to wait for the kernel to re-check a known neighbour (DELAY 5 s, then 3 probes of 1 s). */
const NEIGHBOUR_RECHECK_MS = 9000;
const NEIGHBOUR_POLL_MS = 1000;

/** Hosts whose open ports are examined at once (each with its own lanes, up to 8 ports). */
const HOSTS_EXAMINED_AT_ONCE = 4;

export async function systemScan(
  addresses: AsyncIterable<string> | Iterable<string>,
  template: SystemTemplate,
  options: SystemScanOptions & { portsOverride?: string | null },
): Promise<SystemScanResult> {
  validateSystemTemplate(template);
  if (typeof options.now !== 'function') throw new RangeError('system scan: now must be a function');
  if (typeof options.onHost !== 'function') throw new RangeError('system scan: onHost must be a function');
  const ports = runPorts(template, options.portsOverride);
  const monotonic = options.monotonic ?? (() => performance.now());
  const runDeadline = monotonic() + template.runBudgetMs;
  // When each host's port scan began: its budget covers the port scan and the examination.
  const started = new Map<string, number>();
  let runSpent = false;
  // Hosts are examined a few at a time while the port scan goes on with the next ones: the port
  // scanner hands hosts over one by one, and a host's banners wait on slow services.
  const examining = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  let emitted: Promise<void> = Promise.resolve();
  const examine = async (ports: HostPorts) => {
    const start = started.get(ports.address) ?? monotonic();
    started.delete(ports.address);
    const host = await examineHost(ports, template, options, {
      monotonic,
      hostDeadline: Math.min(start + template.hostBudgetMs, runDeadline),
      runDeadline,
    });
    if (host.budgetExhausted === 'run') runSpent = true;
    if (options.signal.aborted) return;
    // One host at a time to onHost, in the order they finish.
    emitted = emitted.then(() => options.onHost(host));
    await emitted;
  };
  const result = await scanPorts(addresses, ports, {
    signal: options.signal,
    check: (address) => {
      const refusal = options.check(address);
      if (!refusal) started.set(address, monotonic());
      return refusal;
    },
    timeoutMs: template.timeoutMs,
    retries: template.retries,
    maxInFlight: template.maxInFlight,
    connectionsPerSecond: template.connectionsPerSecond,
    perHostInFlight: template.perHostInFlight,
    hostBudgetMs: template.hostBudgetMs,
    runBudgetMs: template.runBudgetMs,
    clock: monotonic,
    onHost: async (ports) => {
      while (examining.size >= HOSTS_EXAMINED_AT_ONCE && !failure) await Promise.race(examining);
      if (failure) throw failure.error;
      const running: Promise<void> = examine(ports)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => examining.delete(running));
      examining.add(running);
    },
    ...(options.onRefused ? { onRefused: options.onRefused } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  await Promise.all(examining);
  if (failure) throw (failure as { error: unknown }).error;
  return {
    scanned: result.scanned,
    refused: result.refused,
    budgetExhausted: result.budgetExhausted ?? (runSpent ? 'run' : null),
  };
}

interface Deadlines {
  monotonic: () => number;
  hostDeadline: number;
  runDeadline: number;
}

/** Examines a host's open ports, a few at a time, and reports the host as a whole. */
async function examineHost(
  ports: HostPorts,
  template: SystemTemplate,
  options: SystemScanOptions,
  deadlines: Deadlines,
): Promise<SystemHostResult> {
  const hostname = options.hostnames?.get(ports.address) ?? null;
  const host: SystemHostResult = {
    address: ports.address,
    hostname,
    answered: ports.open.length + ports.closed > 0 || (await answeredArp(ports.address, options)),
    openPorts: ports.open,
    closedPorts: ports.closedPorts,
    filtered: ports.filtered,
    unscannedPorts: [...ports.unscanned],
    services: [],
    checks: [],
    budgetExhausted: ports.budgetExhausted,
    tlsChecked: template.tlsChecks,
  };
  const examine = template.serviceDetection || template.safeChecks || template.tlsChecks;
  if (!examine || ports.open.length === 0) return host;
  const { monotonic } = deadlines;
  const exhausted = (kind: 'port' | 'host' | 'run') => {
    const rank = { port: 1, host: 2, run: 3 } as const;
    if (!host.budgetExhausted || rank[kind] > rank[host.budgetExhausted]) host.budgetExhausted = kind;
  };
  const found = new Map<number, ScannedService>();
  const examineOne = async (port: number) => {
    if (options.signal.aborted) return;
    const now = monotonic();
    if (now >= deadlines.runDeadline || now >= deadlines.hostDeadline) {
      exhausted(now >= deadlines.runDeadline ? 'run' : 'host');
      host.unscannedPorts.push(port);
      return;
    }
    const deadline = Math.min(now + template.portBudgetMs, deadlines.hostDeadline);
    const seen = await examinePort({
      address: ports.address,
      port,
      hostname,
      signal: options.signal,
      monotonic,
      deadline,
      connectTimeoutMs: template.timeoutMs,
      safeChecks: template.safeChecks,
    });
    host.checks.push(...seen.checks);
    if (seen.service) found.set(port, seen.service);
    if (seen.service?.tls && template.tlsChecks)
      host.checks.push(
        ...(await tlsOf(ports.address, port, hostname, deadline, template, options, monotonic)),
      );
    if (seen.cut || monotonic() >= deadline) exhausted(deadline >= deadlines.hostDeadline ? 'host' : 'port');
  };
  // A few ports at once (at most 8): banners wait on slow services, and the host's lanes are few.
  await eachLimited(ports.open, Math.min(template.perHostInFlight, 8), examineOne);
  if (template.useNmapVersionDetection && options.nmapPath && !options.signal.aborted)
    await addNmap(ports.address, ports.open, found, deadlines, options);
  host.services = template.serviceDetection ? [...found.values()].sort((a, b) => a.port - b.port) : [];
  host.unscannedPorts.sort((a, b) => a - b);
  host.checks.sort((a, b) => (a.port ?? 0) - (b.port ?? 0) || a.checkId.localeCompare(b.checkId));
  return host;
}

/**
 * Whether a host that let every probe go unanswered answered ARP/NDP: the kernel asked before the
 * first probe, so a host on the node's own segment that drops every packet is there (as nmap
 * counts a local host that answers ARP), and a dead address has a failed or incomplete entry.
 * Off the node's segment no entry says anything: the host did not answer. A known neighbour the
 * kernel is checking again (DELAY, PROBE) is waited for.
 */
async function answeredArp(address: string, options: SystemScanOptions): Promise<boolean> {
  const read = options.neighbours ?? readNeighbours;
  let entry = (await read()).get(address);
  const until = performance.now() + NEIGHBOUR_RECHECK_MS;
  while (entry?.state === 'pending' && performance.now() < until && !options.signal.aborted) {
    await sleep(NEIGHBOUR_POLL_MS, options.signal).catch(() => undefined);
    entry = (await read()).get(address);
  }
  return entry?.state === 'reachable';
}

/** The TLS checks of a port that spoke TLS, within what is left of its budget. */
async function tlsOf(
  address: string,
  port: number,
  hostname: string | null,
  deadline: number,
  template: SystemTemplate,
  options: SystemScanOptions,
  monotonic: () => number,
): Promise<CheckResult[]> {
  const left = deadline - monotonic();
  if (left <= 0) return [];
  // The TLS probe waits in real time: a timer stops it when the port's budget is spent.
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error('port budget spent')), left);
  try {
    const report = await probeTls(address, port, {
      servername: hostname,
      timeoutMs: Math.max(1, Math.min(template.timeoutMs, Math.floor(left))),
      signal: AbortSignal.any([options.signal, stop.signal]),
    });
    if (!report) return [];
    return endpointTlsChecks(report, { now: options.now(), address, hostname, port, url: null });
  } catch (error) {
    if (!options.signal.aborted)
      options.log?.('TLS probe failed', { address, port, error: String((error as Error).message ?? error) });
    return [];
  } finally {
    clearTimeout(timer);
  }
}

async function addNmap(
  address: string,
  open: number[],
  found: Map<number, ScannedService>,
  deadlines: Deadlines,
  options: SystemScanOptions,
): Promise<void> {
  const left = deadlines.hostDeadline - deadlines.monotonic();
  if (left < 1000) {
    options.log?.('nmap -sV skipped: the host budget is spent', { address });
    return;
  }
  try {
    const xml = await runNmapVersion(options.nmapPath!, address, open, left, options.signal);
    for (const service of await readNmapServices(xml)) {
      if (!open.includes(service.port)) continue;
      found.set(service.port, mergeNmap(service.port, found.get(service.port) ?? null, service));
    }
  } catch (error) {
    if (!options.signal.aborted)
      options.log?.('nmap -sV failed', { address, error: String((error as Error).message ?? error) });
  }
}
