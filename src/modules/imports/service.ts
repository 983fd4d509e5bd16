import { createReadStream, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ImporterRegistry } from '../../importers/registry.js';
import type { Importer, ImportRecord } from '../../importers/types.js';
import type { ImportJobPayload, JobKind } from '../../jobs/catalogue.js';
import type { JobQueue } from '../../jobs/queue.js';
import { JobDeferred } from '../../jobs/worker.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import type { Listeners } from '../../lib/listeners.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { locateJsonError } from '../../parsing/json.js';
import { ReportError } from '../../parsing/report-error.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { MergedServices } from '../assets/service.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { EventsService } from '../events/service.js';
import { EVIDENCE_CAP, type FindingsChanged } from '../findings/service.js';
import type { SettingsService } from '../settings/service.js';
import type { Page } from '../users/service.js';
import type { ImportRepository } from './repository.js';
import { type ImportOwners, Stager, TEXT_CAP } from './stager.js';
import type { Import, ImportCounts } from './types.js';
import { readHead, removeSpooled, type SpooledReport, sweepImportDirectory } from './upload.js';

export type { ImportOwners } from './stager.js';

/**
 * An import that failed for a reason not its report's (a bug, the database): the server's log
 * follows it; with no follower (a CLI command), the error goes to stderr.
 */
export type ImportFailedUnexpectedly = Listeners<[error: unknown, importId: string]>;

/** How an import ended, told after its transaction committed (the metrics count them). */
export interface ImportEnd {
  state: 'Completed' | 'Failed';
  /** The format's id (one of the registry's, or a scan's results format). */
  format: string;
  counts: ImportCounts;
}

/** Imports that ended, Completed or Failed: told once each, after the commit. */
export type ImportFinished = Listeners<[end: ImportEnd]>;

/**
 * Results that are records already (a Rampart scan's): staged and merged exactly as a report's,
 * recorded as an Import of the given format and name, with no file and no detection.
 */
export interface RecordsIngest {
  /** The Import's id: a retry of the same results passes the same id and gets the same Import. */
  importId: string;
  /** The findings' Source (`Rampart system scan`). */
  source: string;
  /** The Import's format (`rampart-system-scan`). */
  format: string;
  /** Findings last reported in this scope and not seen again may become Fixed. */
  scopeName: string;
  /** What the import history shows as the file name: the scan's name. */
  displayName: string;
  /** The SHA-256 and size of the results as received (the Import's file fields). */
  content: { sha256: string; size: number };
  records: Iterable<ImportRecord> | AsyncIterable<ImportRecord>;
  /** Only these findings may become Fixed when not seen again (where the scan looked); null: all. */
  fixOnly?: string[] | null;
  /** A Verify run's results: the tickets its fixes resolve say so (ticket.resolved_by_verify). */
  verify?: boolean;
  /**
   * Runs last in the merge's transaction with the services new to their assets, so that what the
   * caller writes of them (a scan's event) commits or rolls back with the merge.
   */
  onMerged?: (trx: Transaction<DB>, merged: { newServices: MergedServices['fresh'] }) => Promise<void>;
}

export interface ImportRequest {
  report: SpooledReport;
  fileName?: string;
  format?: string;
  scopeName?: string;
}

/** Why a Completed import should be looked at: it stored little or nothing of what it read. */
export interface ImportAttention {
  Reason: 'NoFindings' | 'MostlySkipped';
  Detail: string;
}

/**
 * Whether a Completed import needs a look: it read records but kept no finding because it
 * skipped some (a report that finds nothing is fine), or it skipped more than half of what it
 * read. The import still stored what it kept; the flag is what a person or a pipeline acts on.
 */
export function attentionOf(state: string, counts: ImportCounts): ImportAttention | null {
  if (state !== 'Completed') return null;
  const records = counts.Records ?? 0;
  const skipped = counts.Skipped ?? 0;
  if (records === 0 || skipped === 0) return null;
  if ((counts.Findings ?? 0) === 0)
    return {
      Reason: 'NoFindings',
      Detail: `The report was read (${records} records) but none became a finding: ${skipped} were skipped (see Warnings).`,
    };
  if (skipped * 2 > records)
    return {
      Reason: 'MostlySkipped',
      Detail: `${skipped} of the ${records} records read were skipped (see Warnings).`,
    };
  return null;
}

/** The kind of the job that runs an import (src/jobs/catalogue.ts). */
export const IMPORT_JOB = 'import' satisfies JobKind;
/** Attempts of an import's job: each one after its process died mid-import, or a database that was away. */
const IMPORT_MAX_ATTEMPTS = 3;

/** What an import's job carries: all it takes to run the import, in any process. */
export type ImportJob = ImportJobPayload;

/** The dedup key of an import's job: one job per import, found again by the sweep. */
export const importJobKey = (importId: string) => `import:${importId}`;

/** Another attempt of the same import merged it, or ended it, first: this one stops quietly. */
class Superseded extends Error {}

/**
 * A failure that another attempt may not meet: the database was away or gave up the transaction
 * (connection lost, shutting down, serialization failure, deadlock, out of resources).
 */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return false;
  return (
    /^(08|53|57P0)/.test(code) ||
    code === '40001' ||
    code === '40P01' ||
    ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(code)
  );
}

const removeReport = (path: string) => removeSpooled(path);

/** When an instance without the report looks again whether the instance with it took the job. */
const REPORT_ELSEWHERE_RETRY_MS = 10_000;

/** How many submitted imports `settled` remembers the organisation of. */
const MAX_REMEMBERED = 10_000;

/**
 * Scanner report imports: a report is detected, recorded as an Import with the durable job that
 * runs it (src/jobs), then parsed into staging in batches and merged into the organisation's
 * assets and findings in one transaction. An import whose process died is run again by the next
 * worker to take its job, to the same result; its report file is kept until the import ends.
 */
export class ImportService {
  private readonly running = new Set<Promise<void>>();
  /** The runs of this process by import id: settled() waits for what a run does after Completed. */
  private readonly runningById = new Map<string, Promise<void>>();
  /** Organisations of the imports submitted here, for `settled`. */
  private readonly submitted = new Map<string, string>();
  private readonly waiters = new Set<() => void>();
  /**
   * The ingests under way in this process (ingestRecords). Their Import is recorded only with
   * their merge, so until then the sweep would see staged rows no Import names; a job names
   * those of other processes (a scan run's), this set those called directly.
   */
  private readonly ingesting = new Set<string>();

  constructor(
    private readonly repo: ImportRepository,
    private readonly registry: ImporterRegistry,
    private readonly owners: ImportOwners,
    private readonly settings: SettingsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly findingsChanged: FindingsChanged,
    private readonly failedUnexpectedly: ImportFailedUnexpectedly,
    private readonly jobs: JobQueue,
    /** RAMPART_IMPORT_DIR: where reports are spooled, swept of what dead processes left. */
    private readonly directory: string,
    /** Runs last in each merge's transaction with its counts (statistics of the tables it filled). */
    private readonly afterMerge: ((trx: Transaction<DB>, counts: ImportCounts) => Promise<void>) | undefined,
    private readonly events: EventsService,
    /** Told of each import that ended; a follower's failure never fails the import. */
    private readonly finished?: ImportFinished,
  ) {}

  /** Tells the followers of ImportFinished, after the commit; what they do cannot undo it. */
  private async tellFinished(end: ImportEnd): Promise<void> {
    try {
      await this.finished?.notify(end);
    } catch {
      // A follower's failure (the metrics) is its own: the import has ended either way.
    }
  }

  formats() {
    return this.registry.all();
  }

  /**
   * Accepts a report: picks its format (given, or detected from its first bytes), and records the
   * Import as Queued with the job that runs it, in one transaction. From then on the report file
   * belongs to the job. Throws 422 when the format is unknown or cannot be told.
   */
  async submit(ctx: ServiceContext, request: ImportRequest): Promise<Import> {
    const { importer, confidence } = await this.chooseFormat(request);
    const createdAt = this.clock();
    const id = uuidv7();
    const org = ctx.organizationId;
    const job: ImportJob = {
      importId: id,
      organizationId: org,
      actor: ctx.actor,
      ...(ctx.userId ? { userId: ctx.userId } : {}),
      path: request.report.path,
      host: hostname(),
      format: importer.format,
      confidence,
      scopeName: request.scopeName ?? null,
    };
    await this.repo.transaction(async (trx) => {
      await this.repo.create(
        org,
        {
          id,
          fileName: request.fileName?.slice(0, 255) ?? null,
          fileSha256: request.report.sha256,
          fileSize: request.report.size,
          format: importer.format,
          scopeName: request.scopeName ?? null,
          actorType: ctx.actor.type,
          actorId: ctx.actor.id,
          createdAt,
        },
        trx,
      );
      await this.jobs.enqueue(
        IMPORT_JOB,
        job,
        { organizationId: org, dedupKey: importJobKey(id), maxAttempts: IMPORT_MAX_ATTEMPTS },
        trx,
      );
    });
    this.remember(id, org);
    await this.audit.record(
      ctx,
      'import.submitted',
      { type: 'import', id },
      {
        format: importer.format,
        sha256: request.report.sha256,
        size: request.report.size,
      },
    );
    this.jobs.nudge();
    return (await this.repo.findById(org, id))!;
  }

  /**
   * Resolves when an import submitted through this service has ended (tests, the CLI), whichever
   * process ran it: woken when this process ends an import, else looking again every 250 ms.
   */
  async settled(id: string): Promise<void> {
    const org = this.submitted.get(id);
    if (!org) return;
    for (;;) {
      const row = await this.repo.findById(org, id);
      if (!row || row.state === 'Completed' || row.state === 'Failed') {
        this.submitted.delete(id);
        // Completed is committed before the run has told the tickets which findings changed:
        // a run in this process is waited for, so that its caller sees them too.
        await this.runningById.get(id)?.catch(() => {});
        return;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, 250);
        this.waiters.add(done);
      });
    }
  }

  /** Resolves when the imports this process is running have ended (shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private remember(id: string, organizationId: string): void {
    this.submitted.set(id, organizationId);
    if (this.submitted.size > MAX_REMEMBERED) this.submitted.delete(this.submitted.keys().next().value!);
  }

  private async chooseFormat(request: ImportRequest): Promise<{ importer: Importer; confidence: number }> {
    const known = this.registry
      .all()
      .map((i) => i.format)
      .join(', ');
    if (request.format) {
      const importer = this.registry.byFormat(request.format);
      if (!importer)
        throw AppError.of(
          Problems.UnknownReportFormat,
          `Unknown Format '${request.format}'. Rampart reads: ${known}.`,
          {
            formats: this.registry.all().map((i) => i.format),
          },
        );
      return { importer, confidence: 1 };
    }
    const detection = this.registry.detect(await readHead(request.report.path));
    if (!detection)
      throw AppError.of(
        Problems.UnknownReportFormat,
        `Could not tell the report's format from its content; name it with Format (API) or --format (CLI). Rampart reads: ${known}.`,
        { formats: this.registry.all().map((i) => i.format) },
      );
    return detection;
  }

  /**
   * Runs an import's job (the catalogue's import job, src/jobs/catalogue.ts): again from the start when an earlier attempt
   * died. A report that cannot be read fails the Import at once (the same file gives the same
   * result); a database that was away fails only the attempt, unless it was the last. The report
   * file is removed once the Import has ended. `signal` aborts when the job's lease was lost.
   */
  async runJob(job: ImportJob, lastAttempt: boolean, signal?: AbortSignal): Promise<void> {
    const run = this.runImport(job, lastAttempt, signal);
    this.running.add(run);
    this.runningById.set(job.importId, run);
    try {
      await run;
    } finally {
      this.running.delete(run);
      if (this.runningById.get(job.importId) === run) this.runningById.delete(job.importId);
      for (const wake of [...this.waiters]) wake();
    }
    // After each import, what killed ones left (the schedule would find it within a minute).
    await this.sweepStaging().catch(() => {});
    await this.sweepFiles().catch(() => {});
  }

  private async runImport(job: ImportJob, lastAttempt: boolean, signal?: AbortSignal): Promise<void> {
    const { organizationId: org, importId: id } = job;
    const current = await this.repo.findById(org, id);
    if (!current || current.state === 'Completed' || current.state === 'Failed') {
      // An earlier attempt ended it and died before its job was marked done: only tidy up.
      await this.clearStaging(org, id);
      await removeReport(job.path);
      return;
    }
    if (!existsSync(job.path) && job.host !== hostname())
      // The report is on the disk of the instance that received it (RAMPART_IMPORT_DIR not shared):
      // that instance runs it, not this one; the claim does not count as an attempt.
      throw new JobDeferred(REPORT_ELSEWHERE_RETRY_MS, `The report of import ${id} is on ${job.host}.`);
    const importer = this.registry.byFormat(job.format);
    const ctx: ServiceContext = {
      organizationId: org,
      actor: job.actor,
      ...(job.userId ? { userId: job.userId } : {}),
    };
    const stager = new Stager(this.owners, org, id, importer?.tool ?? job.format);
    try {
      if (!importer)
        throw AppError.of(Problems.UnknownReportFormat, `Rampart no longer reads ${job.format} reports.`);
      // Staging an attempt that died left behind.
      await this.clearStaging(org, id);
      await this.repo.markRunning(org, id, this.clock());
      const parseStarted = performance.now();
      for await (const record of importer.parse(createReadStream(job.path), {
        warn: stager.warn,
        maxEvidenceChars: EVIDENCE_CAP,
        maxFieldChars: TEXT_CAP,
      })) {
        await stager.add(record);
        if (stager.records % 10_000 === 0) {
          if (signal?.aborted) throw new Superseded();
          await this.repo.heartbeat(org, id, this.clock());
        }
      }
      await stager.flush();
      await this.repo.heartbeat(org, id, this.clock());
      const { changedIds } = await this.merge(ctx, id, importer.tool, job.scopeName, stager, {
        format: importer.format,
        confidence: job.confidence,
        parseMs: Math.round(performance.now() - parseStarted),
      });
      await this.clearStaging(org, id);
      if (changedIds.length > 0) await this.findingsChanged.notify(org, changedIds);
    } catch (error) {
      // A batch may still be being written: it ends before anything else happens to the staging.
      await stager.settle();
      if (error instanceof Superseded) return;
      if (!lastAttempt && isTransient(error)) throw error;
      await this.fail(org, id, job, stager, error);
    }
    await removeReport(job.path);
  }

  /** Merges what was staged, through the modules that own it, in one transaction, and finishes. */
  private async merge(
    ctx: ServiceContext,
    id: string,
    source: string,
    scopeName: string | null,
    stager: Stager,
    meta: { format: string; confidence: number; parseMs: number },
    options: {
      fixOnly?: string[] | null;
      begin?: (trx: Transaction<DB>) => Promise<void>;
      onMerged?: RecordsIngest['onMerged'];
    } = {},
  ) {
    const org = ctx.organizationId;
    const { assets, vulnerabilities, findings, software } = this.owners;
    const sla = await this.settings.sla(org);
    const started = performance.now();
    const merged = await this.repo.transaction(async (trx) => {
      await options.begin?.(trx);
      // Two attempts of one import (a lease lost to a slow renewal) merge one after the other:
      // the second finds the import ended and stops.
      if ((await this.repo.lockState(org, id, trx)) !== 'Running') throw new Superseded();
      const seenAt = this.clock();
      const resolved = await assets.mergeImport(ctx, id, seenAt, trx);
      // Before the findings: their risk scores and due dates read the enriched values.
      const merged = await vulnerabilities.mergeImport(org, id, source, seenAt, trx);
      const result = await findings.mergeImport(
        ctx,
        {
          importId: id,
          assets: resolved.assets,
          vulnerabilities: merged.vulnerabilities,
          rescoreVulnerabilityIds: merged.enriched,
          source,
          scopeName,
          seenAt,
          sla,
          stagedFindings: stager.findings,
          fixOnly: options.fixOnly ?? null,
        },
        trx,
      );
      const services = await assets.mergeImportServices(org, id, seenAt, trx);
      const counts: ImportCounts = {
        ...result.counts,
        AssetsCreated: resolved.created,
        AssetsUpdated: resolved.updated,
        Findings: stager.findings,
        Services: services.merged,
        Software: await software.mergeImport(org, id, resolved.assets, seenAt, trx),
        Records: stager.records,
        Skipped: stager.skipped,
        ParseMs: meta.parseMs,
        MergeMs: 0,
      };
      await options.onMerged?.(trx, { newServices: services.fresh });
      await this.afterMerge?.(trx, counts);
      counts.MergeMs = Math.round(performance.now() - started);
      await this.repo.finish(
        org,
        id,
        {
          state: 'Completed',
          format: meta.format,
          formatConfidence: meta.confidence,
          counts,
          warnings: stager.warnings,
          error: null,
          at: this.clock(),
        },
        trx,
      );
      await this.publishCompleted(trx, org, id, { format: meta.format, scopeName, stager, counts });
      return { counts, changedIds: result.changedIds };
    });
    await this.tellFinished({ state: 'Completed', format: meta.format, counts: merged.counts });
    return merged;
  }

  /**
   * Results that are records already (a Rampart scan's run): staged and merged like a report, in
   * one transaction that also records the Import (Completed), so that no unfinished Import is
   * left for the sweep while it runs. The same importId again answers the Import it made.
   */
  async ingestRecords(
    ctx: ServiceContext,
    input: RecordsIngest,
  ): Promise<{ importId: string; counts: ImportCounts; changedIds: string[] }> {
    const org = ctx.organizationId;
    const id = input.importId;
    const done = await this.repo.findById(org, id);
    if (done?.state === 'Completed') return { importId: id, counts: done.counts, changedIds: [] };
    if (done?.state === 'Failed')
      throw AppError.of(Problems.Conflict, `Import ${id} of ${input.displayName} failed: ${done.error}`);
    const stager = new Stager(this.owners, org, id, input.source);
    if (this.ingesting.has(id))
      throw AppError.of(Problems.Conflict, `Import ${id} is already being ingested.`);
    this.ingesting.add(id);
    try {
      await this.clearStaging(org, id);
      const parseStarted = performance.now();
      for await (const record of input.records) await stager.add(record);
      await stager.flush();
      const { counts, changedIds } = await this.merge(
        ctx,
        id,
        input.source,
        input.scopeName,
        stager,
        { format: input.format, confidence: 1, parseMs: Math.round(performance.now() - parseStarted) },
        {
          fixOnly: input.fixOnly ?? null,
          ...(input.onMerged ? { onMerged: input.onMerged } : {}),
          begin: async (trx) => {
            const now = this.clock();
            await this.repo.create(
              org,
              {
                id,
                fileName: input.displayName.slice(0, 255),
                fileSha256: input.content.sha256,
                fileSize: input.content.size,
                format: input.format,
                scopeName: input.scopeName,
                actorType: ctx.actor.type,
                actorId: ctx.actor.id,
                createdAt: now,
              },
              trx,
            );
            await this.repo.markRunning(org, id, now, trx);
          },
        },
      );
      await this.clearStaging(org, id);
      if (changedIds.length > 0)
        await this.findingsChanged.notify(org, changedIds, input.verify ? { verify: true } : undefined);
      return { importId: id, counts, changedIds };
    } catch (error) {
      await stager.settle();
      await this.clearStaging(org, id).catch(() => {});
      throw error;
    } finally {
      this.ingesting.delete(id);
    }
  }

  /** Each owner removes its own staged rows of the import. */
  private async clearStaging(organizationId: string, importId: string): Promise<void> {
    const { assets, vulnerabilities, findings, software } = this.owners;
    await findings.clearImport(organizationId, importId);
    await assets.clearImport(organizationId, importId);
    await software.clearImport(organizationId, importId);
    await vulnerabilities.clearImport(organizationId, importId);
  }

  private async fail(org: string, id: string, job: ImportJob, stager: Stager, error: unknown): Promise<void> {
    const reason = await this.describeFailure(error, job.format, job.path, id);
    await stager.settle();
    try {
      await this.clearStaging(org, id);
    } catch {
      // The staging rows are cleared again by the next attempt or the sweep.
    }
    // The Import's end and its import.failed event commit together.
    await this.repo.transaction(async (trx) => {
      await this.repo.finish(
        org,
        id,
        {
          state: 'Failed',
          format: job.format,
          formatConfidence: job.confidence,
          counts: { Records: stager.records },
          warnings: stager.warnings,
          error: reason.slice(0, 2000),
          at: this.clock(),
        },
        trx,
      );
      await this.publishFailed(trx, org, id, reason.slice(0, 2000));
    });
    await this.tellFinished({ state: 'Failed', format: job.format, counts: { Records: stager.records } });
  }

  /**
   * import.completed, and import.needs_attention besides when it completed with warnings or with
   * findings marked Unconfirmed (a person should look at what was skipped or left unscored).
   */
  private async publishCompleted(
    trx: Transaction<DB>,
    org: string,
    id: string,
    o: { format: string; scopeName: string | null; stager: Stager; counts: ImportCounts },
  ): Promise<void> {
    const row = await this.repo.findById(org, id, trx);
    const ref = {
      Id: id,
      Format: o.format,
      FileName: row?.fileName ?? null,
      ScopeName: o.scopeName,
    };
    const counts = Object.fromEntries(
      Object.entries(o.counts).filter(([name, n]) => Number.isInteger(n) && !name.endsWith('Ms')),
    );
    const warnings = o.stager.warnings;
    await this.events.publish(
      trx,
      org,
      'import.completed',
      { Import: ref, Counts: counts, WarningCount: warnings.length },
      { subject: `imports/${id}` },
    );
    const reasons = [
      ...(warnings.length > 0 ? [`${warnings.length} warning${warnings.length === 1 ? '' : 's'}`] : []),
      ...(o.stager.unconfirmed > 0
        ? [`${o.stager.unconfirmed} finding${o.stager.unconfirmed === 1 ? '' : 's'} Unconfirmed`]
        : []),
    ];
    if (reasons.length > 0)
      await this.events.publish(
        trx,
        org,
        'import.needs_attention',
        { Import: ref, Counts: counts, Reasons: reasons, Warnings: warnings.slice(0, 10) },
        { subject: `imports/${id}` },
      );
  }

  private async publishFailed(trx: Transaction<DB>, org: string, id: string, error: string): Promise<void> {
    const row = await this.repo.findById(org, id, trx);
    await this.events.publish(
      trx,
      org,
      'import.failed',
      {
        Import: {
          Id: id,
          Format: row?.format ?? null,
          FileName: row?.fileName ?? null,
          ScopeName: row?.scopeName ?? null,
        },
        Error: error,
      },
      { subject: `imports/${id}` },
    );
  }

  /**
   * What the Import says went wrong. A report that cannot be read says where (a JSON error gets
   * its line and column from a second, validating read); anything else is logged and described
   * without internals.
   */
  private async describeFailure(error: unknown, format: string, path: string, id: string): Promise<string> {
    if (error instanceof ReportError) {
      if (error.line !== undefined || !error.message.startsWith('Not valid JSON')) return error.message;
      const at = await locateJsonError(() => createReadStream(path), format === 'nuclei').catch(
        () => undefined,
      );
      return at ? `${error.message} (line ${at.line}, column ${at.column})` : error.message;
    }
    if (error instanceof AppError) return error.message;
    if (this.failedUnexpectedly.followed) await this.failedUnexpectedly.notify(error, id);
    else console.error(error);
    return 'The import failed unexpectedly; nothing of it was stored. The server log has the details (search for the import id).';
  }

  /**
   * Ends the imports that can no longer end by themselves: Queued or Running with no job left to
   * run them (given up after its attempts all died, or made before imports were jobs). Each is
   * marked Failed, its staging cleared and its report file removed. Idempotent: every instance may
   * run it (a system schedule does, every minute).
   */
  async failAbandoned(): Promise<number> {
    let ended = 0;
    for (const row of await this.repo.listUnfinished()) {
      const job = await this.jobs.findByDedupKey(IMPORT_JOB, importJobKey(row.id));
      if (job && (job.state === 'Queued' || job.state === 'Running')) continue;
      const reason =
        job?.state === 'Failed'
          ? `The import was interrupted ${job.attempts} times (the process running it stopped); nothing of it was stored. Submit the report again.`
          : 'The import was interrupted (the server stopped); nothing of it was stored. Submit the report again.';
      const failed = await this.repo.transaction(async (trx) => {
        if (!(await this.repo.failIfUnfinished(row.organizationId, row.id, reason, this.clock(), trx)))
          return false;
        await this.publishFailed(trx, row.organizationId, row.id, reason);
        return true;
      });
      if (!failed) continue;
      await this.clearStaging(row.organizationId, row.id);
      const path = (job?.payload as Partial<ImportJob> | undefined)?.path;
      if (typeof path === 'string') await removeReport(path);
      ended += 1;
    }
    return ended;
  }

  /**
   * What killed processes leave, cleared: imports that can no longer end (failAbandoned), staged
   * rows nobody will merge (sweepStaging) and spooled files nobody will read (sweepFiles). Run at
   * start, every minute and after each import; idempotent, safe beside imports under way in any
   * instance.
   */
  async sweep(): Promise<{ abandoned: number; staged: number; files: number }> {
    const abandoned = await this.failAbandoned();
    const staged = await this.sweepStaging();
    const files = await this.sweepFiles();
    return { abandoned, staged, files: files.length };
  }

  /**
   * Clears the staged rows of imports that have ended (Completed or Failed: a process died between
   * its merge and its clean-up) and of the ids no import and no waiting or running job names (a
   * scan run's ingest whose job was given up; its Import is recorded only with its merge). Staging
   * of an unfinished import, or of an ingest whose job is to run, is left to that work.
   */
  async sweepStaging(): Promise<number> {
    const { assets, vulnerabilities, findings, software } = this.owners;
    const staged = new Map<string, { organizationId: string; importId: string }>();
    for (const owner of [findings, assets, software, vulnerabilities])
      for (const s of await owner.stagedImports()) staged.set(`${s.organizationId}/${s.importId}`, s);
    if (staged.size === 0) return 0;
    const pending = await this.jobs.namedByUnfinished([...staged.values()].map((s) => s.importId));
    let cleared = 0;
    for (const { organizationId, importId } of staged.values()) {
      if (this.ingesting.has(importId)) continue;
      const row = await this.repo.findById(organizationId, importId);
      const ended = row ? row.state === 'Completed' || row.state === 'Failed' : !pending.has(importId);
      if (!ended) continue;
      await this.clearStaging(organizationId, importId);
      cleared += 1;
    }
    return cleared;
  }

  /** Removes the spooled files of processes that died (see sweepImportDirectory); returns their names. */
  async sweepFiles(): Promise<string[]> {
    const inUse = new Set<string>();
    for (const payload of await this.jobs.unfinishedPayloads(IMPORT_JOB)) {
      const path = (payload as Partial<ImportJob> | null)?.path;
      if (typeof path === 'string') inUse.add(path);
    }
    return sweepImportDirectory(this.directory, inUse, this.clock());
  }

  async get(ctx: ServiceContext, id: string): Promise<Import> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No import ${id} in your organisation.`);
    return row;
  }

  async list(ctx: ServiceContext, pageSize: number, cursor?: string): Promise<Page<Import>> {
    const after = cursor ? decodeCreatedAtCursor(cursor) : undefined;
    if (cursor && !after)
      throw AppError.of(
        Problems.ValidationFailed,
        'Cursor is not valid; pass the NextCursor of a previous page.',
      );
    const rows = await this.repo.listPage(ctx.organizationId, pageSize + 1, after);
    return { ...createdAtPage(rows, pageSize), totalCount: await this.repo.count(ctx.organizationId) };
  }

  /** The latest `limit` imports, of any scope or of these scopes only (the dashboard). */
  recent(ctx: ServiceContext, q: { limit: number; scopeNames?: string[] }): Promise<Import[]> {
    return this.repo.recent(ctx.organizationId, q.limit, q.scopeNames);
  }
}
