import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { detectFeed, openFeed, plainInput, readFeed } from '../../intel/feeds/index.js';
import type { FeedHeader } from '../../intel/feeds/types.js';
import { osvZipToJsonArray } from '../../intel/sync/osv-zip.js';
import type { CveRecord, EpssScore, KevEntry, OsvAdvisory } from '../../intel/types.js';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { ParseLimitError } from '../../parsing/parse-limits.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ServiceContext } from '../context.js';
import type { FindingService } from '../findings/service.js';
import {
  EmptyReportError,
  meter,
  parseLimitProblem,
  ReportTooLargeError,
  refuseDeclaredSize,
  spoolReport,
  startsWithGzipMagic,
} from '../imports/upload.js';
import type { OrganizationService } from '../organizations/service.js';
import type { VulnerabilityService } from '../vulnerabilities/service.js';
import type { IntelRepository } from './repository.js';
import { cveRow, epssRow, kevRow, kevRowFromNvd, osvRow } from './rows.js';
import type {
  CveConfigurationsRecord,
  CveIntel,
  FeedName,
  FeedStatus,
  IntelLoad,
  OsvPackageAdvisory,
  SyncSourceProgress,
  SyncSourceState,
} from './types.js';

const BATCH = 500;
const MAX_BYTES_SETTING = 'RAMPART_INTEL_MAX_BYTES';
const MAX_WARNINGS = 100;

export interface IntelOptions {
  /** Largest feed file, before and after gzip (RAMPART_INTEL_MAX_BYTES). */
  maxBytes: number;
  /** Where uploads and downloads wait while they load. */
  tempDir: string;
}

/** Told when a load changed the CPE configurations (the matcher rebuilds). */
export type ConfigurationsChanged = () => void;

/**
 * Loads public vulnerability intelligence from files (NVD, CVE 5, KEV, EPSS, OSV; gzip or not),
 * records each load, and applies what changed to every organisation: their vulnerabilities take
 * the new CVSS/EPSS/KEV and the findings of those vulnerabilities are re-scored.
 */
export class IntelService {
  private queue: Promise<unknown> = Promise.resolve();
  private configurationsChanged: ConfigurationsChanged = () => {};

  constructor(
    private readonly repo: IntelRepository,
    private readonly vulnerabilities: VulnerabilityService,
    private readonly findings: FindingService,
    private readonly organizations: OrganizationService,
    private readonly clock: Clock,
    private readonly options: IntelOptions,
  ) {}

  onConfigurationsChanged(listener: ConfigurationsChanged): void {
    this.configurationsChanged = listener;
  }

  /** Loads one file (plain or gzip), the feed detected from its content unless named. */
  async loadFile(
    path: string,
    options: { source?: string; feed?: FeedName; onHeader?: (header: FeedHeader) => void } = {},
  ): Promise<IntelLoad> {
    const feed = options.feed ?? (await this.detect(path));
    const id = await this.begin(feed, options.source ?? path);
    return this.run(id, feed, path, options.source ?? path, async () => {}, options.onHeader);
  }

  /**
   * Saves an upload, detects its feed and starts loading it; answers at once with the Running
   * load (GET /intel/loads/{Id} follows it). `done` settles when the load has finished.
   */
  async startUpload(
    ctx: ServiceContext,
    body: Readable,
    options: {
      name: string;
      feed?: FeedName;
      contentLength?: string;
      /**
       * Told the SHA-256 of the file as it was sent, once saved and before anything is loaded;
       * false stops there (the upload is a retry already answered: Idempotency-Key) and null is
       * returned.
       */
      beforeLoad?: (sha256: string) => Promise<boolean>;
    },
  ): Promise<{ load: IntelLoad; done: Promise<IntelLoad> } | null> {
    await this.checkOperator(ctx);
    refuseDeclaredSize(options.contentLength, this.options.maxBytes, { setting: MAX_BYTES_SETTING });
    const spooled = await this.spool(body);
    try {
      if (options.beforeLoad && !(await options.beforeLoad(spooled.sha256))) {
        await spooled.remove();
        return null;
      }
      const feed = options.feed ?? (await this.detect(spooled.path));
      const id = await this.begin(feed, options.name);
      // The upload goes before the load's end is recorded: whoever sees the end finds no file left.
      const done = this.run(id, feed, spooled.path, options.name, () => spooled.remove()).finally(() =>
        spooled.remove(),
      );
      done.catch(() => {});
      return { load: await this.get(id), done };
    } catch (error) {
      await spooled.remove();
      throw error;
    }
  }

  /** Downloads a feed file and loads it (the scheduled sync). Only ever called with configured URLs. */
  async loadUrl(url: string, fetchImpl: typeof fetch = fetch): Promise<IntelLoad> {
    const response = await fetchImpl(url, { redirect: 'follow', signal: AbortSignal.timeout(15 * 60_000) });
    if (!response.ok || !response.body)
      throw new Error(`GET ${url} answered ${response.status} ${response.statusText}`.trim());
    return this.loadBody(response.body, { source: url });
  }

  /**
   * Loads a downloaded feed file (the sync's answers): saved to the temporary folder within
   * RAMPART_INTEL_MAX_BYTES, then loaded as `feed` (detected when not named). `onHeader` hears
   * what the file says about itself (an NVD page's startIndex, resultsPerPage and totalResults).
   */
  async loadBody(
    body: ReadableStream<Uint8Array> | Readable,
    options: { source: string; feed?: FeedName; onHeader?: (header: FeedHeader) => void },
  ): Promise<IntelLoad> {
    const spooled = await this.spool(toReadable(body));
    try {
      return await this.loadFile(spooled.path, options);
    } finally {
      await spooled.remove();
    }
  }

  /**
   * Loads an ecosystem's OSV zip (osv.dev's <Ecosystem>/all.zip) as one load: the zip is saved,
   * its advisories written one by one into a JSON array file, and that file loaded.
   */
  async loadOsvZip(body: ReadableStream<Uint8Array> | Readable, source: string): Promise<IntelLoad> {
    await mkdir(this.options.tempDir, { recursive: true, mode: 0o700 });
    const base = join(this.options.tempDir, randomUUID());
    const zipPath = `${base}.zip`;
    const jsonPath = `${base}.json`;
    try {
      const bytes = meter(this.options.maxBytes, false, undefined, MAX_BYTES_SETTING);
      try {
        await pipeline(toReadable(body), bytes.transform, createWriteStream(zipPath, { mode: 0o600 }));
      } catch (error) {
        if (error instanceof ReportTooLargeError) throw AppError.of(Problems.PayloadTooLarge, error.message);
        throw error;
      }
      const warnings: string[] = [];
      await osvZipToJsonArray(
        zipPath,
        jsonPath,
        { maxEntryBytes: 16 * 1024 * 1024, maxTotalBytes: this.options.maxBytes },
        (message) => warnings.push(message),
      );
      await rm(zipPath, { force: true });
      const load = await this.loadFile(jsonPath, { source, feed: 'osv' });
      if (warnings.length > 0) await this.repo.addLoadWarnings(load.id, warnings.slice(0, MAX_WARNINGS));
      return warnings.length > 0 ? this.get(load.id) : load;
    } finally {
      await rm(zipPath, { force: true });
      await rm(jsonPath, { force: true });
    }
  }

  /** Where the sync of one official source stands (a source never synced has no progress yet). */
  async syncProgress(source: string): Promise<SyncSourceState> {
    return (await this.repo.syncSource(source)) ?? emptySyncState(source);
  }

  /** Commits a step of a source's sync: its progress, start, end or error. */
  saveSyncProgress(source: string, progress: SyncSourceProgress): Promise<void> {
    return this.repo.saveSyncSource(source, progress);
  }

  syncSources(): Promise<SyncSourceState[]> {
    return this.repo.syncSources();
  }

  /**
   * Loads every feed file of a folder (the bundled knowledge base) when no intelligence has ever
   * been loaded: the first start of a new installation works offline.
   */
  async loadKnowledgeBaseIfEmpty(dir: string): Promise<IntelLoad[] | undefined> {
    if (await this.repo.anyLoad()) return undefined;
    return (await this.loadFolder(dir, 'knowledge-base')).loads;
  }

  /**
   * Loads every feed file (.json, .csv, gzipped or not) of a folder, in name order; files that
   * are not a feed (a schema, a README) are named in `skipped`.
   */
  async loadFolder(dir: string, label = dir): Promise<{ loads: IntelLoad[]; skipped: string[] }> {
    const files = (await readdir(dir)).filter((f) => /\.(json|csv)(\.gz)?$/i.test(f)).sort();
    const loads: IntelLoad[] = [];
    const skipped: string[] = [];
    for (const file of files) {
      try {
        loads.push(await this.loadFile(join(dir, file), { source: `${label}/${file}` }));
      } catch (error) {
        if (!(error instanceof AppError && error.problem === Problems.UnknownFeedFormat)) throw error;
        skipped.push(join(dir, file));
      }
    }
    return { loads, skipped };
  }

  async get(id: string): Promise<IntelLoad> {
    const load = await this.repo.findLoad(id);
    if (!load) throw AppError.of(Problems.NotFound, `No intelligence load ${id}.`);
    return load;
  }

  loads(limit: number): Promise<IntelLoad[]> {
    return this.repo.loads(limit);
  }

  /** Each feed's records and loads, with the application's time to judge how current they are. */
  async feedStatus(): Promise<FeedStatus & { now: Date }> {
    return { ...(await this.repo.feedStatus()), now: this.clock() };
  }

  /** Everything known about one CVE (null when no feed knows it). */
  async cve(cveId: string): Promise<CveIntel | null> {
    const found = await this.repo.cve(cveId.toUpperCase());
    if (found.records.length === 0 && !found.kev && !found.epss && found.osv.length === 0) return null;
    return found;
  }

  /**
   * Marks loads a stopped process left Running as Failed: with the embedded database every one
   * (only this process loads), on PostgreSQL those started more than `staleSeconds` ago.
   */
  failInterrupted(staleSeconds: number): Promise<number> {
    const now = this.clock();
    return this.repo.failInterruptedLoads(new Date(now.getTime() - staleSeconds * 1000), now);
  }

  /** The feed status's LastSync: when the scheduled sync started. */
  recordSyncStarted(): Promise<void> {
    return this.repo.recordSyncStarted(this.clock());
  }

  /** The feed status's LastSync: when the scheduled sync finished, and the URLs that failed. */
  recordSyncFinished(errors: { url: string; error: string }[]): Promise<void> {
    return this.repo.recordSyncFinished(this.clock(), errors);
  }

  configurationsPage(afterCveId: string | null, limit: number): Promise<CveConfigurationsRecord[]> {
    return this.repo.configurationsPage(afterCveId, limit);
  }

  osvForPackages(keys: string[]): Promise<OsvPackageAdvisory[]> {
    return this.repo.osvForPackages(keys);
  }

  /**
   * Intelligence is shared by every organisation, so only the installation's operators — Admins
   * of its first organisation — may load it: another tenant's Admin must not be able to change
   * the CVSS or KEV data everyone's risk scores are computed from.
   */
  private async checkOperator(ctx: ServiceContext): Promise<void> {
    const operator = await this.organizations.first();
    if (operator?.id !== ctx.organizationId)
      throw AppError.of(
        Problems.Forbidden,
        'Vulnerability intelligence is shared by every organisation of this installation: only Admins of its first organisation may load it.',
      );
  }

  // ---- one load ----

  private async spool(body: Readable) {
    try {
      return await spoolReport(body, this.options.tempDir, this.options.maxBytes, MAX_BYTES_SETTING);
    } catch (error) {
      if (error instanceof ParseLimitError) throw parseLimitProblem(error);
      if (error instanceof ReportTooLargeError) throw AppError.of(Problems.PayloadTooLarge, error.message);
      if (error instanceof EmptyReportError)
        throw AppError.of(
          Problems.ValidationFailed,
          'The feed file is empty: send the file as the request body.',
        );
      if ((error as Error).message?.startsWith('The gzip data is damaged'))
        throw AppError.of(Problems.ValidationFailed, (error as Error).message);
      throw error;
    }
  }

  private async detect(path: string): Promise<FeedName> {
    const opened = await openFeed(createReadStream(path));
    opened.input.destroy();
    const detected = detectFeed(opened.head);
    const feed = detected && detected.confidence >= 0.5 ? detected.feed : undefined;
    if (!feed)
      throw AppError.of(
        Problems.UnknownFeedFormat,
        'The file is not one of the feeds Rampart reads: an NVD CVE API 2.0 page or record, a CVE JSON 5 record, the CISA KEV catalogue, an EPSS CSV or an OSV advisory.',
        { feeds: ['nvd', 'cve5', 'kev', 'epss', 'osv'] },
      );
    return feed;
  }

  private async begin(feed: FeedName, source: string): Promise<string> {
    const id = uuidv7();
    await this.repo.startLoad(id, feed, source.slice(0, 2000), this.clock());
    return id;
  }

  // Loads run one at a time in a process: two loads of overlapping feeds would race on the
  // same rows and on re-scoring.
  private run(
    id: string,
    feed: FeedName,
    path: string,
    source: string,
    release: () => Promise<void> = async () => {},
    onHeader?: (header: FeedHeader) => void,
  ): Promise<IntelLoad> {
    const next = this.queue.then(() => this.execute(id, feed, path, source, release, onHeader));
    this.queue = next.catch(() => {});
    return next;
  }

  /** `release` frees the file once it has been read, before the load's end is recorded. */
  private async execute(
    id: string,
    feed: FeedName,
    path: string,
    source: string,
    release: () => Promise<void>,
    onHeader?: (header: FeedHeader) => void,
  ): Promise<IntelLoad> {
    const loadedAt = this.clock();
    const warnings: string[] = [];
    let warned = 0;
    const warn = (message: string) => {
      warned += 1;
      if (warnings.length < MAX_WARNINGS) warnings.push(message.slice(0, 500));
    };
    const totals = { added: 0, updated: 0, seen: 0, skipped: 0 };
    let dataDate: string | null = null;
    try {
      const batch: FeedRecord[] = [];
      const flush = async () => {
        const counts = await this.write(feed, batch.splice(0), source, loadedAt, warn);
        totals.added += counts.added;
        totals.updated += counts.updated;
        totals.skipped += counts.skipped;
      };
      const gzipped = await startsWithGzipMagic(path);
      const input = await plainInput(createReadStream(path), this.options.maxBytes);
      const records = readFeed(feed, input, {
        warn,
        onHeader: (header: FeedHeader) => {
          dataDate = dataDateOf(header);
          onHeader?.(header);
        },
        // Only to find the line and column of broken JSON: read up to the break, then stopped.
        reopen: () => (gzipped ? createReadStream(path).pipe(createGunzip()) : createReadStream(path)),
      }) as AsyncIterable<FeedRecord>;
      for await (const item of records) {
        totals.seen += 1;
        batch.push(item);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
      if (warned > MAX_WARNINGS) warnings.push(`${warned - MAX_WARNINGS} more warnings were left out.`);
      await release();
      await this.repo.finishLoad(id, {
        state: 'Completed',
        dataDate,
        added: totals.added,
        updated: totals.updated,
        unchanged: totals.seen - totals.added - totals.updated - totals.skipped,
        skipped: totals.skipped,
        warnings,
        error: null,
        finishedAt: this.clock(),
      });
    } catch (error) {
      await release().catch(() => {});
      await this.repo.finishLoad(id, {
        state: 'Failed',
        dataDate,
        added: totals.added,
        updated: totals.updated,
        unchanged: Math.max(0, totals.seen - totals.added - totals.updated - totals.skipped),
        skipped: totals.skipped,
        warnings,
        error: describe(error),
        finishedAt: this.clock(),
      });
      // What the batches before the failure wrote is valid intelligence: apply it too.
      await this.apply(loadedAt, feed);
      return this.get(id);
    }
    await this.apply(loadedAt, feed);
    return this.get(id);
  }

  private async write(
    feed: FeedName,
    records: FeedRecord[],
    source: string,
    loadedAt: Date,
    warn: (m: string) => void,
  ): Promise<{ added: number; updated: number; skipped: number }> {
    if (records.length === 0) return { added: 0, updated: 0, skipped: 0 };
    switch (feed) {
      case 'nvd':
      case 'cve5': {
        const cves = records as CveRecord[];
        const rows = cves.map((r) => cveRow(r, warn));
        const counts = await this.repo.upsertCves(rows, source, loadedAt);
        await this.repo.addKevFromNvd(
          cves.flatMap((r) => kevRowFromNvd(r) ?? []),
          source,
          loadedAt,
        );
        return { ...counts, skipped: 0 };
      }
      case 'kev': {
        const counts = await this.repo.upsertKev((records as KevEntry[]).map(kevRow), source, loadedAt);
        return { ...counts, skipped: 0 };
      }
      case 'epss': {
        const counts = await this.repo.upsertEpss((records as EpssScore[]).map(epssRow), source, loadedAt);
        return { ...counts, skipped: 0 };
      }
      case 'osv': {
        const counts = await this.repo.upsertOsv(
          (records as OsvAdvisory[]).map((r) => osvRow(r, warn)),
          source,
          loadedAt,
        );
        return { ...counts, skipped: 0 };
      }
    }
  }

  /** Every organisation's vulnerabilities naming a CVE this load changed take the new values. */
  private async apply(loadedAt: Date, feed: FeedName): Promise<void> {
    const cveIds = await this.repo.cveIdsLoadedAt(loadedAt);
    if (cveIds.length === 0) return;
    if (feed === 'nvd' || feed === 'cve5') this.configurationsChanged();
    for (const organization of await this.organizations.list()) {
      const changed = await this.vulnerabilities.enrich(organization.id, { cveIds });
      await this.findings.rescoreVulnerabilities(organization.id, changed);
    }
  }
}

type FeedRecord = CveRecord | KevEntry | EpssScore | OsvAdvisory;

function toReadable(body: ReadableStream<Uint8Array> | Readable): Readable {
  return body instanceof Readable
    ? body
    : Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
}

function emptySyncState(source: string): SyncSourceState {
  return {
    source,
    syncedUntil: null,
    windowStart: null,
    windowEnd: null,
    nextIndex: 0,
    totalResults: null,
    lastStartedAt: null,
    lastFinishedAt: null,
    lastSuccessAt: null,
    lastError: null,
  };
}

/** The date a whole file speaks for: the KEV catalogue's version, EPSS's score date, an NVD page's timestamp. */
function dataDateOf(header: FeedHeader): string | null {
  if (header.feed === 'kev') return header.catalogVersion;
  if (header.feed === 'epss') return header.scoreDate ?? null;
  return header.timestamp ?? null;
}

function describe(error: unknown): string {
  if (error instanceof AppError) return error.message;
  const message = (error as Error)?.message ?? String(error);
  return message.slice(0, 1000);
}
