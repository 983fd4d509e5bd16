import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { portListOf } from '../../scanning/ports/index.js';
import type { ServiceContext } from '../context.js';
import type { EventsService } from '../events/service.js';
import type { SavedScanDependencies } from '../savedscans/dependencies.js';
import { SavedScanService, systemContext } from '../savedscans/service.js';
import type { IngestResult, SystemIngest } from '../scanresults/service.js';
import { type SystemKindDependencies, type SystemVerify, systemScanKind } from './definition.js';
import { SystemRunRepository } from './repository.js';
import type { SystemScanBody } from './schemas.js';
import type { SystemRun, SystemRunReport, SystemScan, SystemScanInput, SystemScanWrite } from './types.js';

export { SCHEDULED_SYSTEM_JOB, SYSTEM_INGEST_JOB } from './definition.js';

/** The scan results module: a run's hosts become services and findings. */
export interface SystemResults {
  ingestSystem(ctx: ServiceContext, input: SystemIngest): Promise<IngestResult>;
}

const MAX_VERIFY_ADDRESSES = 256;

/**
 * System scans (a saved-scan kind, src/modules/savedscans) with their Verify runs, their latest
 * run's report, and the job that turns a finished run's hosts into services and findings.
 */
export class SystemScanService extends SavedScanService<
  SystemScan,
  SystemScanInput,
  SystemScanWrite,
  typeof SystemScanBody,
  SystemVerify
> {
  private readonly records: SystemRunRepository;
  private readonly results: SystemResults;
  private readonly events: Pick<EventsService, 'publish'>;

  constructor(
    db: Kysely<DB>,
    deps: SavedScanDependencies &
      Omit<SystemKindDependencies, 'records'> & {
        results: SystemResults;
        events: Pick<EventsService, 'publish'>;
      },
  ) {
    const records = new SystemRunRepository(db);
    super(db, systemScanKind({ ...deps, records }), deps);
    this.records = records;
    this.results = deps.results;
    this.events = deps.events;
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
    return this.startNarrowed(ctx, scan, { targets, ports, findingIds: v.findingIds });
  }

  /** The scan's latest run with its hosts, backport decisions and import counts; 404 when it never ran. */
  async latestReport(ctx: ServiceContext, id: string): Promise<SystemRunReport> {
    const run = await this.latestRunOf(ctx, id);
    return {
      run,
      record: (await this.records.findRun(ctx.organizationId, run.id)) ?? null,
      hosts: await this.records.runHosts(ctx.organizationId, run.id),
    };
  }

  /** The ingestion job: the run's hosts become services and findings; the import is recorded on the run. */
  async ingestRun(organizationId: string, runId: string): Promise<void> {
    const record = await this.records.findRun(organizationId, runId);
    if (!record || record.importId) return;
    const scan = await this.repo.find(organizationId, record.scanId);
    if (!scan) return;
    const hosts = await this.records.runHosts(organizationId, runId);
    try {
      const result = await this.results.ingestSystem(systemContext(organizationId), {
        scanId: scan.id,
        scanName: scan.name,
        runId,
        hosts,
        verify: record.verifyFindingIds ? { findingIds: record.verifyFindingIds } : null,
        portScanned: portTest(record.ports),
        // In the merge's transaction: the event is written exactly when the services are.
        onMerged: async (trx, { newServices }) => {
          if (newServices.count === 0) return;
          await this.events.publish(
            trx,
            organizationId,
            'scan.new_services_found',
            {
              Scan: { Kind: 'System', Id: scan.id, Name: scan.name, ScanGroupId: scan.scanGroupId },
              Run: { Id: runId },
              Count: newServices.count,
              Services: newServices.services.map((s) => ({
                AssetId: s.assetId,
                AssetName: s.assetName,
                Address: s.address,
                Port: s.port,
                Protocol: s.protocol,
                Name: s.name,
                Product: s.product,
                Version: s.version,
              })),
            },
            {
              subject: `scanruns/${runId}`,
              facets: {
                ...(scan.scanGroupId ? { scanGroupIds: [scan.scanGroupId] } : {}),
                assetIds: newServices.assetIds,
              },
            },
          );
        },
      });
      await this.records.recordIngest(organizationId, runId, {
        importId: result.importId,
        counts: result.counts,
        backports: result.backports,
        error: null,
        at: this.time(),
      });
    } catch (error) {
      await this.records.recordIngest(organizationId, runId, {
        importId: null,
        counts: null,
        backports: [],
        error: error instanceof AppError ? error.message : 'The findings of this run could not be stored.',
        at: this.time(),
      });
      throw error;
    }
  }
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
