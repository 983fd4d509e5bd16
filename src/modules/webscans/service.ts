import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { invalid } from '../../problems/app-error.js';
import type { WebUrlResult } from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { SavedScanDependencies } from '../savedscans/dependencies.js';
import { SavedScanService, systemContext } from '../savedscans/service.js';
import { parseWebUrl, type WebKindDependencies, type WebVerify, webScanKind } from './definition.js';
import { WebRunRepository } from './repository.js';
import type { WebScanBody } from './schemas.js';
import type { ImportCounts, WebRun, WebRunReport, WebScan, WebScanInput, WebScanWrite } from './types.js';

export {
  hostOf,
  MAX_URLS,
  parseWebUrl,
  SCHEDULED_WEB_JOB,
  WEB_INGEST_JOB,
} from './definition.js';

/** The scan results module: a completed run's URLs become findings in the scan's scope. */
export interface WebResults {
  ingestWeb(
    ctx: ServiceContext,
    input: {
      scanId: string;
      scanName: string;
      runId: string;
      urls: WebUrlResult[];
      verify?: { findingIds: string[] } | null;
    },
  ): Promise<{ importId: string; counts: ImportCounts }>;
}

/**
 * Web scans (a saved-scan kind, src/modules/savedscans) with their Verify runs, their latest run's
 * report, and the job that turns a completed run's URLs into findings.
 */
export class WebScanService extends SavedScanService<
  WebScan,
  WebScanInput,
  WebScanWrite,
  typeof WebScanBody,
  WebVerify
> {
  private readonly records: WebRunRepository;
  private readonly results: WebResults;

  constructor(
    db: Kysely<DB>,
    deps: SavedScanDependencies & Omit<WebKindDependencies, 'records'> & { results: WebResults },
  ) {
    const records = new WebRunRepository(db);
    super(db, webScanKind({ ...deps, records }), deps);
    this.records = records;
    this.results = deps.results;
  }

  /**
   * A Verify run: only these URLs (each on a host and port of the scan's own URLs), and only these
   * findings may become Fixed when the results come back.
   */
  async startVerify(
    ctx: ServiceContext,
    id: string,
    verify: { urls: string[]; findingIds: string[] },
  ): Promise<WebRun> {
    const scan = await this.get(ctx, id);
    if (verify.urls.length === 0) throw invalid('urls', 'A Verify run needs at least one URL.');
    // A finding's URL (`https://site/.git/HEAD`) is checked again by the scan's URL it came from
    // (`https://site/`): checked on its own it would be a new site, with new findings.
    const urls = new Set<string>();
    verify.urls.forEach((text, i) => {
      const url = parseWebUrl(text.trim());
      if (typeof url === 'string') throw invalid(['urls', String(i)], url);
      const from = scanUrlOf(scan.urls, url);
      if (!from)
        throw invalid(
          ['urls', String(i)],
          `'${text}' is not on a host and port the scan '${scan.name}' checks.`,
        );
      urls.add(from);
    });
    const narrowed = { urls: [...urls], findingIds: [...new Set(verify.findingIds)] };
    return this.startNarrowed(ctx, await this.idle(ctx, id), narrowed);
  }

  /** The latest run with each URL's results and what its import counted; 404 when it never ran. */
  async latestReport(ctx: ServiceContext, id: string): Promise<WebRunReport> {
    const run = await this.latestRunOf(ctx, id);
    return {
      run,
      urls: await this.records.runUrls(ctx.organizationId, run.id),
      outcome: await this.records.runOutcome(ctx.organizationId, run.id),
    };
  }

  /** The job: a completed run's URLs become findings; the import's counts are kept with the run. */
  async ingest(organizationId: string, scanId: string, runId: string): Promise<void> {
    const scan = await this.repo.find(organizationId, scanId);
    if (!scan) return;
    const outcome = await this.records.runOutcome(organizationId, runId);
    try {
      const result = await this.results.ingestWeb(systemContext(organizationId), {
        scanId,
        scanName: scan.name,
        runId,
        urls: await this.records.runUrls(organizationId, runId),
        verify: outcome?.verifyFindingIds ? { findingIds: outcome.verifyFindingIds } : null,
      });
      await this.records.setRunImport(organizationId, runId, result);
    } catch (error) {
      await this.records.setRunImport(organizationId, runId, {
        error: (error as Error).message.slice(0, 2000),
      });
      throw error;
    }
  }
}

/**
 * The scan's URL a URL was found under: same origin, the longest path that leads to it (else any
 * of the origin's), or for port 80 of a host the scan checks over https, that https URL;
 * undefined when the scan checks nothing on that host and port.
 */
export function scanUrlOf(scanUrls: readonly string[], url: URL): string | undefined {
  const sameOrigin = scanUrls.filter((u) => new URL(u).origin === url.origin);
  if (sameOrigin.length === 0 && url.protocol === 'http:' && url.port === '')
    // The http counterpart (port 80) of an https URL, which the https URL's run asks again.
    return scanUrls.find((u) => {
      const scanned = new URL(u);
      return scanned.protocol === 'https:' && scanned.hostname === url.hostname;
    });
  const leading = sameOrigin
    .filter((u) => url.pathname.startsWith(new URL(u).pathname))
    .sort((a, b) => new URL(b).pathname.length - new URL(a).pathname.length);
  return leading[0] ?? sameOrigin[0];
}
