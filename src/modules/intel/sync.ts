import type { FeedHeader } from '../../intel/feeds/types.js';
import { download, RateLimiter, realSleep, type Sleep } from '../../intel/sync/http.js';
import {
  MAX_RESULTS_PER_PAGE,
  type NvdWindow,
  nextWindow,
  nvdPageUrl,
} from '../../intel/sync/nvd-windows.js';
import { type OfficialSources, osvZipUrl } from '../../intel/sync/sources.js';
import type { JobKind } from '../../jobs/catalogue.js';
import type { Clock } from '../../lib/clock.js';
import type { IntelService } from './service.js';
import type { FeedName, IntelLoad } from './types.js';

export interface SyncOptions {
  /** Extra feed files to download (RAMPART_INTEL_SYNC_URLS), each loaded whole. */
  urls: string[];
  /** The official sources to sync; undefined when the sync is off (RAMPART_INTEL_SYNC=off). */
  sources?: OfficialSources | undefined;
  /**
   * A source that succeeded less than this long ago is not synced again by this run, so that a
   * run taken up after a stopped one goes on where it stopped (default: always sync).
   */
  freshForMs?: number;
  /** Answers retried on 403/503 (and the like) before a source fails (default 5). */
  retries?: number;
  /** Tests pass their own; real deployments use the global fetch and real waits. */
  fetch?: typeof fetch;
  sleep?: Sleep;
  /** The application's clock: windows, rate limits and the sources' times are read from it. */
  clock: Clock;
}

export interface SyncOutcome {
  loads: IntelLoad[];
  errors: { url: string; error: string }[];
}

/** The job kind of the scheduled sync, and the key of its system schedule. */
export const INTEL_SYNC_JOB = 'intel-sync' satisfies JobKind;

/** NVD's published limits: 5 requests in a rolling 30 s without an API key, 50 with one. */
const NVD_WINDOW_MS = 30_000;
const NVD_LIMIT = 5;
const NVD_LIMIT_WITH_KEY = 50;
const DEFAULT_RETRIES = 5;
const STOPPED =
  'The sync stopped before this source was done (the server stopping); the next sync resumes it.';

/**
 * The download of vulnerability intelligence: the official sources (NVD API 2.0 incrementally,
 * CISA KEV, EPSS, OSV per ecosystem) unless RAMPART_INTEL_SYNC=off, and any configured feed URLs
 * (RAMPART_INTEL_SYNC_URLS). When it runs is the system schedule `intel-sync`'s to say (every
 * RAMPART_INTEL_SYNC_HOURS, registered by src/background.ts): the scheduler fires each period
 * once across instances, and one worker runs its job. Each source's progress is committed in
 * the database page by page, so a sync stopped mid-way resumes where it stopped.
 */
export class IntelSync {
  private readonly fetch: typeof fetch;
  private readonly sleep: Sleep;
  private readonly clock: Clock;

  constructor(
    private readonly intel: IntelService,
    private readonly options: SyncOptions,
    private readonly log: (message: string, details?: Record<string, unknown>) => void = () => {},
  ) {
    this.fetch = options.fetch ?? fetch;
    this.sleep = options.sleep ?? realSleep;
    this.clock = options.clock;
  }

  /**
   * One sync: every source in turn, each on its own; a failing source does not stop the others.
   * `signal` stops it between two requests (a stopping server): what was committed stays.
   */
  async run(signal?: AbortSignal): Promise<SyncOutcome> {
    const outcome: SyncOutcome = { loads: [], errors: [] };
    await this.intel.recordSyncStarted();
    try {
      const sources = this.options.sources;
      if (sources) {
        await this.source('kev', sources.kev, outcome, signal, () => this.whole(sources.kev, 'kev', signal));
        await this.source('epss', sources.epss, outcome, signal, () =>
          this.whole(sources.epss, 'epss', signal),
        );
        await this.source('nvd', sources.nvd.url, outcome, signal, () => this.nvd(sources.nvd, signal));
        for (const ecosystem of sources.osv.ecosystems) {
          const url = osvZipUrl(sources.osv.url, ecosystem);
          await this.source(`osv:${ecosystem}`, url, outcome, signal, () => this.osv(url, signal));
        }
      }
      for (const url of this.options.urls) {
        signal?.throwIfAborted();
        try {
          const load = await this.intel.loadUrl(url, this.fetch);
          outcome.loads.push(load);
          this.log('intel feed synced', { url, state: load.state, added: load.added, updated: load.updated });
        } catch (error) {
          const message = describe(error);
          outcome.errors.push({ url, error: message });
          this.log('intel feed sync failed', { url, error: message });
        }
      }
    } finally {
      await this.intel.recordSyncFinished(outcome.errors);
    }
    return outcome;
  }

  /** One official source: skipped while fresh, its start, success or error recorded. */
  private async source(
    source: string,
    url: string,
    outcome: SyncOutcome,
    signal: AbortSignal | undefined,
    sync: () => Promise<IntelLoad[]>,
  ): Promise<void> {
    const progress = await this.intel.syncProgress(source);
    const fresh =
      this.options.freshForMs !== undefined &&
      progress.lastSuccessAt !== null &&
      progress.windowEnd === null &&
      this.clock().getTime() - new Date(progress.lastSuccessAt).getTime() < this.options.freshForMs;
    if (fresh) return;
    await this.intel.saveSyncProgress(source, { lastStartedAt: this.clock(), lastFinishedAt: null });
    try {
      const loads = await sync();
      outcome.loads.push(...loads);
      const now = this.clock();
      await this.intel.saveSyncProgress(source, { lastFinishedAt: now, lastSuccessAt: now, lastError: null });
      this.log('intel source synced', { source, url, loads: loads.length });
    } catch (error) {
      // Stopped, not failed: whatever the stop's reason (a stopping worker, a lost lease) made the
      // request or the wait throw, the run ends here and its job decides what comes next.
      const stopped = isAbort(error) || signal?.aborted === true;
      const message = stopped ? STOPPED : describe(error);
      await this.intel.saveSyncProgress(source, { lastFinishedAt: this.clock(), lastError: message });
      if (stopped) throw error;
      outcome.errors.push({ url, error: `${source}: ${message}` });
      this.log('intel source sync failed', { source, url, error: message });
    }
  }

  /** A source that is one file (the KEV catalogue, EPSS's daily CSV), loaded whole. */
  private async whole(url: string, feed: FeedName, signal?: AbortSignal): Promise<IntelLoad[]> {
    const response = await download(url, this.downloadOptions(signal));
    return [
      succeeded(
        await this.intel.loadBody(response.body as ReadableStream<Uint8Array>, { source: url, feed }),
      ),
    ];
  }

  private async osv(url: string, signal?: AbortSignal): Promise<IntelLoad[]> {
    const response = await download(url, this.downloadOptions(signal));
    return [succeeded(await this.intel.loadOsvZip(response.body as ReadableStream<Uint8Array>, url))];
  }

  /**
   * NVD: a first full load (every record, page by page) when nothing was synced yet, then the
   * records modified since, in windows of at most 120 days. Each page is loaded, then the next
   * page's startIndex committed; a window's end is committed once its last page is in.
   */
  private async nvd(nvd: OfficialSources['nvd'], signal?: AbortSignal): Promise<IntelLoad[]> {
    const loads: IntelLoad[] = [];
    const limiter = new RateLimiter(
      nvd.apiKey ? NVD_LIMIT_WITH_KEY : NVD_LIMIT,
      NVD_WINDOW_MS,
      this.clock,
      this.sleep,
    );
    const headers = nvd.apiKey ? { apiKey: nvd.apiKey } : undefined;
    const perPage = Math.min(nvd.resultsPerPage ?? MAX_RESULTS_PER_PAGE, MAX_RESULTS_PER_PAGE);
    // Windows end at the time this run began: later changes are the next run's.
    const until = this.clock();
    for (;;) {
      const step = await this.nvdStep(until);
      if (!step) return loads;
      let startIndex = step.startIndex;
      for (;;) {
        signal?.throwIfAborted();
        const url = nvdPageUrl(nvd.url, { window: step.window, startIndex, resultsPerPage: perPage });
        const response = await download(url, {
          ...this.downloadOptions(signal),
          limiter,
          ...(headers && { headers }),
        });
        let page: Extract<FeedHeader, { feed: 'nvd' }> | undefined;
        const load = await this.intel.loadBody(response.body as ReadableStream<Uint8Array>, {
          source: url,
          feed: 'nvd',
          onHeader: (header) => {
            if (header.feed === 'nvd') page = header;
          },
        });
        loads.push(succeeded(load));
        const { total, count } = pageCounts(page, startIndex);
        const next = startIndex + count;
        if (next >= total) {
          await this.intel.saveSyncProgress('nvd', {
            syncedUntil: step.end,
            windowStart: null,
            windowEnd: null,
            nextIndex: 0,
            totalResults: total,
          });
          break;
        }
        if (count === 0)
          throw new Error(`NVD answered an empty page at startIndex ${startIndex} of ${total}.`);
        await this.intel.saveSyncProgress('nvd', { nextIndex: next, totalResults: total });
        startIndex = next;
      }
    }
  }

  /**
   * The window to read next: the one under way (resumed at its committed page), a full load
   * when nothing was ever synced, else the next window after what was synced; none when synced up.
   */
  private async nvdStep(
    until: Date,
  ): Promise<{ window: NvdWindow | undefined; end: Date; startIndex: number } | undefined> {
    const p = await this.intel.syncProgress('nvd');
    if (p.windowEnd) {
      const end = new Date(p.windowEnd);
      const window = p.windowStart ? { start: new Date(p.windowStart), end } : undefined;
      return { window, end, startIndex: p.nextIndex };
    }
    if (!p.syncedUntil) {
      // The full load's end is when it began: what changes while it runs, the next window reads.
      await this.intel.saveSyncProgress('nvd', { windowStart: null, windowEnd: until, nextIndex: 0 });
      return { window: undefined, end: until, startIndex: 0 };
    }
    const window = nextWindow(new Date(p.syncedUntil), until);
    if (!window) return undefined;
    await this.intel.saveSyncProgress('nvd', {
      windowStart: window.start,
      windowEnd: window.end,
      nextIndex: 0,
    });
    return { window, end: window.end, startIndex: 0 };
  }

  private downloadOptions(signal?: AbortSignal) {
    return {
      fetch: this.fetch,
      sleep: this.sleep,
      retries: this.options.retries ?? DEFAULT_RETRIES,
      signal,
    };
  }
}

/** An NVD page's totalResults and how many records it held, checked against what was asked. */
function pageCounts(
  page: Extract<FeedHeader, { feed: 'nvd' }> | undefined,
  startIndex: number,
): { total: number; count: number } {
  const { totalResults, resultsPerPage } = page ?? {};
  if (!Number.isInteger(totalResults) || !Number.isInteger(resultsPerPage))
    throw new Error(
      'NVD answered something that is not a CVE API 2.0 page: no totalResults and resultsPerPage.',
    );
  if (page?.startIndex !== undefined && page.startIndex !== startIndex)
    throw new Error(`NVD answered the page at startIndex ${page.startIndex}, not ${startIndex}.`);
  return { total: totalResults as number, count: resultsPerPage as number };
}

/** A load that failed (a broken or wrong file) fails its source, with the load's reason. */
function succeeded(load: IntelLoad): IntelLoad {
  if (load.state === 'Failed') throw new Error(`${load.source}: ${load.error ?? 'the load failed'}`);
  return load;
}

function isAbort(error: unknown): boolean {
  return (error as Error)?.name === 'AbortError';
}

function describe(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).slice(0, 1000);
}
