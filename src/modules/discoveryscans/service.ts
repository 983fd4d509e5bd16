import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Listeners } from '../../lib/listeners.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ServiceContext } from '../context.js';
import type { SavedScanDependencies } from '../savedscans/dependencies.js';
import { SavedScanService } from '../savedscans/service.js';
import type { ScanNotificationSync } from '../savedscans/types.js';
import { type DiscoveryKindDependencies, discoveryScanKind } from './definition.js';
import { DiscoveryReportRepository } from './repository.js';
import type { DiscoveryScanBody } from './schemas.js';
import type {
  DiscoveryScan,
  DiscoveryScanInput,
  DiscoveryScanWrite,
  HostStatus,
  ReportHost,
} from './types.js';

export { DISCOVERY_REPORTED_JOB, SCHEDULED_DISCOVERY_JOB } from './definition.js';

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
 * Discovery scans (a saved-scan kind, src/modules/savedscans) with their reports: each run's
 * hosts, new and gone since the previous completed run, told to those who follow the reports.
 */
export class DiscoveryScanService extends SavedScanService<
  DiscoveryScan,
  DiscoveryScanInput,
  DiscoveryScanWrite,
  typeof DiscoveryScanBody
> {
  private readonly reports: DiscoveryReportRepository;
  private readonly reported: DiscoveryReported | undefined;
  private readonly notificationRules: ScanNotificationSync | undefined;

  constructor(
    db: Kysely<DB>,
    deps: SavedScanDependencies &
      Omit<DiscoveryKindDependencies, 'reports' | 'reportsFollowed'> & {
        reported?: DiscoveryReported;
        /** The rules of each scan's MessageNotification, kept in step when it is saved or deleted. */
        notificationRules?: ScanNotificationSync;
      },
  ) {
    const reports = new DiscoveryReportRepository(db);
    super(
      db,
      discoveryScanKind({ ...deps, reports, reportsFollowed: () => deps.reported?.followed ?? false }),
      deps,
    );
    this.reports = reports;
    this.reported = deps.reported;
    this.notificationRules = deps.notificationRules;
  }

  override async create(ctx: ServiceContext, input: DiscoveryScanInput): Promise<DiscoveryScan> {
    const scan = await super.create(ctx, input);
    await this.notificationRules?.(ctx, this.owner(scan), scan.notifications);
    return scan;
  }

  override async update(ctx: ServiceContext, id: string, input: DiscoveryScanInput): Promise<DiscoveryScan> {
    const scan = await super.update(ctx, id, input);
    await this.notificationRules?.(ctx, this.owner(scan), scan.notifications);
    return scan;
  }

  override async remove(ctx: ServiceContext, id: string): Promise<void> {
    const scan = await this.get(ctx, id);
    await super.remove(ctx, id);
    await this.notificationRules?.(ctx, this.owner(scan), null);
  }

  private owner(scan: DiscoveryScan) {
    return { kind: 'DiscoveryScan' as const, id: scan.id, name: scan.name };
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
      const run = await this.deps.runs.get(ctx, id);
      if (run.sourceId !== scan.id)
        throw AppError.of(Problems.NotFound, `No run ${id} of the scan '${scan.name}'.`);
    }
    const page = await this.reports.report(ctx.organizationId, id, q);
    return { runId: id, ...page, counts: await this.reports.reportCounts(ctx.organizationId, id) };
  }

  /** The job: tells those who follow the reports what a completed run found, new, seen and gone. */
  async announceReport(organizationId: string, scanId: string, runId: string): Promise<void> {
    const scan = await this.repo.find(organizationId, scanId);
    if (!scan || !this.reported) return;
    const hosts = await this.reports.reportedHosts(organizationId, runId);
    await this.reported.notify({ organizationId, scanId, scanName: scan.name, runId, hosts });
  }
}
