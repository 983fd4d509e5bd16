import { isIP } from 'node:net';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { checkById } from '../../scanning/checks/index.js';
import { portListOf } from '../../scanning/ports/index.js';
import type {
  CheckResult,
  ScannedService,
  ScanTarget,
  SystemHostResult,
  SystemSpec,
} from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { DiscoveryNodes, DiscoveryRuns, ScanSchedules, TargetRules } from '../discoveryscans/service.js';
import type { IngestResult, SystemIngest } from '../scanresults/service.js';
import type { ScanTemplateService } from '../scantemplates/service.js';
import type { SystemScanRepository } from './repository.js';
import type { SystemRun, SystemRunReport, SystemScan, SystemScanInput } from './types.js';

// What this module asks of the modules it works with, by the little it uses of each.

/** The scan results module: a run's hosts become services and findings. */
export interface SystemResults {
  ingestSystem(ctx: ServiceContext, input: SystemIngest): Promise<IngestResult>;
}

/** The durable job queue: a finished run's ingestion is enqueued in the run's transaction. */
export interface IngestJobs {
  enqueue(
    kind: string,
    payload: unknown,
    options: { organizationId?: string; dedupKey?: string; maxAttempts?: number },
    trx?: Transaction<DB>,
  ): Promise<string>;
}

/** The assets module: a host asset's addresses, for a scan that names an asset. */
export interface SystemAssets {
  get(ctx: ServiceContext, id: string): Promise<{ name: string; ipAddresses: string[] }>;
}

export const SCHEDULED_SYSTEM_JOB = 'system-scan.start';
/** Turns a finished run's hosts into services and findings (src/background.ts runs it). */
export const SYSTEM_INGEST_JOB = 'system-scan.ingest';

const ACTIVE = new Set(['Queued', 'Running', 'Stopping']);
const MAX_VERIFY_ADDRESSES = 256;

/**
 * System scans: saved targets with a System template and a node; each start queues a scan run,
 * whose hosts come back in batches (kept per run, by address) and, when it ends, are turned into
 * services and findings by a durable job through the scan results module. A Verify run scans only
 * some addresses and ports, and may fix only the findings it was asked about.
 */
export class SystemScanService {
  constructor(
    private readonly repo: SystemScanRepository,
    private readonly templates: ScanTemplateService,
    private readonly targets: TargetRules,
    private readonly runs: DiscoveryRuns,
    private readonly nodes: DiscoveryNodes,
    private readonly schedules: ScanSchedules,
    private readonly assets: SystemAssets,
    private readonly results: SystemResults,
    private readonly jobs: IngestJobs,
    private readonly audit: {
      record(
        ctx: ServiceContext,
        action: string,
        target: { type: string; id: string },
        details?: object,
      ): Promise<void>;
    },
    private readonly clock: Clock,
  ) {}

  async create(ctx: ServiceContext, input: SystemScanInput): Promise<SystemScan> {
    const write = await this.check(ctx, input);
    const scan = await this.repo.insert(
      ctx.organizationId,
      uuidv7(),
      write,
      ctx.userId ?? null,
      this.clock(),
    );
    await this.schedules.apply(ctx.organizationId, scan.id, input.schedule);
    await this.audit.record(
      ctx,
      'system-scan.created',
      { type: 'system-scan', id: scan.id },
      { name: scan.name },
    );
    return scan;
  }

  async update(ctx: ServiceContext, id: string, input: SystemScanInput): Promise<SystemScan> {
    await this.get(ctx, id);
    const write = await this.check(ctx, input);
    const scan = await this.repo.update(ctx.organizationId, id, write, this.clock());
    if (!scan) throw notFound(id);
    await this.schedules.apply(ctx.organizationId, id, input.schedule);
    await this.audit.record(ctx, 'system-scan.updated', { type: 'system-scan', id }, { name: scan.name });
    return scan;
  }

  async get(ctx: ServiceContext, id: string): Promise<SystemScan> {
    const scan = await this.repo.find(ctx.organizationId, id);
    if (!scan) throw notFound(id);
    return scan;
  }

  async list(ctx: ServiceContext, q: { scanGroupId?: string; pageSize: number; cursor?: string }) {
    const after = q.cursor ? decodeCreatedAtCursor(q.cursor) : undefined;
    if (q.cursor && !after) throw invalid('cursor', 'is not a cursor this list gave');
    const rows = await this.repo.page(ctx.organizationId, q.pageSize, after, q.scanGroupId);
    return {
      ...createdAtPage(rows, q.pageSize),
      totalCount: await this.repo.count(ctx.organizationId, q.scanGroupId),
    };
  }

  /** A scan group's system scans, oldest first. */
  listByGroup(ctx: ServiceContext, scanGroupId: string): Promise<SystemScan[]> {
    return this.repo.byGroup(ctx.organizationId, scanGroupId);
  }

  /** A scan and its runs' data go (its findings stay); a scan with a run under way must be stopped first. */
  async remove(ctx: ServiceContext, id: string): Promise<void> {
    const scan = await this.get(ctx, id);
    const run = await this.runs.latest(ctx, id);
    if (run && ACTIVE.has(run.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' is running; stop it before deleting it.`);
    await this.schedules.apply(ctx.organizationId, id, null);
    await this.repo.delete(ctx.organizationId, id);
    await this.audit.record(ctx, 'system-scan.deleted', { type: 'system-scan', id }, { name: scan.name });
  }

  nextRunAt(ctx: ServiceContext, id: string): Promise<Date | null> {
    return this.schedules.nextRunAt(ctx.organizationId, id);
  }

  latestRun(ctx: ServiceContext, id: string): Promise<SystemRun | null> {
    return this.runs.latest(ctx, id);
  }

  /** A scheduled occurrence: starts the scan as the system, unless a run is under way or it is gone. */
  async startScheduled(organizationId: string, scanId: string): Promise<SystemRun | null> {
    const ctx: ServiceContext = { organizationId, actor: { type: 'system', id: null } };
    if (!(await this.repo.find(organizationId, scanId))) return null;
    const current = await this.runs.latest(ctx, scanId);
    if (current && ACTIVE.has(current.state)) return null;
    return this.start(ctx, scanId);
  }

  /** Starts a run now: targets checked again against today's allowed ranges (422); 409 when one is under way. */
  async start(ctx: ServiceContext, id: string): Promise<SystemRun> {
    const scan = await this.idle(ctx, id);
    await this.targets.assertAllowed(ctx, scan.targets, scan.exclusions);
    const run = await this.queue(ctx, scan, scan.targets, null, null, scan.name);
    await this.audit.record(ctx, 'system-scan.started', { type: 'system-scan', id }, { runId: run.id });
    return run;
  }

  /**
   * A Verify run: only these addresses and ports, and only these findings may become Fixed by it
   * (the scan's other findings are left as they are).
   */
  async startVerify(
    ctx: ServiceContext,
    scanId: string,
    v: { addresses: string[]; ports: number[]; findingIds: string[] },
  ): Promise<SystemRun> {
    const scan = await this.idle(ctx, scanId);
    const addresses = [...new Set(v.addresses)];
    if (addresses.length === 0 || addresses.length > MAX_VERIFY_ADDRESSES)
      throw invalid('addresses', `must hold 1 to ${MAX_VERIFY_ADDRESSES} addresses`);
    const bad = addresses.find((a) => isIP(a) === 0);
    if (bad) throw invalid('addresses', `'${bad}' is not an IP address`);
    const ports = [...new Set(v.ports)].sort((a, b) => a - b);
    if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535))
      throw invalid('ports', 'must hold ports from 1 to 65535');
    if (v.findingIds.length === 0) throw invalid('findingIds', 'must name the findings to verify');
    const targets = addresses.map((range) => ({ range, name: null, exclude: [] }));
    await this.targets.assertAllowed(ctx, targets, scan.exclusions);
    const run = await this.queue(ctx, scan, targets, ports.join(','), v.findingIds, `${scan.name} (Verify)`);
    await this.audit.record(
      ctx,
      'system-scan.verify-started',
      { type: 'system-scan', id: scanId },
      { runId: run.id, findings: v.findingIds.length },
    );
    return run;
  }

  /** Stops the run under way; a scan with none answers 409. */
  async stop(ctx: ServiceContext, id: string): Promise<SystemRun> {
    const scan = await this.get(ctx, id);
    const current = await this.runs.latest(ctx, id);
    if (!current || !ACTIVE.has(current.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' has no run under way.`);
    const run = await this.runs.stop(ctx, current.id);
    await this.audit.record(ctx, 'system-scan.stopped', { type: 'system-scan', id }, { runId: run.id });
    return run;
  }

  /** The scan's latest run with its hosts, backport decisions and import counts; 404 when it never ran. */
  async latestReport(ctx: ServiceContext, id: string): Promise<SystemRunReport> {
    const scan = await this.get(ctx, id);
    const run = await this.runs.latest(ctx, id);
    if (!run) throw AppError.of(Problems.NotFound, `The scan '${scan.name}' has not run yet.`);
    return {
      run,
      record: (await this.repo.findRun(ctx.organizationId, run.id)) ?? null,
      hosts: await this.repo.runHosts(ctx.organizationId, run.id),
    };
  }

  usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    return this.repo.usesTemplate(organizationId, templateId);
  }

  // ---- what the scan runs module and the job runner call back ----

  /** A batch of hosts; items a node had no business sending are dropped. Idempotent by address. */
  async applyBatch(run: SystemRun, items: unknown[], trx: Transaction<DB>): Promise<void> {
    if (!(await this.repo.find(run.organizationId, run.sourceId, trx))) return;
    const spec = run.spec as Partial<SystemSpec> | undefined;
    const hosts = items
      .map(systemHostOf)
      .filter((h): h is SystemHostResult => h !== null)
      .filter(
        (h) =>
          !spec?.policy ||
          this.targets.refusal([{ range: h.address }], spec.exclusions ?? [], spec.policy) === null,
      );
    await this.repo.addRunHosts(run.organizationId, run.sourceId, run.id, hosts, this.clock(), trx);
  }

  /** The run ended: a Completed or Stopped one's hosts are ingested by a durable job (same transaction). */
  async finish(run: SystemRun, trx: Transaction<DB>): Promise<void> {
    const org = run.organizationId;
    const scan = await this.repo.find(org, run.sourceId, trx);
    if (!scan) return;
    if (run.state === 'Completed') await this.repo.setCompleted(org, scan.id, run.id, this.clock(), trx);
    else await this.repo.setLastRun(org, scan.id, run.id, trx);
    if (run.state !== 'Completed' && run.state !== 'Stopped') return;
    await this.jobs.enqueue(
      SYSTEM_INGEST_JOB,
      { runId: run.id },
      { organizationId: org, dedupKey: `${SYSTEM_INGEST_JOB}:${run.id}`, maxAttempts: 3 },
      trx,
    );
  }

  /** The ingestion job: the run's hosts become services and findings; the import is recorded on the run. */
  async ingestRun(organizationId: string, runId: string): Promise<void> {
    const record = await this.repo.findRun(organizationId, runId);
    if (!record || record.importId) return;
    const scan = await this.repo.find(organizationId, record.scanId);
    if (!scan) return;
    const ctx: ServiceContext = { organizationId, actor: { type: 'system', id: null } };
    const hosts = await this.repo.runHosts(organizationId, runId);
    try {
      const result = await this.results.ingestSystem(ctx, {
        scanId: scan.id,
        scanName: scan.name,
        runId,
        hosts,
        verify: record.verifyFindingIds ? { findingIds: record.verifyFindingIds } : null,
        portScanned: portTest(record.ports),
      });
      await this.repo.recordIngest(organizationId, runId, {
        importId: result.importId,
        counts: result.counts,
        backports: result.backports,
        error: null,
        at: this.clock(),
      });
    } catch (error) {
      await this.repo.recordIngest(organizationId, runId, {
        importId: null,
        counts: null,
        backports: [],
        error: error instanceof AppError ? error.message : 'The findings of this run could not be stored.',
        at: this.clock(),
      });
      throw error;
    }
  }

  /** Checked again when a node claims the run: the allowed ranges may have changed since. */
  async refusalAtStart(run: SystemRun, spec: unknown): Promise<string | null> {
    const s = spec as Partial<SystemSpec> | null;
    if (!s || !Array.isArray(s.targets) || !Array.isArray(s.exclusions)) return null;
    const policy = await this.targets.policy(run.organizationId);
    return this.targets.refusal(s.targets, s.exclusions, policy);
  }

  private async idle(ctx: ServiceContext, id: string): Promise<SystemScan> {
    const scan = await this.get(ctx, id);
    const current = await this.runs.latest(ctx, id);
    if (current && ACTIVE.has(current.state))
      throw AppError.of(
        Problems.Conflict,
        `The scan '${scan.name}' is ${current.state.toLowerCase()} already.`,
        {
          runId: current.id,
        },
      );
    return scan;
  }

  private async queue(
    ctx: ServiceContext,
    scan: SystemScan,
    targets: ScanTarget[],
    portsOverride: string | null,
    verifyFindingIds: string[] | null,
    sourceName: string,
  ): Promise<SystemRun> {
    const template = await this.templates.getOf(ctx, scan.templateId, 'System');
    const spec: SystemSpec = {
      targets,
      exclusions: scan.exclusions,
      template: template.settings,
      portsOverride,
      policy: await this.targets.policy(ctx.organizationId),
    };
    return this.repo.transaction(async (trx) => {
      const queued = await this.runs.queue(
        ctx,
        {
          kind: 'System',
          sourceId: scan.id,
          sourceName: sourceName.slice(0, 200),
          nodeId: scan.nodeId,
          spec,
        },
        trx,
      );
      await this.repo.insertRun(
        ctx.organizationId,
        {
          runId: queued.id,
          scanId: scan.id,
          verifyFindingIds,
          ports: portsOverride ?? template.settings.ports,
        },
        trx,
      );
      await this.repo.setLastRun(ctx.organizationId, scan.id, queued.id, trx);
      return queued;
    });
  }

  private async check(ctx: ServiceContext, input: SystemScanInput) {
    const name = input.name.trim();
    if (name.length === 0) throw invalid('name', 'A scan needs a name.');
    this.schedules.check(input.schedule);
    let targets = input.targets.map((t) => ({
      range: t.range.trim(),
      name: t.name?.trim() || null,
      exclude: (t.exclude ?? []).map((e) => e.trim()).filter(Boolean),
    }));
    if (input.assetId) {
      if (targets.length > 0) throw invalid('assetId', 'Give ScanTargets or AssetId, not both.');
      const asset = await this.assets.get(ctx, input.assetId);
      if (asset.ipAddresses.length === 0)
        throw invalid('assetId', `The asset '${asset.name}' has no IP address to scan.`);
      targets = asset.ipAddresses.map((range) => ({ range, name: asset.name, exclude: [] }));
    }
    if (targets.length === 0)
      throw invalid('scanTargets', 'A scan needs at least one target (or an AssetId).');
    await this.templates.getOf(ctx, input.templateId, 'System');
    if (input.nodeId && !(await this.nodes.servesKind(ctx, input.nodeId, 'System')))
      throw AppError.of(
        Problems.NotFound,
        `No scan node ${input.nodeId} serving system scans in this organisation.`,
      );
    const exclusions = input.exclusions.map((e) => e.trim()).filter(Boolean);
    await this.targets.assertAllowed(ctx, targets, exclusions);
    return {
      name,
      targets,
      exclusions,
      templateId: input.templateId,
      nodeId: input.nodeId,
      schedule: input.schedule && input.schedule.SchedulingMode !== 'None' ? input.schedule : null,
      scanGroupId: input.scanGroupId,
    };
  }
}

function notFound(id: string): AppError {
  return AppError.of(Problems.NotFound, `No system scan ${id} in this organisation.`);
}

/** Whether a run with this port list (top1000, all or a list) probed a port; null when it cannot be read. */
export function portTest(ports: string): ((port: number) => boolean) | null {
  try {
    const list = portListOf(ports);
    if (!Array.isArray(list)) return () => true; // every port
    const set = new Set(list);
    return (port) => set.has(port);
  } catch {
    return null;
  }
}

// ---- a node's items, checked: a node is another process, its items are input like any other ----

const isPort = (p: unknown) => Number.isInteger(p) && (p as number) >= 1 && (p as number) <= 65535;
const ports = (v: unknown, max = 65535) => Array.isArray(v) && v.length <= max && v.every(isPort);
const text = (v: unknown, max: number) => v === null || (typeof v === 'string' && v.length <= max);

function serviceOf(v: unknown): ScannedService | null {
  if (typeof v !== 'object' || v === null) return null;
  const s = v as Record<string, unknown>;
  const ok =
    isPort(s.port) &&
    s.protocol === 'tcp' &&
    text(s.service, 100) &&
    text(s.product, 255) &&
    text(s.version, 100) &&
    Array.isArray(s.cpes) &&
    s.cpes.length <= 20 &&
    s.cpes.every((c) => typeof c === 'string' && c.length <= 500) &&
    typeof s.confidence === 'number' &&
    s.confidence >= 0 &&
    s.confidence <= 1 &&
    text(s.banner, 512) &&
    typeof s.evidence === 'string' &&
    s.evidence.length <= 4000 &&
    typeof s.tls === 'boolean' &&
    (s.detectedBy === 'rampart' || s.detectedBy === 'nmap');
  return ok ? (s as unknown as ScannedService) : null;
}

function checkOf(v: unknown): CheckResult | null {
  if (typeof v !== 'object' || v === null) return null;
  const c = v as Record<string, unknown>;
  if (typeof c.checkId !== 'string') return null;
  const def = checkById(c.checkId);
  // Only checks of the catalogue a system scan runs.
  if (!def || def.scan === 'Web') return null;
  const ok =
    (c.port === null || isPort(c.port)) &&
    (c.url === null || c.url === undefined) &&
    typeof c.evidence === 'string' &&
    c.evidence.length <= 4000;
  return ok
    ? { checkId: c.checkId, port: c.port as number | null, url: null, evidence: c.evidence as string }
    : null;
}

/** A host result as the contract says, or null; services and checks that are not are left out. */
export function systemHostOf(item: unknown): SystemHostResult | null {
  if (typeof item !== 'object' || item === null) return null;
  const h = item as Record<string, unknown>;
  const ok =
    typeof h.address === 'string' &&
    isIP(h.address) !== 0 &&
    text(h.hostname, 255) &&
    ports(h.openPorts) &&
    (h.closedPorts === null || ports(h.closedPorts, 64)) &&
    Number.isInteger(h.filtered) &&
    (h.filtered as number) >= 0 &&
    ports(h.unscannedPorts) &&
    Array.isArray(h.services) &&
    h.services.length <= 65535 &&
    Array.isArray(h.checks) &&
    h.checks.length <= 10_000 &&
    (h.budgetExhausted === null || ['port', 'host', 'run'].includes(h.budgetExhausted as string));
  if (!ok) return null;
  return {
    address: h.address as string,
    hostname: h.hostname as string | null,
    openPorts: h.openPorts as number[],
    closedPorts: h.closedPorts as number[] | null,
    filtered: h.filtered as number,
    unscannedPorts: h.unscannedPorts as number[],
    services: (h.services as unknown[]).map(serviceOf).filter((s): s is ScannedService => s !== null),
    checks: (h.checks as unknown[]).map(checkOf).filter((c): c is CheckResult => c !== null),
    budgetExhausted: h.budgetExhausted as SystemHostResult['budgetExhausted'],
    ...(typeof h.tlsChecked === 'boolean' ? { tlsChecked: h.tlsChecked } : {}),
  };
}
