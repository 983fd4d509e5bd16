// Test executors for system and web scans: they stand where an engine stands on the node and emit
// results exactly as the contract (src/scanning/types.ts) says, from a script the test changes
// between runs. No packet is sent: what the hosts "have" is what the script says they have.
import type {
  CheckResult,
  DiscoveredHost,
  RefusedAddress,
  RunExecutor,
  ScannedService,
  SystemHostResult,
  SystemSpec,
  WebSpec,
  WebUrlResult,
} from '../../src/scanning/types.js';

/** What one host shows a system scan: its services and the checks that find something. */
export interface ScriptedHost {
  hostname?: string | null;
  /** False: the host is reported as not answering (nothing open, refused or answering ARP). */
  answered?: boolean;
  services: ScannedService[];
  checks: CheckResult[];
}

export interface SystemScript {
  /** By address; a target address not listed answers nothing (no host emitted). */
  hosts: Map<string, ScriptedHost>;
  /** Every spec a run was started with, in order (a Verify run carries portsOverride). */
  specs: SystemSpec[];
  /** Addresses each run reports refused (as excluded), as a node reports the ones it refused. */
  refused?: string[];
}

/** The addresses a spec names: single addresses only (what these journeys scan). */
function addressesOf(spec: SystemSpec): string[] {
  return spec.targets.map((t) => t.range);
}

/** A port list as SystemTemplate.ports writes it (`22,443`, `8000-8002`), for a Verify run's override. */
function portsIn(list: string): Set<number> {
  const ports = new Set<number>();
  for (const part of list.split(',')) {
    const [from, to] = part.trim().split('-').map(Number);
    if (from === undefined || Number.isNaN(from)) continue;
    for (let p = from; p <= (to ?? from); p++) ports.add(p);
  }
  return ports;
}

export function systemExecutor(script: SystemScript): RunExecutor {
  return async (raw, context) => {
    const spec = raw as SystemSpec;
    script.specs.push(spec);
    const only = spec.portsOverride ? portsIn(spec.portsOverride) : null;
    const hosts: SystemHostResult[] = [];
    for (const address of addressesOf(spec)) {
      const host = script.hosts.get(address);
      if (!host) continue;
      const services = host.services.filter((s) => !only || only.has(s.port));
      const checks = host.checks.filter((c) => !only || (c.port !== null && only.has(c.port)));
      hosts.push({
        address,
        hostname: host.hostname ?? null,
        answered: host.answered ?? true,
        openPorts: services.map((s) => s.port),
        closedPorts: [],
        filtered: 0,
        unscannedPorts: [],
        services,
        checks,
        budgetExhausted: null,
      });
    }
    context.progress({ done: hosts.length, total: hosts.length, found: hosts.length });
    await context.emit(hosts);
    const refused: RefusedAddress[] = (script.refused ?? []).map((address) => ({
      refused: true,
      address,
      rule: 'Excluded',
      message: `${address} is excluded from scans.`,
    }));
    if (refused.length > 0) await context.emit(refused);
  };
}

export function sshService(port = 22): ScannedService {
  return {
    port,
    protocol: 'tcp',
    service: 'ssh',
    product: 'OpenSSH',
    version: '8.9p1',
    cpes: ['cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*'],
    confidence: 0.9,
    banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10',
    evidence: 'SSH banner SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10',
    tls: false,
    detectedBy: 'rampart',
  };
}

export function httpsService(port = 443): ScannedService {
  return {
    port,
    protocol: 'tcp',
    service: 'https',
    product: null,
    version: null,
    cpes: [],
    confidence: 0.6,
    banner: null,
    evidence: 'TLS handshake completed; HTTP answered 200',
    tls: true,
    detectedBy: 'rampart',
  };
}

export function legacyTls(port = 443): CheckResult {
  return {
    checkId: 'tls.legacy-version',
    port,
    url: null,
    evidence: 'The server completed TLS 1.0 and TLS 1.1 handshakes (ECDHE-RSA-AES128-SHA).',
    details: { accepted: ['TLSv1', 'TLSv1.1'] },
  };
}

export interface WebScript {
  /** By URL; a URL not listed answers with an error. */
  urls: Map<string, Omit<WebUrlResult, 'url'>>;
  specs: WebSpec[];
}

export function webExecutor(script: WebScript): RunExecutor {
  return async (raw, context) => {
    const spec = raw as WebSpec;
    script.specs.push(spec);
    const results: WebUrlResult[] = spec.urls.map((url) => {
      const scripted = script.urls.get(url);
      return scripted
        ? { url, ...scripted }
        : {
            url,
            finalUrl: null,
            status: null,
            address: null,
            software: [],
            checks: [],
            headerScore: null,
            notes: [],
            error: 'Connection refused',
            budgetExhausted: null,
          };
    });
    context.progress({ done: results.length, total: results.length, found: results.length });
    await context.emit(results);
  };
}

/**
 * The error text a form shows under a field: Mantine links it to the input through
 * aria-describedby (`<id>-error`), so this reads what a screen reader announces for the field.
 */
export async function fieldError(input: import('playwright-core').Locator): Promise<string> {
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/);
  const id = ids.find((i) => i.endsWith('-error'));
  if (!id) return '';
  return (await input.page().locator(`[id="${id}"]`).textContent()) ?? '';
}

/** A discovery executor that finds the hosts the script lists (address → open ports). */
export function discoveryExecutor(hosts: Map<string, number[]>): RunExecutor {
  return async (_spec, context) => {
    const found: DiscoveredHost[] = [...hosts].map(([address, openPorts]) => ({
      address,
      hostname: null,
      openPorts,
      closedPorts: [],
      macAddress: null,
      osGuess: null,
    }));
    context.progress({ done: found.length, total: found.length, found: found.length });
    await context.emit(found);
  };
}
