import { createReadStream, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import type { ImporterRegistry } from '../../importers/registry.js';
import type {
  AssetRef,
  FindingRecord,
  Importer,
  ImportRecord,
  VulnerabilityRef,
} from '../../importers/types.js';
import type { ImportJobPayload, JobKind } from '../../jobs/catalogue.js';
import type { JobQueue } from '../../jobs/queue.js';
import { JobDeferred } from '../../jobs/worker.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { type JsonArrayOf, JsonRows } from '../../lib/json-rows.js';
import type { Listeners } from '../../lib/listeners.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { locateJsonError } from '../../parsing/json.js';
import { ReportError } from '../../parsing/report-error.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { keepValidIdentifiers } from '../assets/identity.js';
import type { AssetInput, AssetService, StagedService } from '../assets/service.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { FindingCopyStaging } from '../findings/copy-staging.js';
import type { FindingsChanged } from '../findings/service.js';
import { EVIDENCE_CAP, type FindingService, locationKey } from '../findings/service.js';
import type { SettingsService } from '../settings/service.js';
import type { SoftwareService, StagedSoftware } from '../software/service.js';
import type { Page } from '../users/service.js';
import {
  type StagedVulnerability,
  type VulnerabilityService,
  vulnerabilityKey,
} from '../vulnerabilities/service.js';
import type { ImportRepository } from './repository.js';
import type { Import, ImportCounts } from './types.js';
import { readHead, removeSpooled, type SpooledReport, sweepImportDirectory } from './upload.js';

// Records a staging batch holds (assets, vulnerabilities, services, software; findings stream
// through COPY instead): its JSON stays under V8's large-object size, and the rows it waits with
// die young. At 1,000 each batch was a large object that only a full collection frees, and the
// rows reached the old generation: the Nessus steps of bench:import peaked at 176–249 MB of heap
// against 96–123 MB at 200.
const BATCH = 200;
const MAX_WARNINGS = 100;
const TEXT_CAP = 32_768;
const CVE = /^CVE-\d{4}-\d{4,}$/;
const SEVERITIES: readonly Severity[] = ['Critical', 'High', 'Medium', 'Low', 'Info'];

/**
 * An import that failed for a reason not its report's (a bug, the database): the server's log
 * follows it; with no follower (a CLI command), the error goes to stderr.
 */
export type ImportFailedUnexpectedly = Listeners<[error: unknown, importId: string]>;

/** The modules that own what an import writes: each stages, merges and clears its own rows. */
export interface ImportOwners {
  assets: AssetService;
  vulnerabilities: VulnerabilityService;
  findings: FindingService;
  software: SoftwareService;
}

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
}

export interface ImportRequest {
  report: SpooledReport;
  fileName?: string;
  format?: string;
  scopeName?: string;
}

/** Collected while a report is parsed and staged. */
class Stager {
  readonly warnings: string[] = [];
  private warned = 0;
  private seq = 0;
  /**
   * Whether each asset (by key) was staged or skipped, and the vulnerabilities staged, for the
   * whole import: only flat strings and booleans. A string the parser cut from its input (an
   * asset's name, a CVE id) can be a slice that keeps the whole chunk of the report it came from
   * alive: the assets of a 2,000-host Nessus report kept 45 MB of it (ownText).
   */
  private assets = new Map<string, boolean>();
  private vulnerabilities = new Set<string>();
  // The batch being written while the report is read on.
  private writing: Promise<void> = Promise.resolve();
  private pending = {
    assets: [] as { key: string; input: AssetInput }[],
    // Serialised as they come (lib/json-rows.ts): they are the bulk of an import's records.
    vulnerabilities: new JsonRows<StagedVulnerability>(),
    services: [] as StagedService[],
    software: [] as StagedSoftware[],
  };
  // Findings are not batched: each streams into its staging (COPY) as it is read.
  private staging: Promise<FindingCopyStaging> | undefined;
  records = 0;
  skipped = 0;
  findings = 0;

  constructor(
    private readonly owners: ImportOwners,
    private readonly organizationId: string,
    private readonly importId: string,
    private readonly source: string,
  ) {}

  warn = (message: string) => {
    this.warned += 1;
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message.slice(0, 500));
    else if (this.warned === MAX_WARNINGS + 1) this.warnings.push('More warnings were left out.');
  };

  async add(record: ImportRecord): Promise<void> {
    this.records += 1;
    const assetKey = this.asset(record.asset);
    if (!assetKey) {
      this.skipped += 1;
      return;
    }
    if (record.type === 'finding') await this.finding(record, assetKey);
    else if (record.type === 'service') this.service(record, assetKey);
    else if (record.type === 'software') this.software(record, assetKey);
    if (this.size() >= BATCH) await this.startWriting();
  }

  private size(): number {
    const p = this.pending;
    return p.vulnerabilities.length + p.services.length + p.software.length + p.assets.length;
  }

  // The staged asset's key: what identifies it in the report. Two spellings of one host resolve
  // to one asset when the merge matches their identifiers.
  private asset(ref: AssetRef): string | undefined {
    const input: AssetInput = {
      kind: ref.kind,
      name: ref.name?.slice(0, 255),
      hostname: ref.hostname,
      fqdn: ref.fqdn,
      ipAddresses: ref.ipAddresses,
      macAddresses: ref.macAddresses,
      operatingSystem: ref.operatingSystem,
      url: ref.url,
      image: ref.image,
      repository: ref.repository,
      source: this.source,
    };
    const key = JSON.stringify([
      ref.kind,
      [...(ref.ipAddresses ?? [])].sort(),
      ref.fqdn?.toLowerCase(),
      ref.hostname?.toLowerCase(),
      [...(ref.macAddresses ?? [])].sort(),
      ref.url,
      ref.image,
      ref.repository,
      ref.operatingSystem,
      ref.name,
    ]);
    const staged = this.assets.get(key);
    if (staged !== undefined) return staged ? key : undefined;
    // An identifier that is not valid is left out, not the asset: its other identifiers name it.
    const { identity, dropped } = keepValidIdentifiers(input);
    const label = assetLabel(ref);
    const reasons = dropped.map((d) => `${d.field} '${d.value}' ${d.reason}`);
    try {
      this.owners.assets.prepare(identity);
    } catch (error) {
      const why = [...reasons, (error as Error).message].join('; ');
      this.warn(`${label} was skipped with everything reported on it: ${why}`);
      this.assets.set(key, false);
      return undefined;
    }
    for (const reason of reasons)
      this.warn(
        `${label}: ${reason} and was left out; the ${KIND_NOUNS[ref.kind]} is known by its other identifiers.`,
      );
    this.assets.set(key, true);
    this.pending.assets.push({ key, input: identity });
    return key;
  }

  private vulnerability(ref: VulnerabilityRef, severity: Severity): string {
    const cveIds = [...new Set((ref.cveIds ?? []).map((c) => c.trim().toUpperCase()))]
      .filter((c) => CVE.test(c))
      .sort();
    const title = (ref.title.trim() || ref.ruleId).slice(0, 500);
    const key = vulnerabilityKey({
      source: ref.ruleSource ?? this.source,
      ruleId: ref.ruleId,
      title,
      cveIds,
    });
    if (this.vulnerabilities.has(key)) return key;
    this.vulnerabilities.add(ownText(key));
    const score = (n: number | undefined) =>
      n !== undefined && Number.isFinite(n) && n >= 0 && n <= 10 ? Math.round(n * 10) / 10 : undefined;
    const published =
      ref.publishedAt && !Number.isNaN(Date.parse(ref.publishedAt)) ? ref.publishedAt : undefined;
    this.pending.vulnerabilities.add({
      key,
      input: {
        ruleId: ref.ruleId.slice(0, 255),
        cveIds,
        aliases: [...new Set([...(ref.aliases ?? []), ref.ruleId])].map((a) => a.slice(0, 255)).slice(0, 100),
        title,
        description: ref.description?.slice(0, TEXT_CAP),
        solution: ref.solution?.slice(0, TEXT_CAP),
        cweIds: [...new Set(ref.cweIds ?? [])].slice(0, 50),
        severity,
        cvss2Vector: ref.cvss2Vector?.slice(0, 200),
        cvss2Score: score(ref.cvss2Score),
        cvss3Vector: ref.cvss3Vector?.slice(0, 200),
        cvss3Score: score(ref.cvss3Score),
        cvss4Vector: ref.cvss4Vector?.slice(0, 300),
        cvss4Score: score(ref.cvss4Score),
        references: (ref.references ?? []).map((r) => r.slice(0, 2048)).slice(0, 100),
        publishedAt: published,
      },
    });
    return key;
  }

  private async finding(r: FindingRecord, assetKey: string): Promise<void> {
    const l = r.location;
    const problem = !SEVERITIES.includes(r.severity)
      ? `severity '${r.severity}' is not one of ${SEVERITIES.join(', ')}`
      : l.kind === 'Port' &&
          (l.port === undefined || !Number.isInteger(l.port) || l.port < 0 || l.port > 65535)
        ? `port ${l.port} is not 0–65535`
        : l.kind === 'Url' && !l.url
          ? 'a URL location without a URL'
          : l.kind === 'File' && !l.filePath
            ? 'a file location without a file'
            : l.kind === 'Package' && !l.packageName
              ? 'a package location without a package'
              : !r.vulnerability.ruleId && !r.vulnerability.title
                ? 'no rule id and no title'
                : undefined;
    if (problem) {
      this.skipped += 1;
      this.warn(`A finding was skipped: ${problem} (${r.vulnerability.title || r.vulnerability.ruleId}).`);
      return;
    }
    const vulnerabilityKeyOf = this.vulnerability(r.vulnerability, r.severity);
    const location = {
      kind: l.kind,
      port: l.port,
      protocol: l.protocol,
      url: l.url?.slice(0, 2048),
      parameter: l.parameter?.slice(0, 255),
      filePath: l.filePath?.slice(0, 1024),
      line: l.line !== undefined && Number.isInteger(l.line) && l.line >= 0 ? l.line : undefined,
      packageName: l.packageName?.slice(0, 255),
      packageVersion: l.packageVersion?.slice(0, 255),
    };
    this.findings += 1;
    this.staging ??= this.owners.findings.openImportStaging(this.organizationId, this.importId);
    await (await this.staging).add({
      seq: this.seq++,
      assetKey,
      vulnerabilityKey: vulnerabilityKeyOf,
      locationKey: locationKey(location),
      locationKind: location.kind,
      port: location.kind === 'Port' ? (location.port ?? null) : null,
      protocol: location.kind === 'Port' ? (location.protocol ?? 'tcp') : null,
      url: location.url ?? null,
      parameter: location.parameter ?? null,
      filePath: location.filePath ?? null,
      line: location.line ?? null,
      packageName: location.packageName ?? null,
      packageVersion: location.packageVersion ?? null,
      title: (r.vulnerability.title.trim() || r.vulnerability.ruleId).slice(0, 500),
      severity: r.severity,
      evidence: r.evidence ? r.evidence.slice(0, EVIDENCE_CAP) : null,
      toolFindingId: r.toolFindingId?.slice(0, 255) ?? null,
      state: r.state?.state ?? null,
      stateReason: r.state ? r.state.reason.slice(0, 4000) : null,
      confidence: r.confidence === 'Unconfirmed' ? 'Unconfirmed' : null,
    });
  }

  private service(r: Extract<ImportRecord, { type: 'service' }>, assetKey: string): void {
    if (
      !Number.isInteger(r.port) ||
      r.port < 0 ||
      r.port > 65535 ||
      (r.protocol !== 'tcp' && r.protocol !== 'udp')
    ) {
      this.skipped += 1;
      this.warn(`A service was skipped: ${r.port}/${r.protocol} is not a port and protocol.`);
      return;
    }
    const cpe = r.cpe && /^cpe:(2\.3:|\/)[aho]/.test(r.cpe) ? r.cpe.slice(0, 500) : null;
    this.pending.services.push({
      assetKey,
      port: r.port,
      protocol: r.protocol,
      name: r.name?.slice(0, 100) ?? null,
      product: r.product?.slice(0, 255) ?? null,
      version: r.version?.slice(0, 100) ?? null,
      cpe,
      banner: r.banner?.slice(0, 2048) ?? null,
    });
  }

  private software(r: Extract<ImportRecord, { type: 'software' }>, assetKey: string): void {
    const name = r.name.trim().slice(0, 255);
    if (!name) {
      this.skipped += 1;
      return;
    }
    this.pending.software.push({
      assetKey,
      name,
      version: r.version?.trim().slice(0, 100) ?? '',
      vendor: r.vendor?.slice(0, 255) || null,
      category: r.category ?? 'Application',
      cpe: r.cpe && /^cpe:(2\.3:|\/)[aho]/.test(r.cpe) ? r.cpe.slice(0, 500) : null,
      purl: r.purl?.startsWith('pkg:') ? r.purl.slice(0, 1000) : null,
    });
  }

  /**
   * Writes what is pending through the modules that own it, in short statements, and waits until
   * everything is written; the findings' COPY ends and its rows move into import_findings.
   */
  async flush(): Promise<void> {
    await this.startWriting();
    await this.writing;
    await (await this.staging)?.finish();
  }

  /**
   * Waits for the batch being written, whether it was written or not, and abandons the findings'
   * COPY (before the import's staging is cleared).
   */
  async settle(): Promise<void> {
    await this.writing.catch(() => {});
    const staging = await this.staging?.catch(() => undefined);
    await staging?.abort();
  }

  /**
   * Takes what is pending and starts writing it once the batch before it is written (its failure
   * is thrown here): the report is read on while the database writes, one batch ahead at most.
   */
  private async startWriting(): Promise<void> {
    await this.writing;
    const p = this.pending;
    const batch = {
      assets: p.assets.splice(0),
      vulnerabilities: p.vulnerabilities.take(),
      services: dedupe(p.services.splice(0), (s) => `${s.assetKey}|${s.port}|${s.protocol}`),
      software: dedupe(p.software.splice(0), (s) => `${s.assetKey}|${s.name.toLowerCase()}|${s.version}`),
    };
    this.writing = this.write(batch);
    // Thrown where it is awaited next (the next batch, the last flush, or settle).
    this.writing.catch(() => {});
  }

  private async write(batch: {
    assets: { key: string; input: AssetInput }[];
    vulnerabilities: JsonArrayOf<StagedVulnerability>;
    services: StagedService[];
    software: StagedSoftware[];
  }): Promise<void> {
    const { assets, vulnerabilities, software } = this.owners;
    const [org, id] = [this.organizationId, this.importId];
    await assets.stageFromImport(org, id, batch.assets);
    await vulnerabilities.stageFromImport(org, id, batch.vulnerabilities);
    await assets.stageServicesFromImport(org, id, batch.services);
    await software.stageFromImport(org, id, batch.software);
  }
}

/**
 * `text` as a string of its own: V8 may make a part of a string (a regular expression's match, a
 * slice) point into the string it was cut from, which then lives as long as the part does.
 */
function ownText(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

const KIND_NOUNS: Record<AssetRef['kind'], string> = {
  Host: 'host',
  WebApplication: 'web application',
  ContainerImage: 'container image',
  CodeRepository: 'code repository',
};

/** "Host 'qa3app01'": an asset as a warning names it, by what the report calls it. */
function assetLabel(ref: AssetRef): string {
  const name =
    ref.name ??
    ref.fqdn ??
    ref.hostname ??
    ref.ipAddresses?.[0] ??
    ref.macAddresses?.[0] ??
    ref.url ??
    ref.image ??
    ref.repository;
  const noun = KIND_NOUNS[ref.kind] ?? 'asset';
  const capital = noun.charAt(0).toUpperCase() + noun.slice(1);
  return name === undefined ? `A ${noun}` : `${capital} '${name.slice(0, 200)}'`;
}

// One statement may not touch the same row twice (ON CONFLICT DO UPDATE): last one wins.
function dedupe<T>(rows: T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((r) => [key(r), r])).values()];
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
    private readonly afterMerge?: (trx: Transaction<DB>, counts: ImportCounts) => Promise<void>,
  ) {}

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
    options: { fixOnly?: string[] | null; begin?: (trx: Transaction<DB>) => Promise<void> } = {},
  ) {
    const org = ctx.organizationId;
    const { assets, vulnerabilities, findings, software } = this.owners;
    const sla = await this.settings.sla(org);
    const started = performance.now();
    return this.repo.transaction(async (trx) => {
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
      const counts: ImportCounts = {
        ...result.counts,
        AssetsCreated: resolved.created,
        AssetsUpdated: resolved.updated,
        Findings: stager.findings,
        Services: await assets.mergeImportServices(org, id, seenAt, trx),
        Software: await software.mergeImport(org, id, resolved.assets, seenAt, trx),
        Records: stager.records,
        Skipped: stager.skipped,
        ParseMs: meta.parseMs,
        MergeMs: 0,
      };
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
      return { counts, changedIds: result.changedIds };
    });
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
      if (changedIds.length > 0) await this.findingsChanged.notify(org, changedIds);
      return { importId: id, counts, changedIds };
    } catch (error) {
      await stager.settle();
      await this.clearStaging(org, id).catch(() => {});
      throw error;
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
    await this.repo.finish(org, id, {
      state: 'Failed',
      format: job.format,
      formatConfidence: job.confidence,
      counts: { Records: stager.records },
      warnings: stager.warnings,
      error: reason.slice(0, 2000),
      at: this.clock(),
    });
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
      if (!(await this.repo.failIfUnfinished(row.organizationId, row.id, reason, this.clock()))) continue;
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
}
