import { isIP } from 'node:net';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { FieldIssue } from '../../problems/fields.js';
import type { TargetPolicy, WebSpec, WebTemplate, WebUrlResult } from '../../scanning/types.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { DiscoveryNodes, DiscoveryRuns, ScanSchedules, TargetRules } from '../discoveryscans/service.js';
import type { WebScanRepository } from './repository.js';
import type { ImportCounts, WebRun, WebRunReport, WebScan, WebScanInput } from './types.js';

// What this module asks of the modules it works with, by the little it uses of each.

/** The scan templates module: web templates by id, and the list to take the default from. */
export interface WebTemplates {
  find(
    ctx: ServiceContext,
    id: string,
  ): Promise<{ id: string; kind: string; name: string; settings: unknown } | undefined>;
  list(ctx: ServiceContext, kind: 'Web'): Promise<{ id: string; name: string }[]>;
}

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

/** The durable job queue: a completed run's ingestion is enqueued in the run's transaction. */
export interface WebJobs {
  enqueue(
    kind: string,
    payload: unknown,
    options: { organizationId?: string; dedupKey?: string; maxAttempts?: number },
    trx?: Transaction<DB>,
  ): Promise<string>;
}

/** The job a scan's schedule enqueues at each occurrence. */
export const SCHEDULED_WEB_JOB = 'web-scan.start';
/** The job that turns a completed run's results into findings. */
export const WEB_INGEST_JOB = 'web-scan.ingest';

export const MAX_URLS = 256;
const MAX_URL_LENGTH = 2000;
const ACTIVE = new Set(['Queued', 'Running', 'Stopping']);

/** A URL's host as a target text: brackets of an IPv6 literal removed, a trailing dot too. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** The absolute http(s) URL, or why it is not one. */
export function parseWebUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return `'${text}' is not an absolute URL.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `'${text}' is not an http or https URL.`;
  if (url.username || url.password) return `'${text}' carries credentials; a scan URL may not.`;
  if (!url.hostname) return `'${text}' has no host.`;
  return url;
}

/**
 * Web scans: saved URLs with a web template and a node; each start queues a scan run, whose URLs
 * come back in batches and, when it completes, become findings in the scan's scope (through the
 * scan results module, in a durable job).
 */
export class WebScanService {
  constructor(
    private readonly repo: WebScanRepository,
    private readonly templates: WebTemplates,
    private readonly targets: Pick<TargetRules, 'policy'> & { refusal: TargetRules['refusal'] },
    private readonly runs: DiscoveryRuns,
    private readonly nodes: DiscoveryNodes,
    private readonly schedules: ScanSchedules,
    private readonly jobs: WebJobs,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private results: WebResults | null = null,
  ) {}

  /** The scan results module, set once it exists (it is built after this one). */
  setResults(results: WebResults): void {
    this.results = results;
  }

  async create(ctx: ServiceContext, input: WebScanInput): Promise<WebScan> {
    const write = await this.check(ctx, input);
    const scan = await this.repo.insert(
      ctx.organizationId,
      uuidv7(),
      write,
      ctx.userId ?? null,
      this.clock(),
    );
    await this.schedules.apply(ctx.organizationId, scan.id, write.schedule);
    await this.audit.record(ctx, 'web-scan.created', { type: 'web-scan', id: scan.id }, { name: scan.name });
    return scan;
  }

  async update(ctx: ServiceContext, id: string, input: WebScanInput): Promise<WebScan> {
    const current = await this.get(ctx, id);
    const write = await this.check(ctx, { ...input, scanGroupId: input.scanGroupId ?? current.scanGroupId });
    const scan = await this.repo.update(ctx.organizationId, id, write, this.clock());
    if (!scan) throw notFound(id);
    await this.schedules.apply(ctx.organizationId, id, write.schedule);
    await this.audit.record(ctx, 'web-scan.updated', { type: 'web-scan', id }, { name: scan.name });
    return scan;
  }

  async get(ctx: ServiceContext, id: string): Promise<WebScan> {
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

  /** The web scans of a scan group, oldest first. */
  listByGroup(ctx: ServiceContext, groupId: string): Promise<WebScan[]> {
    return this.repo.byGroup(ctx.organizationId, groupId);
  }

  /** A scan and its runs' data go; a scan with a run under way must be stopped first. */
  async remove(ctx: ServiceContext, id: string): Promise<void> {
    const scan = await this.get(ctx, id);
    const run = await this.runs.latest(ctx, id);
    if (run && ACTIVE.has(run.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' is running; stop it before deleting it.`);
    await this.schedules.apply(ctx.organizationId, id, null);
    await this.repo.delete(ctx.organizationId, id);
    await this.audit.record(ctx, 'web-scan.deleted', { type: 'web-scan', id }, { name: scan.name });
  }

  nextRunAt(ctx: ServiceContext, id: string): Promise<Date | null> {
    return this.schedules.nextRunAt(ctx.organizationId, id);
  }

  latestRun(ctx: ServiceContext, id: string): Promise<WebRun | null> {
    return this.runs.latest(ctx, id);
  }

  /** A scheduled occurrence: starts the scan as the system, unless a run is under way or it is gone. */
  async startScheduled(organizationId: string, scanId: string): Promise<WebRun | null> {
    const ctx: ServiceContext = { organizationId, actor: { type: 'system', id: null } };
    if (!(await this.repo.find(organizationId, scanId))) return null;
    const current = await this.runs.latest(ctx, scanId);
    if (current && ACTIVE.has(current.state)) return null;
    return this.start(ctx, scanId);
  }

  /** Starts a run now: URLs checked again against today's allowed targets (422); 409 while one is under way. */
  start(ctx: ServiceContext, id: string): Promise<WebRun> {
    return this.queue(ctx, id, null);
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
    return this.queue(ctx, id, { urls: [...urls], findingIds: [...new Set(verify.findingIds)] });
  }

  private async queue(
    ctx: ServiceContext,
    id: string,
    verify: { urls: string[]; findingIds: string[] } | null,
  ): Promise<WebRun> {
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
    const policy = await this.targets.policy(ctx.organizationId);
    const urls = verify?.urls ?? scan.urls;
    this.assertUrlsAllowed(urls, policy);
    const template = await this.templates.find(ctx, scan.templateId);
    if (template?.kind !== 'Web')
      throw AppError.of(Problems.Conflict, `The web template of the scan '${scan.name}' no longer exists.`);
    const spec: WebSpec = { urls, template: template.settings as WebTemplate, policy };
    const run = await this.repo.transaction(async (trx) => {
      const queued = await this.runs.queue(
        ctx,
        { kind: 'Web', sourceId: scan.id, sourceName: scan.name, nodeId: scan.nodeId, spec },
        trx,
      );
      await this.repo.addRun(
        ctx.organizationId,
        scan.id,
        queued.id,
        verify?.findingIds ?? null,
        this.clock(),
        trx,
      );
      await this.repo.setLastRun(ctx.organizationId, scan.id, queued.id, trx);
      return queued;
    });
    await this.audit.record(
      ctx,
      verify ? 'web-scan.verify-started' : 'web-scan.started',
      { type: 'web-scan', id },
      { runId: run.id },
    );
    return run;
  }

  /** Stops the run under way; a scan with none answers 409. */
  async stop(ctx: ServiceContext, id: string): Promise<WebRun> {
    const scan = await this.get(ctx, id);
    const current = await this.runs.latest(ctx, id);
    if (!current || !ACTIVE.has(current.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' has no run under way.`);
    const run = await this.runs.stop(ctx, current.id);
    await this.audit.record(ctx, 'web-scan.stopped', { type: 'web-scan', id }, { runId: run.id });
    return run;
  }

  /** The latest run with each URL's results and what its import counted; 404 when it never ran. */
  async latestReport(ctx: ServiceContext, id: string): Promise<WebRunReport> {
    const scan = await this.get(ctx, id);
    const run = await this.runs.latest(ctx, id);
    if (!run) throw AppError.of(Problems.NotFound, `The scan '${scan.name}' has not run yet.`);
    return {
      run,
      urls: await this.repo.runUrls(ctx.organizationId, run.id),
      outcome: await this.repo.runOutcome(ctx.organizationId, run.id),
    };
  }

  usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    return this.repo.usesTemplate(organizationId, templateId);
  }

  // ---- what the scan runs module and the job worker call back ----

  /** A batch of URLs from a run; applied once per batch, idempotent across the run's attempts. */
  async applyBatch(run: WebRun, items: unknown[], trx: Transaction<DB>): Promise<void> {
    if (!(await this.repo.find(run.organizationId, run.sourceId, trx))) return;
    // A node is another process: what it reports must be a URL result, for a URL its run named.
    const spec = run.spec as Partial<WebSpec> | undefined;
    const asked = new Set((spec?.urls ?? []).map((u) => new URL(u).origin));
    const results = items.filter(isWebUrlResult).filter((r) => {
      const url = parseWebUrl(r.url);
      if (typeof url === 'string' || !asked.has(url.origin)) return false;
      return !spec?.policy || this.targets.refusal([{ range: hostOf(url) }], [], spec.policy) === null;
    });
    // One row per URL: the last of a batch that names one twice wins.
    const byUrl = new Map(results.map((r) => [r.url, r]));
    await this.repo.addRunUrls(
      run.organizationId,
      run.sourceId,
      run.id,
      [...byUrl.values()],
      this.clock(),
      trx,
    );
  }

  /** The run ended: a completed one's results are ingested by a durable job enqueued here. */
  async finish(run: WebRun, trx: Transaction<DB>): Promise<void> {
    const org = run.organizationId;
    const scan = await this.repo.find(org, run.sourceId, trx);
    if (!scan) return;
    if (run.state !== 'Completed') {
      await this.repo.setLastRun(org, scan.id, run.id, trx);
      return;
    }
    await this.repo.setCompleted(org, scan.id, run.id, this.clock(), trx);
    await this.jobs.enqueue(
      WEB_INGEST_JOB,
      { scanId: scan.id, runId: run.id },
      { organizationId: org, dedupKey: `web-ingest:${run.id}`, maxAttempts: 3 },
      trx,
    );
  }

  /** The job: a completed run's URLs become findings; the import's counts are kept with the run. */
  async ingest(organizationId: string, scanId: string, runId: string): Promise<void> {
    const scan = await this.repo.find(organizationId, scanId);
    if (!scan) return;
    if (!this.results) throw new Error('Web scan results cannot be ingested: no scan results service.');
    const ctx: ServiceContext = { organizationId, actor: { type: 'system', id: null } };
    const outcome = await this.repo.runOutcome(organizationId, runId);
    try {
      const result = await this.results.ingestWeb(ctx, {
        scanId,
        scanName: scan.name,
        runId,
        urls: await this.repo.runUrls(organizationId, runId),
        verify: outcome?.verifyFindingIds ? { findingIds: outcome.verifyFindingIds } : null,
      });
      await this.repo.setRunImport(organizationId, runId, result);
    } catch (error) {
      await this.repo.setRunImport(organizationId, runId, { error: (error as Error).message.slice(0, 2000) });
      throw error;
    }
  }

  /** Checked again when a node claims the run: the allowed targets may have changed since. */
  async refusalAtStart(run: WebRun, spec: unknown): Promise<string | null> {
    const s = spec as Partial<WebSpec> | null;
    if (!s || !Array.isArray(s.urls)) return null;
    const policy = await this.targets.policy(run.organizationId);
    for (const text of s.urls) {
      const url = parseWebUrl(String(text));
      if (typeof url === 'string') return url;
      const refusal = this.targets.refusal([{ range: hostOf(url) }], [], policy);
      if (refusal) return `${url.href}: ${refusal}`;
    }
    return null;
  }

  private assertUrlsAllowed(urls: string[], policy: TargetPolicy): void {
    const issues: FieldIssue[] = [];
    urls.forEach((text, i) => {
      const url = parseWebUrl(text);
      if (typeof url === 'string') return;
      const refusal = this.targets.refusal([{ range: hostOf(url) }], [], policy);
      if (refusal) issues.push({ field: ['urls', String(i)], message: `${text}: ${refusal}` });
    });
    if (issues.length === 0) return;
    const detail =
      issues.length === 1
        ? issues[0]!.message
        : `${issues.length} URLs are refused: ${issues.map((i) => i.message).join(' ')}`;
    throw new AppError(Problems.ScanTargetRefused, detail, {}, {}, issues);
  }

  private async check(ctx: ServiceContext, input: WebScanInput) {
    const name = input.name.trim();
    if (name.length === 0) throw invalid('name', 'A scan needs a name.');
    if (name.length > 200) throw invalid('name', 'must have at most 200 characters');
    this.schedules.check(input.schedule);
    if (input.urls.length === 0) throw invalid('urls', 'A web scan needs at least one URL.');
    if (input.urls.length > MAX_URLS) throw invalid('urls', `A web scan takes at most ${MAX_URLS} URLs.`);
    const urls: string[] = [];
    input.urls.forEach((text, i) => {
      if (text.length > MAX_URL_LENGTH)
        throw invalid(['urls', String(i)], `must have at most ${MAX_URL_LENGTH} characters`);
      const url = parseWebUrl(text);
      if (typeof url === 'string') throw invalid(['urls', String(i)], url);
      if (!urls.includes(url.href)) urls.push(url.href);
    });
    const templateId = input.templateId ?? (await this.templates.list(ctx, 'Web'))[0]?.id;
    if (!templateId) throw invalid('templateId', 'No web template exists to default to; name one.');
    const template = await this.templates.find(ctx, templateId);
    if (!template)
      throw AppError.of(Problems.NotFound, `No scan template ${templateId} in this organisation.`);
    if (template.kind !== 'Web')
      throw invalid('templateId', `'${template.name}' is a ${template.kind} template, not a web one.`);
    if (input.nodeId && !(await this.nodes.servesKind(ctx, input.nodeId, 'Web')))
      throw AppError.of(
        Problems.NotFound,
        `No scan node ${input.nodeId} serving web scans in this organisation.`,
      );
    this.assertUrlsAllowed(urls, await this.targets.policy(ctx.organizationId));
    return {
      name,
      urls,
      templateId,
      nodeId: input.nodeId,
      schedule: input.schedule && input.schedule.SchedulingMode !== 'None' ? input.schedule : null,
      scanGroupId: input.scanGroupId ?? null,
    };
  }
}

function notFound(id: string): AppError {
  return AppError.of(Problems.NotFound, `No web scan ${id} in this organisation.`);
}

const text = (v: unknown, max: number) => typeof v === 'string' && v.length <= max;
const nullableText = (v: unknown, max: number) => v === null || text(v, max);

function isCheck(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  return (
    text(c.checkId, 200) &&
    (c.port === null ||
      (Number.isInteger(c.port) && (c.port as number) >= 1 && (c.port as number) <= 65535)) &&
    nullableText(c.url, MAX_URL_LENGTH) &&
    text(c.evidence, 4000) &&
    (c.details === undefined ||
      (typeof c.details === 'object' && c.details !== null && JSON.stringify(c.details).length <= 16_000))
  );
}

function isSoftware(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    text(s.header, 100) &&
    text(s.value, 1000) &&
    nullableText(s.product, 200) &&
    nullableText(s.version, 100) &&
    Array.isArray(s.cpes) &&
    s.cpes.length <= 20 &&
    s.cpes.every((c) => text(c, 500))
  );
}

/** A node's result item, checked: a node is another process, its items are input like any other. */
export function isWebUrlResult(item: unknown): item is WebUrlResult {
  if (typeof item !== 'object' || item === null) return false;
  const r = item as Record<string, unknown>;
  const score = r.headerScore as Record<string, unknown> | null;
  return (
    text(r.url, MAX_URL_LENGTH) &&
    nullableText(r.finalUrl, MAX_URL_LENGTH) &&
    (r.status === null ||
      (Number.isInteger(r.status) && (r.status as number) >= 100 && (r.status as number) <= 999)) &&
    (r.address === null || (typeof r.address === 'string' && isIP(r.address) !== 0)) &&
    Array.isArray(r.software) &&
    r.software.length <= 50 &&
    r.software.every(isSoftware) &&
    Array.isArray(r.checks) &&
    r.checks.length <= 500 &&
    r.checks.every(isCheck) &&
    (score === null ||
      (typeof score === 'object' &&
        typeof score.score === 'number' &&
        Number.isFinite(score.score) &&
        text(score.grade, 3))) &&
    Array.isArray(r.notes) &&
    r.notes.length <= 100 &&
    r.notes.every((n) => text(n, 1000)) &&
    nullableText(r.error, 2000) &&
    (r.budgetExhausted === null || r.budgetExhausted === 'url' || r.budgetExhausted === 'run') &&
    (r.tlsPort === undefined ||
      r.tlsPort === null ||
      (Number.isInteger(r.tlsPort) && (r.tlsPort as number) >= 1 && (r.tlsPort as number) <= 65535)) &&
    (r.httpCounterpart === undefined || nullableText(r.httpCounterpart, MAX_URL_LENGTH))
  );
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
