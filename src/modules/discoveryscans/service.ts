import { isIP } from 'node:net';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import type { Listeners } from '../../lib/listeners.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type {
  DiscoveredHost,
  DiscoverySpec,
  ScanKind,
  ScanTarget,
  TargetPolicy,
} from '../../scanning/types.js';
import type { AssetInput, AssetService } from '../assets/service.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { ScanTemplateService } from '../scantemplates/service.js';
import type { DiscoveryScanRepository } from './repository.js';
import type { DiscoveryRun, DiscoveryScan, DiscoveryScanInput, HostStatus, ReportHost } from './types.js';

// What this module asks of the modules it works with, by the little it uses of each.

/** The scan runs module: runs are queued there, claimed by nodes, and their results come back here. */
export interface DiscoveryRuns {
  queue(
    ctx: ServiceContext,
    input: { kind: ScanKind; sourceId: string; sourceName: string; nodeId: string | null; spec: unknown },
    trx?: Transaction<DB>,
  ): Promise<DiscoveryRun>;
  stop(ctx: ServiceContext, runId: string): Promise<DiscoveryRun>;
  get(ctx: ServiceContext, runId: string): Promise<DiscoveryRun>;
  latest(ctx: ServiceContext, sourceId: string): Promise<DiscoveryRun | null>;
}

/** The allowed-targets module: the organisation's policy, and the 422 for targets outside it. */
export interface TargetRules {
  policy(organizationId: string): Promise<TargetPolicy>;
  assertAllowed(ctx: ServiceContext, targets: ScanTarget[], exclusions: string[]): Promise<void>;
  /** The first refusal of these targets under a policy, as a sentence; null when all are allowed. */
  refusal(targets: ScanTarget[], exclusions: string[], policy: TargetPolicy): string | null;
}

/** The job scheduler: a scan's ScheduleOption becomes a schedule that starts it. */
export interface ScanSchedules {
  /** Checks the option (400 naming the field under `Schedule`) before anything is saved. */
  check(option: ScheduleOption | null): void;
  /** Sets (or, for null and None, removes) the scan's schedule; answers its next run. */
  apply(organizationId: string, scanId: string, option: ScheduleOption | null): Promise<Date | null>;
  nextRunAt(organizationId: string, scanId: string): Promise<Date | null>;
  /** The id of the scan's schedule, or null when it is not scheduled. */
  scheduleId(organizationId: string, scanId: string): Promise<string | null>;
}

/** The job a scan's schedule enqueues at each occurrence. */
export const SCHEDULED_DISCOVERY_JOB = 'discovery-scan.start';

/** The scan nodes module: whether a node exists for the organisation and serves discovery. */
export interface DiscoveryNodes {
  servesKind(ctx: ServiceContext, nodeId: string, kind: ScanKind): Promise<boolean>;
}

const ACTIVE = new Set(['Queued', 'Running', 'Stopping']);

/** A host of a completed run's report, as those who follow the reports see it. */
export interface ReportedHost {
  address: string;
  hostname: string | null;
  openPorts: number[];
  status: 'New' | 'Seen' | 'Gone';
}

/** A completed run's report: its New, Seen and Gone hosts with their open ports. */
export interface DiscoveryReport {
  organizationId: string;
  scanId: string;
  scanName: string;
  runId: string;
  hosts: ReportedHost[];
}

/** Raised after a run's report is complete (scan groups follow it to add and remove scans). */
export type DiscoveryReported = Listeners<[DiscoveryReport]>;

/**
 * The job that tells the followers of the reports, enqueued in the run's transaction: they change
 * other modules' scans, which they cannot do inside that transaction.
 */
export const DISCOVERY_REPORTED_JOB = 'discovery-scan.reported';

/** The durable job queue. */
export interface DiscoveryJobs {
  enqueue(
    kind: string,
    payload: unknown,
    options: { organizationId?: string; dedupKey?: string; maxAttempts?: number },
    trx?: Transaction<DB>,
  ): Promise<string>;
}

/** The asset a discovered host becomes, by the identifiers imports use (address, MAC, name). */
export function hostAsset(h: DiscoveredHost, seenAt: Date): AssetInput {
  const name = h.hostname?.replace(/\.$/, '') ?? undefined;
  return {
    kind: 'Host',
    ipAddresses: [h.address],
    macAddresses: h.macAddress ? [h.macAddress] : [],
    ...(name?.includes('.') ? { fqdn: name, hostname: name.split('.')[0] } : name ? { hostname: name } : {}),
    ...(h.osGuess ? { operatingSystem: h.osGuess } : {}),
    source: 'Rampart discovery',
    seenAt,
  };
}

/**
 * Discovery scans: saved ranges with a template and a node; each start queues a scan run, whose
 * hosts come back in batches and, when it completes, become the run's report (new and gone since
 * the previous completed run) and assets, merged by identity exactly as imports merge them.
 */
export class DiscoveryScanService {
  constructor(
    private readonly repo: DiscoveryScanRepository,
    private readonly templates: ScanTemplateService,
    private readonly targets: TargetRules,
    private readonly runs: DiscoveryRuns,
    private readonly nodes: DiscoveryNodes,
    private readonly schedules: ScanSchedules,
    private readonly assets: AssetService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly reported?: DiscoveryReported,
    private readonly jobs?: DiscoveryJobs,
  ) {}

  async create(ctx: ServiceContext, input: DiscoveryScanInput): Promise<DiscoveryScan> {
    await this.check(ctx, input);
    const scan = await this.repo.insert(
      ctx.organizationId,
      uuidv7(),
      write(input),
      ctx.userId ?? null,
      this.clock(),
    );
    await this.schedules.apply(ctx.organizationId, scan.id, input.schedule);
    await this.audit.record(
      ctx,
      'discovery-scan.created',
      { type: 'discovery-scan', id: scan.id },
      { name: scan.name },
    );
    return scan;
  }

  async update(ctx: ServiceContext, id: string, input: DiscoveryScanInput): Promise<DiscoveryScan> {
    await this.get(ctx, id);
    await this.check(ctx, input);
    const scan = await this.repo.update(ctx.organizationId, id, write(input), this.clock());
    if (!scan) throw notFound(id);
    await this.schedules.apply(ctx.organizationId, id, input.schedule);
    await this.audit.record(
      ctx,
      'discovery-scan.updated',
      { type: 'discovery-scan', id },
      { name: scan.name },
    );
    return scan;
  }

  async get(ctx: ServiceContext, id: string): Promise<DiscoveryScan> {
    const scan = await this.repo.find(ctx.organizationId, id);
    if (!scan) throw notFound(id);
    return scan;
  }

  async list(ctx: ServiceContext, q: { pageSize: number; cursor?: string }) {
    const after = q.cursor ? decodeCreatedAtCursor(q.cursor) : undefined;
    if (q.cursor && !after) throw invalid('cursor', 'is not a cursor this list gave');
    const rows = await this.repo.page(ctx.organizationId, q.pageSize, after);
    return { ...createdAtPage(rows, q.pageSize), totalCount: await this.repo.count(ctx.organizationId) };
  }

  async listOffset(ctx: ServiceContext, start: number, size: number) {
    return {
      items: await this.repo.offset(ctx.organizationId, start, size),
      totalCount: await this.repo.count(ctx.organizationId),
    };
  }

  async any(ctx: ServiceContext): Promise<boolean> {
    return (await this.repo.count(ctx.organizationId)) > 0;
  }

  /** A scan and its runs' data go; a scan with a run under way must be stopped first. */
  async delete(ctx: ServiceContext, id: string): Promise<void> {
    const scan = await this.get(ctx, id);
    const run = await this.runs.latest(ctx, id);
    if (run && ACTIVE.has(run.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' is running; stop it before deleting it.`);
    await this.schedules.apply(ctx.organizationId, id, null);
    await this.repo.delete(ctx.organizationId, id);
    await this.audit.record(
      ctx,
      'discovery-scan.deleted',
      { type: 'discovery-scan', id },
      { name: scan.name },
    );
  }

  /** When the scan's schedule starts it next, or null when it is not scheduled. */
  nextRunAt(ctx: ServiceContext, id: string): Promise<Date | null> {
    return this.schedules.nextRunAt(ctx.organizationId, id);
  }

  /** The id of the scan's schedule (what the original's clients send as a ScheduleId), or null. */
  scheduleId(ctx: ServiceContext, id: string): Promise<string | null> {
    return this.schedules.scheduleId(ctx.organizationId, id);
  }

  /**
   * A scheduled occurrence: starts the scan as the system. A scan already under way lets the
   * occurrence pass (it is not queued behind), and a deleted scan has nothing to start.
   */
  async startScheduled(organizationId: string, scanId: string): Promise<DiscoveryRun | null> {
    const ctx: ServiceContext = { organizationId, actor: { type: 'system', id: null } };
    if (!(await this.repo.find(organizationId, scanId))) return null;
    const current = await this.runs.latest(ctx, scanId);
    if (current && ACTIVE.has(current.state)) return null;
    return this.start(ctx, scanId);
  }

  /** The latest run of the scan, or null when it never ran. */
  latestRun(ctx: ServiceContext, id: string): Promise<DiscoveryRun | null> {
    return this.runs.latest(ctx, id);
  }

  /**
   * Starts a run now: the targets are checked again against today's allowed ranges (422), and a
   * scan with a run under way answers 409.
   */
  async start(ctx: ServiceContext, id: string): Promise<DiscoveryRun> {
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
    await this.targets.assertAllowed(ctx, scan.targets, scan.exclusions);
    const template = await this.templates.getOf(ctx, scan.templateId, 'Discovery');
    const spec: DiscoverySpec = {
      targets: scan.targets,
      exclusions: scan.exclusions,
      template: template.settings,
      policy: await this.targets.policy(ctx.organizationId),
    };
    const run = await this.repo.transaction(async (trx) => {
      const queued = await this.runs.queue(
        ctx,
        { kind: 'Discovery', sourceId: scan.id, sourceName: scan.name, nodeId: scan.nodeId, spec },
        trx,
      );
      await this.repo.setLastRun(ctx.organizationId, scan.id, queued.id, trx);
      return queued;
    });
    await this.audit.record(ctx, 'discovery-scan.started', { type: 'discovery-scan', id }, { runId: run.id });
    return run;
  }

  /** Stops the run under way; a scan with none answers 409. */
  async stop(ctx: ServiceContext, id: string): Promise<DiscoveryRun> {
    const scan = await this.get(ctx, id);
    const current = await this.runs.latest(ctx, id);
    if (!current || !ACTIVE.has(current.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' has no run under way.`);
    const run = await this.runs.stop(ctx, current.id);
    await this.audit.record(ctx, 'discovery-scan.stopped', { type: 'discovery-scan', id }, { runId: run.id });
    return run;
  }

  /** A run's report: `latest` is the scan's latest completed run (404 when it has none). */
  async report(
    ctx: ServiceContext,
    scanId: string,
    runId: string | 'latest',
    q: { status?: HostStatus | 'Live'; offset: number; limit: number },
  ): Promise<{ runId: string; items: ReportHost[]; totalCount: number; counts: Record<HostStatus, number> }> {
    const scan = await this.get(ctx, scanId);
    const id = runId === 'latest' ? scan.lastCompletedRunId : runId;
    if (!id) throw AppError.of(Problems.NotFound, `The scan '${scan.name}' has no completed run yet.`);
    if (runId !== 'latest') {
      const run = await this.runs.get(ctx, id);
      if (run.sourceId !== scan.id)
        throw AppError.of(Problems.NotFound, `No run ${id} of the scan '${scan.name}'.`);
    }
    const page = await this.repo.report(ctx.organizationId, id, q);
    return { runId: id, ...page, counts: await this.repo.reportCounts(ctx.organizationId, id) };
  }

  /** Whether a scan uses the template (templates may not be deleted then). */
  usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    return this.repo.usesTemplate(organizationId, templateId);
  }

  // ---- what the scan runs module calls back ----

  /** A batch of hosts from a run; applied once per batch, idempotent across the run's attempts. */
  async applyBatch(run: DiscoveryRun, items: unknown[], trx: Transaction<DB>): Promise<void> {
    // A run of a scan deleted since (or not a discovery scan's): nothing to keep.
    if (!(await this.repo.find(run.organizationId, run.sourceId, trx))) return;
    // A node is another process: what it reports must be a host, inside what its run allowed.
    const spec = run.spec as Partial<DiscoverySpec> | undefined;
    const hosts = items
      .filter(isHost)
      .filter((h) => !spec?.policy || this.targets.refusal([{ range: h.address }], [], spec.policy) === null);
    await this.repo.addRunHosts(run.organizationId, run.sourceId, run.id, hosts, this.clock(), trx);
  }

  /** The run ended: a completed one becomes the report and the assets; any sets the scan's last run. */
  async finish(run: DiscoveryRun, trx: Transaction<DB>): Promise<void> {
    const org = run.organizationId;
    const scan = await this.repo.find(org, run.sourceId, trx);
    if (!scan) return;
    if (run.state !== 'Completed') {
      await this.repo.setLastRun(org, scan.id, run.id, trx);
      return;
    }
    const now = this.clock();
    const hosts = await this.repo.runHosts(org, run.id, trx);
    const ctx: ServiceContext = { organizationId: org, actor: { type: 'system', id: null } };
    const observed = hosts.flatMap((h) => {
      try {
        return [
          {
            address: h.address,
            prepared: this.assets.prepare(
              hostAsset(
                {
                  address: h.address,
                  hostname: h.hostname,
                  macAddress: h.mac_address,
                  osGuess: h.os_guess,
                  openPorts: h.open_ports,
                  closedPorts: h.closed_ports,
                },
                now,
              ),
            ),
          },
        ];
      } catch {
        // A host name or MAC an asset cannot carry: the host stays in the report, without an asset.
        return [];
      }
    });
    const { ids } = await this.assets.observeMany(
      ctx,
      observed.map((o) => o.prepared),
      trx,
    );
    await this.repo.setAssetIds(
      org,
      run.id,
      observed.map((o, i) => ({ address: o.address, assetId: ids[i]! })),
      trx,
    );
    await this.repo.completeReport(org, scan.id, run.id, scan.lastCompletedRunId, now, trx);
    if (this.reported?.followed && this.jobs)
      await this.jobs.enqueue(
        DISCOVERY_REPORTED_JOB,
        { scanId: scan.id, runId: run.id },
        { organizationId: org, dedupKey: `discovery-reported:${run.id}`, maxAttempts: 3 },
        trx,
      );
  }

  /** The job: tells those who follow the reports what a completed run found, new, seen and gone. */
  async announceReport(organizationId: string, scanId: string, runId: string): Promise<void> {
    const scan = await this.repo.find(organizationId, scanId);
    if (!scan || !this.reported) return;
    const hosts = await this.repo.reportedHosts(organizationId, runId);
    await this.reported.notify({ organizationId, scanId, scanName: scan.name, runId, hosts });
  }

  /** Checked again when a node claims the run: the allowed ranges may have changed since. */
  async refusalAtStart(run: DiscoveryRun, spec: unknown): Promise<string | null> {
    const s = spec as Partial<DiscoverySpec> | null;
    // Not a discovery scan's spec: the node's executor refuses what it cannot read.
    if (!s || !Array.isArray(s.targets) || !Array.isArray(s.exclusions)) return null;
    const policy = await this.targets.policy(run.organizationId);
    return this.targets.refusal(s.targets, s.exclusions, policy);
  }

  private async check(ctx: ServiceContext, input: DiscoveryScanInput): Promise<void> {
    if (input.name.trim().length === 0) throw invalid('name', 'A scan needs a name.');
    this.schedules.check(input.schedule);
    if (input.targets.length === 0) throw invalid('scanTargets', 'A scan needs at least one target.');
    const template = await this.templates.find(ctx, input.templateId);
    if (!template)
      throw AppError.of(Problems.NotFound, `No scan template ${input.templateId} in this organisation.`);
    if (template.kind !== 'Discovery')
      throw invalid('templateId', `'${template.name}' is a ${template.kind} template, not a discovery one.`);
    if (input.nodeId && !(await this.nodes.servesKind(ctx, input.nodeId, 'Discovery')))
      throw AppError.of(
        Problems.NotFound,
        `No scan node ${input.nodeId} serving discovery scans in this organisation.`,
      );
    await this.targets.assertAllowed(ctx, input.targets, input.exclusions);
  }
}

function write(input: DiscoveryScanInput) {
  return {
    name: input.name.trim(),
    targets: input.targets.map((t) => ({
      range: t.range.trim(),
      name: t.name?.trim() || null,
      exclude: (t.exclude ?? []).map((e) => e.trim()).filter(Boolean),
    })),
    exclusions: input.exclusions.map((e) => e.trim()).filter(Boolean),
    templateId: input.templateId,
    nodeId: input.nodeId,
    schedule: input.schedule && input.schedule.SchedulingMode !== 'None' ? input.schedule : null,
    notifications: input.notifications,
    responsibleUserId: input.responsibleUserId,
  };
}

function notFound(id: string): AppError {
  return AppError.of(Problems.NotFound, `No discovery scan ${id} in this organisation.`);
}

/** A node's result item, checked: a node is another process, its items are input like any other. */
function isHost(item: unknown): item is DiscoveredHost {
  if (typeof item !== 'object' || item === null) return false;
  const h = item as Record<string, unknown>;
  const ports = (v: unknown) =>
    Array.isArray(v) && v.length <= 65535 && v.every((p) => Number.isInteger(p) && p >= 1 && p <= 65535);
  const text = (v: unknown, max: number) => v === null || (typeof v === 'string' && v.length <= max);
  return (
    typeof h.address === 'string' &&
    isIP(h.address) !== 0 &&
    text(h.hostname, 255) &&
    text(h.macAddress, 17) &&
    text(h.osGuess, 100) &&
    ports(h.openPorts) &&
    ports(h.closedPorts)
  );
}
