import type { Kysely, Transaction } from 'kysely';
import type { TSchema } from 'typebox';
import type { DB } from '../../db/schema.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ScanResults } from '../../scanning/contract.js';
import type { ServiceContext } from '../context.js';
import type { SavedScanDependencies } from './dependencies.js';
import type { ScanKindDefinition } from './kind.js';
import { SavedScanRepository } from './repository.js';
import {
  ACTIVE_RUN_STATES,
  type RunOrder,
  type SavedScan,
  type SavedScanRun,
  type SavedScanWrite,
  type ScanKind,
} from './types.js';

/** The context of what the system does by itself (a schedule's occurrence, a job). */
export function systemContext(organizationId: string): ServiceContext {
  return { organizationId, actor: { type: 'system', id: null } };
}

/**
 * Saved scans of one kind: saved with a template and a node; each start queues a scan run whose
 * results come back in batches to the kind, and whose end the kind acts on. What differs between
 * kinds is in their definition; this is what they share.
 */
export class SavedScanService<
  Scan extends SavedScan,
  Input,
  Write extends SavedScanWrite,
  Body extends TSchema = TSchema,
  Narrowing = never,
> {
  protected readonly repo: SavedScanRepository<Scan, Write>;
  protected readonly deps: SavedScanDependencies;

  constructor(
    db: Kysely<DB>,
    readonly definition: ScanKindDefinition<Scan, Input, Write, Body, Narrowing>,
    deps: SavedScanDependencies,
  ) {
    this.repo = new SavedScanRepository(db, definition.table);
    this.deps = deps;
    // A run's results and end come back to the scan that queued it; its claim is checked by the
    // kind. Subscribed here, as the scan runs module is built first and knows no kind of scan.
    deps.runs.onBatch(definition.kind, (run, items, trx) => this.applyBatch(run, items, trx));
    deps.runs.onFinished(definition.kind, (run, trx) => this.finish(run, trx));
    deps.runs.onBeforeStart(definition.kind, (run) => this.refusalAtStart(run, run.spec));
    deps.runs.onDescribe(definition.kind, async (run, trx) => ({
      scanGroupId: await this.repo.scanGroupOf(run.organizationId, run.sourceId, trx),
    }));
  }

  async create(ctx: ServiceContext, input: Input): Promise<Scan> {
    const write = await this.definition.check(ctx, input, null);
    const scan = await this.repo.insert(ctx.organizationId, uuidv7(), write, ctx.userId ?? null, this.time());
    await this.deps.schedules.apply(ctx.organizationId, scan.id, write.schedule);
    await this.record(ctx, 'created', scan.id, { name: scan.name });
    return scan;
  }

  async update(ctx: ServiceContext, id: string, input: Input): Promise<Scan> {
    const current = await this.get(ctx, id);
    const write = await this.definition.check(ctx, input, current);
    const scan = await this.repo.update(ctx.organizationId, id, write, this.time());
    if (!scan) throw this.notFound(id);
    await this.deps.schedules.apply(ctx.organizationId, id, write.schedule);
    await this.record(ctx, 'updated', id, { name: scan.name });
    return scan;
  }

  async get(ctx: ServiceContext, id: string): Promise<Scan> {
    const scan = await this.repo.find(ctx.organizationId, id);
    if (!scan) throw this.notFound(id);
    return scan;
  }

  /** Newest first by cursor; only a scan group's when one is named (kinds a group holds). */
  async list(ctx: ServiceContext, q: { pageSize: number; cursor?: string; scanGroupId?: string }) {
    const after = q.cursor ? decodeCreatedAtCursor(q.cursor) : undefined;
    if (q.cursor && !after) throw invalid('cursor', 'is not a cursor this list gave');
    const rows = await this.repo.page(ctx.organizationId, q.pageSize, after, q.scanGroupId);
    return {
      ...createdAtPage(rows, q.pageSize),
      totalCount: await this.repo.count(ctx.organizationId, q.scanGroupId),
    };
  }

  /** Oldest first by offset, as the original service pages. */
  async listOffset(ctx: ServiceContext, start: number, size: number) {
    return {
      items: await this.repo.offset(ctx.organizationId, start, size),
      totalCount: await this.repo.count(ctx.organizationId),
    };
  }

  async any(ctx: ServiceContext): Promise<boolean> {
    return (await this.repo.count(ctx.organizationId)) > 0;
  }

  /** A scan group's scans, oldest first (for the kinds whose scans a group holds). */
  listByGroup(ctx: ServiceContext, scanGroupId: string): Promise<Scan[]> {
    return this.repo.byGroup(ctx.organizationId, scanGroupId);
  }

  /** A scan and its runs' data go; a scan with a run under way must be stopped first. */
  async remove(ctx: ServiceContext, id: string): Promise<void> {
    const scan = await this.get(ctx, id);
    const run = await this.deps.runs.latest(ctx, id);
    if (run && ACTIVE_RUN_STATES.has(run.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' is running; stop it before deleting it.`);
    await this.deps.schedules.apply(ctx.organizationId, id, null);
    await this.repo.delete(ctx.organizationId, id);
    await this.record(ctx, 'deleted', id, { name: scan.name });
  }

  /** When the scan's schedule starts it next, or null when it is not scheduled. */
  nextRunAt(ctx: ServiceContext, id: string): Promise<Date | null> {
    return this.deps.schedules.nextRunAt(ctx.organizationId, id);
  }

  /** The id of the scan's schedule (what the original's clients send as a ScheduleId), or null. */
  scheduleId(ctx: ServiceContext, id: string): Promise<string | null> {
    return this.deps.schedules.scheduleId(ctx.organizationId, id);
  }

  /** The latest run of the scan, or null when it never ran. */
  latestRun(ctx: ServiceContext, id: string): Promise<SavedScanRun | null> {
    return this.deps.runs.latest(ctx, id);
  }

  /**
   * A scheduled occurrence: starts the scan as the system. A scan already under way lets the
   * occurrence pass (it is not queued behind), and a deleted scan has nothing to start.
   */
  async startScheduled(organizationId: string, scanId: string): Promise<SavedScanRun | null> {
    const ctx = systemContext(organizationId);
    if (!(await this.repo.find(organizationId, scanId))) return null;
    const current = await this.deps.runs.latest(ctx, scanId);
    if (current && ACTIVE_RUN_STATES.has(current.state)) return null;
    return this.start(ctx, scanId);
  }

  /**
   * Starts a run now: the targets are checked again against today's allowed ones (422), and a
   * scan with a run under way answers 409.
   */
  async start(ctx: ServiceContext, id: string): Promise<SavedScanRun> {
    const scan = await this.idle(ctx, id);
    return this.queue(ctx, scan, await this.definition.order(ctx, scan));
  }

  /** Stops the run under way; a scan with none answers 409. */
  async stop(ctx: ServiceContext, id: string): Promise<SavedScanRun> {
    const scan = await this.get(ctx, id);
    const current = await this.deps.runs.latest(ctx, id);
    if (!current || !ACTIVE_RUN_STATES.has(current.state))
      throw AppError.of(Problems.Conflict, `The scan '${scan.name}' has no run under way.`);
    const run = await this.deps.runs.stop(ctx, current.id);
    await this.record(ctx, 'stopped', id, { runId: run.id });
    return run;
  }

  /** Whether a scan uses the template (templates may not be deleted then). */
  usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    return this.repo.usesTemplate(organizationId, templateId);
  }

  // ---- what the scan runs module calls back ----

  /** A batch of a run's results, applied once per batch and idempotent across the run's attempts; a run of a scan deleted since has nothing to keep. */
  async applyBatch(run: SavedScanRun, items: ScanResults[ScanKind][], trx: Transaction<DB>): Promise<void> {
    if (!(await this.repo.find(run.organizationId, run.sourceId, trx))) return;
    const rows = this.definition.acceptBatch(run, items);
    await this.repo.addResults(run.organizationId, run.sourceId, run.id, rows, this.time(), trx);
  }

  /** The run ended: it becomes the scan's last run (and last completed one), then the kind acts. */
  async finish(run: SavedScanRun, trx: Transaction<DB>): Promise<void> {
    const org = run.organizationId;
    const scan = await this.repo.find(org, run.sourceId, trx);
    if (!scan) return;
    const at = this.time();
    if (run.state === 'Completed') await this.repo.setCompleted(org, scan.id, run.id, at, trx);
    else await this.repo.setLastRun(org, scan.id, run.id, trx);
    await this.definition.runEnded(run, scan, at, trx);
  }

  /** Checked again when a node claims the run: the allowed targets may have changed since. */
  refusalAtStart(run: SavedScanRun, spec: unknown): Promise<string | null> {
    return this.definition.refusalAtStart(run, spec);
  }

  // ---- for the kinds' own operations ----

  /** The scan, when no run of it is under way (404, 409). */
  protected async idle(ctx: ServiceContext, id: string): Promise<Scan> {
    const scan = await this.get(ctx, id);
    const current = await this.deps.runs.latest(ctx, id);
    if (current && ACTIVE_RUN_STATES.has(current.state))
      throw AppError.of(
        Problems.Conflict,
        `The scan '${scan.name}' is ${current.state.toLowerCase()} already.`,
        { runId: current.id },
      );
    return scan;
  }

  /** The scan's latest run (404 when it never ran), for the report of what the kind kept of it. */
  protected async latestRunOf(ctx: ServiceContext, id: string): Promise<SavedScanRun> {
    const scan = await this.get(ctx, id);
    const run = await this.deps.runs.latest(ctx, id);
    if (!run) throw AppError.of(Problems.NotFound, `The scan '${scan.name}' has not run yet.`);
    return run;
  }

  /** A run of some of the scan's targets only (a Verify run): the kind says how it is narrowed. */
  protected async startNarrowed(ctx: ServiceContext, scan: Scan, narrowed: Narrowing): Promise<SavedScanRun> {
    return this.queue(ctx, scan, await this.definition.order(ctx, scan, narrowed));
  }

  /** Queues the run, keeps the kind's record of it and makes it the scan's last run, in one transaction. */
  protected async queue(ctx: ServiceContext, scan: Scan, order: RunOrder): Promise<SavedScanRun> {
    const run = await this.repo.transaction(async (trx) => {
      const queued = await this.deps.runs.queue(
        ctx,
        {
          kind: this.definition.kind,
          sourceId: scan.id,
          sourceName: (order.sourceName ?? scan.name).slice(0, 200),
          nodeId: scan.nodeId,
          spec: order.spec,
        },
        trx,
      );
      await order.record?.(trx, queued.id);
      await this.repo.setLastRun(ctx.organizationId, scan.id, queued.id, trx);
      return queued;
    });
    const audit = order.audit ?? { action: 'started', details: {} };
    await this.record(ctx, audit.action, scan.id, { runId: run.id, ...audit.details });
    return run;
  }

  protected time(): Date {
    return this.deps.clock();
  }

  protected notFound(id: string): AppError {
    return AppError.of(Problems.NotFound, `No ${this.definition.noun} ${id} in this organisation.`);
  }

  private record(ctx: ServiceContext, action: string, id: string, details: object): Promise<void> {
    const type = this.definition.auditType;
    return this.deps.audit.record(ctx, `${type}.${action}`, { type, id }, details);
  }
}
