import { AppError } from '../../problems/app-error.js';
import { isTlsCheck } from '../../scanning/checks/index.js';
import type { ServiceContext } from '../context.js';
import type { ScanLocation } from '../findings/types.js';
import { scanOfScope } from '../scanresults/service.js';

// What this module asks of the modules it works with, by the little it uses of each.

export interface VerifyFindings {
  scanLocations(organizationId: string, q: { ids?: string[] }): Promise<ScanLocation[]>;
}

export interface VerifySystemScans {
  startVerify(
    ctx: ServiceContext,
    scanId: string,
    v: { addresses: string[]; ports: number[]; findingIds: string[] },
  ): Promise<{ id: string }>;
}

/** The web scans module's Verify: narrowed runs of the web scan that found a finding. */
export interface WebVerifier {
  startVerify(
    ctx: ServiceContext,
    webScanId: string,
    v: { urls: string[]; findingIds: string[] },
  ): Promise<{ id: string }>;
}

export interface VerifyTickets {
  details(ctx: ServiceContext, id: string): Promise<{ findings: { id: string }[] }>;
}

export interface VerifyRun {
  runId: string;
  scanId: string;
  kind: 'System' | 'Web';
  findingIds: string[];
}

export interface VerifyResult {
  runs: VerifyRun[];
  skipped: { findingId: string; reason: string }[];
}

/**
 * Verify: findings found by Rampart's own scans are checked again by a run of the scan that found
 * them, narrowed to their addresses and ports (or URLs); only they may become Fixed by it.
 * Findings another tool reported are answered as skipped, with the reason.
 */
export class VerifyService {
  constructor(
    private readonly findings: VerifyFindings,
    private readonly systemScans: VerifySystemScans,
    private readonly tickets: VerifyTickets,
    /** Without it, web findings are skipped with a reason. */
    private readonly web: WebVerifier | null,
  ) {}

  async verifyTicket(ctx: ServiceContext, ticketId: string): Promise<VerifyResult> {
    const ticket = await this.tickets.details(ctx, ticketId);
    return this.verify(
      ctx,
      ticket.findings.map((f) => f.id),
    );
  }

  async verify(ctx: ServiceContext, findingIds: string[]): Promise<VerifyResult> {
    const ids = [...new Set(findingIds.map((id) => id.toLowerCase()))];
    const located = await this.findings.scanLocations(ctx.organizationId, { ids });
    const result: VerifyResult = { runs: [], skipped: [] };
    const skip = (findingId: string, reason: string) => result.skipped.push({ findingId, reason });
    const found = new Set(located.map((f) => f.id));
    for (const id of ids) if (!found.has(id)) skip(id, 'No such finding in this organisation.');

    const groups = new Map<string, { kind: 'System' | 'Web'; scanId: string; findings: ScanLocation[] }>();
    for (const f of located) {
      const scan = scanOfScope(f.scopeName);
      if (!scan) {
        skip(f.id, `found by ${f.source}; Rampart can only verify what its own scans found`);
        continue;
      }
      const key = `${scan.kind}:${scan.scanId}`;
      const group = groups.get(key) ?? { ...scan, findings: [] };
      group.findings.push(f);
      groups.set(key, group);
    }
    for (const g of groups.values()) {
      if (g.kind === 'System') await this.verifySystem(ctx, g.scanId, g.findings, result);
      else await this.verifyWeb(ctx, g.scanId, g.findings, result);
    }
    return result;
  }

  private async verifySystem(
    ctx: ServiceContext,
    scanId: string,
    findings: ScanLocation[],
    result: VerifyResult,
  ) {
    const usable = findings.filter((f) => {
      if (f.ipAddresses.length === 0) {
        result.skipped.push({ findingId: f.id, reason: 'Its asset has no IP address to scan.' });
        return false;
      }
      if (f.port === null) {
        result.skipped.push({
          findingId: f.id,
          reason: 'A host-wide finding is not tied to a port: run its scan to check it again.',
        });
        return false;
      }
      return true;
    });
    if (usable.length === 0) return;
    const v = {
      addresses: [...new Set(usable.flatMap((f) => f.ipAddresses))],
      ports: [...new Set(usable.map((f) => f.port!))],
      findingIds: usable.map((f) => f.id),
    };
    await this.start(result, usable, 'System', scanId, () => this.systemScans.startVerify(ctx, scanId, v));
  }

  private async verifyWeb(
    ctx: ServiceContext,
    scanId: string,
    findings: ScanLocation[],
    result: VerifyResult,
  ) {
    const web = this.web;
    if (!web) {
      for (const f of findings)
        result.skipped.push({ findingId: f.id, reason: 'Web scans cannot be verified by this server yet.' });
      return;
    }
    const urlOf = (f: ScanLocation) => f.url ?? endpointUrl(f);
    const usable = findings.filter((f) => {
      if (urlOf(f)) return true;
      result.skipped.push({ findingId: f.id, reason: 'The finding names no URL to check again.' });
      return false;
    });
    if (usable.length === 0) return;
    const v = { urls: [...new Set(usable.map((f) => urlOf(f)!))], findingIds: usable.map((f) => f.id) };
    await this.start(result, usable, 'Web', scanId, () => web.startVerify(ctx, scanId, v));
  }

  /** One run per scan; a scan that cannot run now (busy, deleted, targets refused) skips its findings. */
  private async start(
    result: VerifyResult,
    findings: ScanLocation[],
    kind: 'System' | 'Web',
    scanId: string,
    run: () => Promise<{ id: string }>,
  ) {
    try {
      const started = await run();
      result.runs.push({ runId: started.id, scanId, kind, findingIds: findings.map((f) => f.id) });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      for (const f of findings) result.skipped.push({ findingId: f.id, reason: error.message });
    }
  }
}

/**
 * The URL that checks a TLS issue of an endpoint again. TLS findings are the endpoint's (its host
 * and port), whichever scan kind saw them last, so one a web scan saw last may name no URL (a
 * system scan filed it first): its https URL at that address and port judges the same handshake.
 */
function endpointUrl(f: ScanLocation): string | null {
  if (f.locationKind !== 'Port' || f.port === null || f.pluginId === null || !isTlsCheck(f.pluginId))
    return null;
  const address = f.ipAddresses[0];
  if (!address) return null;
  const host = address.includes(':') ? `[${address}]` : address;
  return f.port === 443 ? `https://${host}/` : `https://${host}:${f.port}/`;
}
