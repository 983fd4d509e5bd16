import type { FindingState, Severity } from '../../db/schema.js';
import type { JobPayload, ReportJobPayload } from '../../jobs/catalogue.js';
import type { EnqueueOptions } from '../../jobs/queue.js';
import { ruleOfScheduleOption, type ScheduleOption } from '../../jobs/schedule-option.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { type ServiceContext, SYSTEM } from '../context.js';
import type { FindingFilter } from '../findings/service.js';
import type { FindingFigures, FindingReportGrouping, FindingReportRow } from '../findings/types.js';
import type { Page } from '../users/service.js';
import { ChunkWriter } from './chunks.js';
import { figureTables } from './render/common.js';
import { executiveCsv, technicalCsv } from './render/csv.js';
import { executiveHtml, type ReportChart, technicalHtml } from './render/html.js';
import { executivePdf, technicalPdf } from './render/pdf.js';
import type { ReportRepository } from './repository.js';
import type {
  DefinitionInput,
  ExecutiveData,
  ReportDefinition,
  ReportFilterBody,
  ReportFormat,
  ReportKind,
  ReportRun,
  ReportScope,
  ReportSpec,
  TrendPoint,
} from './types.js';

/** The states a report counts as open, unless its filter names states of its own. */
export const OPEN_STATES: FindingState[] = ['Open', 'Reopened'];
/** Retention: the newest runs kept per definition, and the days any finished run is kept. */
export const KEEP_RUNS_PER_DEFINITION = 10;
export const KEEP_RUN_DAYS = 90;
/** Progress is written at most this often (rows), so that a large report is not slowed by it. */
const PROGRESS_EVERY_ROWS = 500;
/** Scheduled reports are mailed as an attachment up to this size; a link to the download beyond. */
export const MAIL_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;

const CONTENT_TYPES: Record<ReportFormat, string> = {
  Pdf: 'application/pdf',
  Html: 'text/html; charset=utf-8',
  Csv: 'text/csv; charset=utf-8',
};
const EXTENSIONS: Record<ReportFormat, string> = { Pdf: 'pdf', Html: 'html', Csv: 'csv' };

/** A mail with a report attached or linked (src/mail's Mailer sends it). */
export interface ReportMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

/**
 * What reports read and use of other modules, by the little each gives (src/services.ts wires
 * them): findings, SLA settings, scan groups, the history's trend, the dashboard's charts, the
 * schedules and jobs, the audit log and the mailer.
 */
export interface ReportSources {
  findings: {
    count(ctx: ServiceContext, filter: FindingFilter): Promise<number>;
    reportRows(
      ctx: ServiceContext,
      filter: FindingFilter,
      groupBy: FindingReportGrouping,
    ): AsyncIterable<FindingReportRow>;
    figures(ctx: ServiceContext, filter: FindingFilter): Promise<FindingFigures>;
  };
  /** The findings filter a stored filter body stands for (the findings list's own reading). */
  filterOf(body: ReportFilterBody): FindingFilter;
  /** The findings filter of a scan group's findings (the history module's ScanGroupId filter). */
  scanGroupFilter(scanGroupId: string): FindingFilter;
  slaDays(organizationId: string): Promise<Record<Severity, number | null>>;
  /** The group's name, or undefined when the organisation has no such group. */
  scanGroupName(ctx: ServiceContext, id: string): Promise<string | undefined>;
  /**
   * The scope's daily history over the last `days` days up to today in the organisation's time
   * zone (from and to as YYYY-MM-DD).
   */
  trend(
    ctx: ServiceContext,
    scope: ReportScope,
    days: number,
  ): Promise<{ from: string; to: string; points: TrendPoint[] }>;
  /** The dashboard's charts of an executive report, as SVG with their figures. */
  charts(d: ExecutiveData): ReportChart[];
  enqueue(payload: JobPayload<'report-generate'>, options: EnqueueOptions): Promise<string>;
  schedules: {
    apply(organizationId: string, definitionId: string, option: ScheduleOption | null): Promise<Date | null>;
    nextRunAt(organizationId: string, definitionId: string): Promise<Date | null>;
  };
  audit: {
    record(
      ctx: ServiceContext,
      action: string,
      target: { type: string; id: string } | null,
      details?: Record<string, unknown>,
    ): Promise<void>;
  };
  /** Sends mail; left out where no mailer is configured (scheduled reports then stay in history only). */
  mail?: (message: ReportMail) => Promise<void>;
  /** The address of the web app, for links in mail (RAMPART_BASE_URL). */
  baseUrl?: string;
}

const notFound = (what: string, id: string) =>
  AppError.of(Problems.NotFound, `No ${what} ${id} in your organisation.`);

/** An id no finding has: a filter that must match nothing. */
const NO_FINDING = '00000000-0000-0000-0000-000000000000';

const EMAIL = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[^\s@<>(),;:"[\]]+$/;

/** Reports: ad hoc and scheduled, made by a job, kept in chunks, downloaded as a stream. */
export class ReportService {
  constructor(
    private readonly repo: ReportRepository,
    private readonly sources: ReportSources,
    private readonly clock: Clock,
  ) {}

  // --- ad hoc reports and the history -------------------------------------------------------

  /**
   * Queues a report of the scope; 422 when the scope and filter match no findings (a report of
   * nothing is refused rather than made empty).
   */
  async create(
    ctx: ServiceContext,
    input: { name?: string; kind: ReportKind; format: ReportFormat; spec: ReportSpec },
  ): Promise<ReportRun> {
    await this.checkSpec(ctx, input.spec);
    const filter = this.findingsFilter(input.kind, input.spec);
    if ((await this.sources.findings.count(ctx, filter)) === 0)
      throw AppError.of(
        Problems.ReportScopeEmpty,
        'The filter matches no findings: a report of it would be empty. Widen the scope or the filter.',
      );
    const id = uuidv7();
    await this.repo.insertRun(ctx.organizationId, {
      id,
      definitionId: null,
      name: input.name ?? (await this.defaultName(ctx, input.kind, input.spec)),
      kind: input.kind,
      format: input.format,
      spec: input.spec,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
      createdAt: this.clock(),
    });
    await this.sources.enqueue({ reportId: id }, { organizationId: ctx.organizationId, maxAttempts: 2 });
    return (await this.repo.findRun(ctx.organizationId, id))!;
  }

  async get(ctx: ServiceContext, id: string): Promise<ReportRun> {
    const run = await this.repo.findRun(ctx.organizationId, id);
    if (!run) throw notFound('report', id);
    return run;
  }

  async list(
    ctx: ServiceContext,
    pageSize: number,
    cursor?: string,
    definitionId?: string,
  ): Promise<Page<ReportRun>> {
    const after = cursor ? decodeCreatedAtCursor(cursor) : undefined;
    if (cursor && !after) throw invalid('cursor', 'is not a cursor this list gave');
    const rows = await this.repo.listRuns(ctx.organizationId, pageSize + 1, after, definitionId);
    return {
      ...createdAtPage(rows, pageSize),
      totalCount: await this.repo.countRuns(ctx.organizationId, definitionId),
    };
  }

  async remove(ctx: ServiceContext, id: string): Promise<void> {
    if (!(await this.repo.removeRun(ctx.organizationId, id))) throw notFound('report', id);
    await this.sources.audit.record(ctx, 'report.deleted', { type: 'report', id });
  }

  /** A completed report's file, chunk by chunk (409 while it is not Completed); the download is audited. */
  async download(ctx: ServiceContext, id: string): Promise<{ run: ReportRun; body: AsyncIterable<Buffer> }> {
    const run = await this.get(ctx, id);
    if (run.state !== 'Completed')
      throw AppError.of(
        Problems.Conflict,
        run.state === 'Failed'
          ? `Report ${id} failed (${run.error ?? 'no reason given'}): there is nothing to download.`
          : `Report ${id} is ${run.state} (${run.progress}%): download it once it is Completed.`,
        { State: run.state, Progress: run.progress },
      );
    await this.sources.audit.record(
      ctx,
      'report.downloaded',
      { type: 'report', id },
      {
        name: run.name,
        kind: run.kind,
        format: run.format,
      },
    );
    return { run, body: this.repo.readChunks(ctx.organizationId, id) };
  }

  /** Retention (docs/reports.md): old report files go. */
  purge(): Promise<number> {
    return this.repo.purge(
      KEEP_RUNS_PER_DEFINITION,
      new Date(this.clock().getTime() - KEEP_RUN_DAYS * 86_400_000),
    );
  }

  // --- definitions --------------------------------------------------------------------------

  async createDefinition(ctx: ServiceContext, input: DefinitionInput): Promise<ReportDefinition> {
    await this.checkDefinition(ctx, input);
    const id = uuidv7();
    const at = this.clock();
    await this.repo.insertDefinition(ctx.organizationId, id, input, ctx.userId ?? ctx.actor.id, at);
    await this.sources.schedules.apply(ctx.organizationId, id, input.schedule);
    await this.sources.audit.record(ctx, 'report-definition.created', { type: 'report-definition', id });
    return this.getDefinition(ctx, id);
  }

  async updateDefinition(ctx: ServiceContext, id: string, input: DefinitionInput): Promise<ReportDefinition> {
    await this.getDefinition(ctx, id);
    await this.checkDefinition(ctx, input);
    await this.repo.updateDefinition(ctx.organizationId, id, input, this.clock());
    await this.sources.schedules.apply(ctx.organizationId, id, input.schedule);
    await this.sources.audit.record(ctx, 'report-definition.updated', { type: 'report-definition', id });
    return this.getDefinition(ctx, id);
  }

  async getDefinition(ctx: ServiceContext, id: string): Promise<ReportDefinition> {
    const d = await this.repo.findDefinition(ctx.organizationId, id);
    if (!d) throw notFound('report definition', id);
    return { ...d, nextRunAt: await this.sources.schedules.nextRunAt(ctx.organizationId, id) };
  }

  async listDefinitions(
    ctx: ServiceContext,
    pageSize: number,
    cursor?: string,
  ): Promise<Page<ReportDefinition>> {
    const after = cursor ? decodeCreatedAtCursor(cursor) : undefined;
    if (cursor && !after) throw invalid('cursor', 'is not a cursor this list gave');
    const rows = await this.repo.listDefinitions(ctx.organizationId, pageSize + 1, after);
    const page = createdAtPage(rows, pageSize);
    const items = await Promise.all(
      page.items.map(async (d) => ({
        ...d,
        nextRunAt: await this.sources.schedules.nextRunAt(ctx.organizationId, d.id),
      })),
    );
    return {
      items,
      nextCursor: page.nextCursor,
      totalCount: await this.repo.countDefinitions(ctx.organizationId),
    };
  }

  /** Removes a definition and its schedule; its reports stay in the history. */
  async removeDefinition(ctx: ServiceContext, id: string): Promise<void> {
    if (!(await this.repo.removeDefinition(ctx.organizationId, id))) throw notFound('report definition', id);
    await this.sources.schedules.apply(ctx.organizationId, id, null);
    await this.sources.audit.record(ctx, 'report-definition.deleted', { type: 'report-definition', id });
  }

  /** Queues a definition's report now (as its schedule would, but no mail is sent). */
  async runDefinition(ctx: ServiceContext, id: string): Promise<ReportRun> {
    const d = await this.getDefinition(ctx, id);
    const runId = uuidv7();
    await this.repo.insertRun(ctx.organizationId, {
      id: runId,
      definitionId: d.id,
      name: d.name,
      kind: d.kind,
      format: d.format,
      spec: d.spec,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
      createdAt: this.clock(),
    });
    await this.sources.enqueue({ reportId: runId }, { organizationId: ctx.organizationId, maxAttempts: 2 });
    return this.get(ctx, runId);
  }

  // --- generation (the report-generate job) -------------------------------------------------

  /**
   * Makes a report's file: a run queued by a request, or a definition's scheduled report (whose
   * run takes the job's id, and which is mailed to its recipients when made). A retry after a
   * killed attempt starts the file again.
   */
  async generate(
    organizationId: string,
    payload: ReportJobPayload,
    jobId: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const ctx: ServiceContext = { organizationId, actor: SYSTEM };
    let runId: string;
    let scheduled = false;
    if ('definitionId' in payload) {
      const d = await this.repo.findDefinition(organizationId, payload.definitionId);
      if (!d) return; // removed since the schedule fired
      scheduled = true;
      runId = jobId;
      await this.repo.insertRun(organizationId, {
        id: runId,
        definitionId: d.id,
        name: d.name,
        kind: d.kind,
        format: d.format,
        spec: d.spec,
        actorType: 'system',
        actorId: null,
        createdAt: this.clock(),
      });
    } else runId = payload.reportId;
    const run = await this.repo.findRun(organizationId, runId);
    if (!run || run.state === 'Completed' || run.state === 'Failed') return;
    try {
      await this.make(ctx, run, signal);
    } catch (error) {
      // Stopped (the server shuts down, or this worker lost the job's lease): the job's next
      // attempt makes the report again from the start, here or on another instance.
      if (signal?.aborted) throw error;
      await this.repo.finishRun(organizationId, run.id, {
        state: 'Failed',
        at: this.clock(),
        error: (error as Error).message || String(error),
      });
      return;
    }
    if (scheduled) await this.deliver(ctx, run.id);
  }

  private async make(ctx: ServiceContext, run: ReportRun, signal?: AbortSignal): Promise<void> {
    const org = ctx.organizationId;
    const writer = new ChunkWriter((seq, data) => this.repo.writeChunk(org, run.id, seq, data));
    const filter = this.findingsFilter(run.kind, run.spec);
    const label = await this.scopeLabel(ctx, run.spec);
    const generatedAt = this.clock();
    const meta = `${label} · generated ${generatedAt.toISOString()}`;
    let pageCount: number | null = null;
    let rowsWritten = 0;
    if (run.kind === 'Technical') {
      const total = await this.sources.findings.count(ctx, filter);
      await this.repo.startRun(org, run.id, generatedAt, total);
      const progress = async () => {
        rowsWritten++;
        if (signal?.aborted) throw new Error('The report was stopped (the server is shutting down).');
        if (rowsWritten % PROGRESS_EVERY_ROWS === 0)
          await this.repo.progress(
            org,
            run.id,
            Math.min(99, Math.floor((rowsWritten / Math.max(total, 1)) * 100)),
            rowsWritten,
          );
      };
      const rows = this.sources.findings.reportRows(ctx, filter, run.spec.groupBy);
      if (run.format === 'Pdf') {
        pageCount = await technicalPdf(run.name, meta, run.spec, rows, writer, progress);
      } else {
        const counted = countRows(rows, progress);
        const text =
          run.format === 'Html' ? technicalHtml(run.name, meta, run.spec, counted) : technicalCsv(counted);
        for await (const part of text) {
          writer.write(part);
          await writer.drain();
        }
      }
    } else {
      await this.repo.startRun(org, run.id, generatedAt, null);
      const data = await this.executiveData(ctx, run, label, generatedAt);
      await this.repo.progress(org, run.id, 50, 0);
      const charts = this.sources.charts(data);
      const rankings = figureTables(data).slice(-2);
      if (run.format === 'Pdf') pageCount = await executivePdf(data, charts, rankings, writer);
      else if (run.format === 'Html') writer.write(executiveHtml(data, charts, rankings));
      else for await (const part of executiveCsv(data)) writer.write(part);
    }
    await writer.end();
    await this.repo.finishRun(org, run.id, {
      state: 'Completed',
      at: this.clock(),
      sizeBytes: writer.size,
      pageCount,
      contentType: CONTENT_TYPES[run.format],
      fileName: fileNameOf(run),
      rowsWritten,
    });
  }

  /** The figures, history and SLA an executive report shows. */
  private async executiveData(
    ctx: ServiceContext,
    run: ReportRun,
    label: string,
    generatedAt: Date,
  ): Promise<ExecutiveData> {
    // A findings filter narrows the figures; the history is kept per organisation, tag and scan
    // group only, so a filtered report shows no trend rather than a wider one's.
    const utcDay = (d: Date) => d.toISOString().slice(0, 10);
    const noTrend = {
      from: utcDay(new Date(generatedAt.getTime() - (run.spec.periodDays - 1) * 86_400_000)),
      to: utcDay(generatedAt),
      points: [] as TrendPoint[],
    };
    const [figures, slaDays, history] = await Promise.all([
      this.sources.findings.figures(ctx, this.findingsFilter(run.kind, run.spec)),
      this.sources.slaDays(ctx.organizationId),
      run.spec.filter
        ? Promise.resolve(noTrend)
        : this.sources.trend(ctx, run.spec.scope, run.spec.periodDays),
    ]);
    const { from, to, points: trend } = history;
    return { title: run.name, scopeLabel: label, generatedAt, from, to, figures, slaDays, trend };
  }

  /** Mails a scheduled report to its definition's recipients, attached or linked; the outcome is kept on the run. */
  private async deliver(ctx: ServiceContext, runId: string): Promise<void> {
    const run = await this.repo.findRun(ctx.organizationId, runId);
    if (!run?.definitionId || run.state !== 'Completed') return;
    const d = await this.repo.findDefinition(ctx.organizationId, run.definitionId);
    if (!d || d.recipients.length === 0) return;
    if (!this.sources.mail) {
      await this.repo.recordDelivery(ctx.organizationId, run.id, {
        deliveredAt: null,
        error: 'No mail server is configured (RAMPART_SMTP_URL): the report is kept in the history only.',
      });
      return;
    }
    const link = `${(this.sources.baseUrl ?? '').replace(/\/$/, '')}/api/latest/reports/${run.id}/download`;
    const size = run.sizeBytes ?? 0;
    const attach = size <= MAIL_ATTACHMENT_MAX_BYTES;
    const lines = [
      `The scheduled report "${run.name}" is ready (${run.kind}, ${run.format}, ${size} bytes).`,
      attach ? 'It is attached to this message.' : `It is too large to attach; download it at ${link}`,
    ];
    try {
      let content: Buffer | undefined;
      if (attach) {
        const parts: Buffer[] = [];
        for await (const chunk of this.repo.readChunks(ctx.organizationId, run.id)) parts.push(chunk);
        content = Buffer.concat(parts);
      }
      await this.sources.mail({
        to: d.recipients,
        subject: `Rampart report: ${run.name}`,
        text: lines.join('\n\n'),
        html: lines.map((l) => `<p>${l.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`).join(''),
        ...(content
          ? {
              attachments: [
                {
                  filename: run.fileName ?? fileNameOf(run),
                  content,
                  contentType: run.contentType ?? 'application/octet-stream',
                },
              ],
            }
          : {}),
      });
      await this.repo.recordDelivery(ctx.organizationId, run.id, { deliveredAt: this.clock(), error: null });
    } catch (error) {
      await this.repo.recordDelivery(ctx.organizationId, run.id, {
        deliveredAt: null,
        error: `The mail could not be sent: ${(error as Error).message}`,
      });
    }
  }

  // --- rules --------------------------------------------------------------------------------

  /** The findings a report covers: the scope's, narrowed by its filter; open ones unless the filter names states. */
  private findingsFilter(kind: ReportKind, spec: ReportSpec): FindingFilter {
    const narrowed = spec.filter ? this.sources.filterOf(spec.filter) : {};
    const scope: FindingFilter =
      spec.scope.kind === 'Tag'
        ? { tag: spec.scope.tag }
        : spec.scope.kind === 'ScanGroup'
          ? this.sources.scanGroupFilter(spec.scope.scanGroupId)
          : {};
    const asked = narrowed.states?.length ? narrowed.states : OPEN_STATES;
    // Executive figures count open findings (of the filter's states, when it names open ones).
    const states = kind === 'Executive' ? asked.filter((s) => OPEN_STATES.includes(s)) : asked;
    const filter: FindingFilter = { confidence: 'Confirmed', ...narrowed, ...scope, states };
    // Only closed states asked of an executive summary: nothing is open among them.
    if (states.length === 0) filter.ids = [NO_FINDING];
    return filter;
  }

  private async checkSpec(ctx: ServiceContext, spec: ReportSpec): Promise<void> {
    if (spec.scope.kind === 'Tag' && spec.filter && 'Tag' in spec.filter)
      throw invalid(['filter', 'tag'], 'The report is scoped to a tag already: leave Filter.Tag out.');
    if (spec.scope.kind === 'ScanGroup' && !(await this.sources.scanGroupName(ctx, spec.scope.scanGroupId)))
      throw invalid('scanGroupId', `No scan group ${spec.scope.scanGroupId} in your organisation.`);
  }

  private async checkDefinition(ctx: ServiceContext, input: DefinitionInput): Promise<void> {
    await this.checkSpec(ctx, input.spec);
    const issues: string[] = [];
    input.recipients.forEach((r, i) => {
      if (!EMAIL.test(r)) issues.push(String(i));
    });
    if (issues.length)
      throw invalid(
        ['recipients', issues[0]!],
        `'${input.recipients[Number(issues[0])]}' is not an email address.`,
      );
    const mode = input.schedule?.SchedulingMode ?? 'None';
    if (mode !== 'None' && mode !== 'Weekly' && mode !== 'Monthly')
      throw invalid(
        ['schedule', 'schedulingMode'],
        `Reports run Weekly or Monthly (or None: by hand only), not ${mode}.`,
      );
    if (input.schedule) ruleOfScheduleOption(input.schedule, ['schedule']);
    if (input.recipients.length > 0 && mode === 'None')
      throw invalid(
        'recipients',
        'Recipients get scheduled reports: give the definition a Weekly or Monthly schedule.',
      );
  }

  private async scopeLabel(ctx: ServiceContext, spec: ReportSpec): Promise<string> {
    const base =
      spec.scope.kind === 'Tag'
        ? `Tag "${spec.scope.tag}"`
        : spec.scope.kind === 'ScanGroup'
          ? `Scan group "${(await this.sources.scanGroupName(ctx, spec.scope.scanGroupId)) ?? spec.scope.scanGroupId}"`
          : 'Organisation';
    return spec.filter ? `${base}, filtered` : base;
  }

  private async defaultName(ctx: ServiceContext, kind: ReportKind, spec: ReportSpec): Promise<string> {
    return `${kind === 'Executive' ? 'Executive summary' : 'Technical report'} — ${await this.scopeLabel(ctx, spec)}`;
  }
}

/** The report's file name: its name made safe, its date and the format's extension. */
export function fileNameOf(run: Pick<ReportRun, 'name' | 'createdAt' | 'format'>): string {
  const base = run.name
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${base || 'report'}-${run.createdAt.toISOString().slice(0, 10)}.${EXTENSIONS[run.format]}`;
}

/** The rows, each told to `onRow` once passed on. */
async function* countRows<T>(rows: AsyncIterable<T>, onRow: () => Promise<void>): AsyncGenerator<T> {
  for await (const row of rows) {
    yield row;
    await onRow();
  }
}
