import type { Transaction } from 'kysely';
import type { DB, ScanRunHistoryEntry as HistoryRow } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { checkBatch, describeIssues, type ScanResults } from '../../scanning/contract.js';
import { SCAN_KINDS, type ScanKind, type ScanProgress } from '../../scanning/types.js';
import type { ServiceContext } from '../context.js';
import type { EventsService } from '../events/service.js';
import type { ScanNodeService } from '../scannodes/service.js';
import type { ScanNode, ScanNodeDescription } from '../scannodes/types.js';
import type { ScanRunRepository, ScanRunRow } from './repository.js';
import {
  type ClaimedRun,
  FINISH_STATES,
  SCAN_RUN_STATES,
  type ScanRun,
  type ScanRunFinishState,
  type ScanRunPage,
  type ScanRunState,
} from './types.js';

/** A node that neither heartbeats nor sends a batch for this long loses its runs. */
export const LEASE_SECONDS = 60;
/** The first run and at most two more after a node fell silent. */
export const MAX_ATTEMPTS = 3;
export const MAX_PAGE_SIZE = 500;
/** Items in one batch, at most. */
export const MAX_BATCH_ITEMS = 10_000;
/** Refused addresses a run lists (all are counted): enough to see what went wrong. */
export const REFUSALS_LISTED = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FINAL: readonly ScanRunState[] = ['Completed', 'Failed', 'Stopped'];
const HELD: readonly ScanRunState[] = ['Running', 'Stopping'];

/** A batch's results, already checked against the contract of the run's kind. */
type BatchHandler<K extends ScanKind = ScanKind> = (
  run: ScanRun,
  items: ScanResults[K][],
  trx: Transaction<DB>,
) => Promise<void>;
type FinishedHandler = (run: ScanRun, trx: Transaction<DB>) => Promise<void>;
type StartCheck = (run: ScanRun) => Promise<string | null>;
/** The scan group of the scan a run is of (saved scans answer for their kind). */
export type ScanDescriber = (run: ScanRun, trx: Transaction<DB>) => Promise<{ scanGroupId: string | null }>;

const toRun = (r: ScanRunRow): ScanRun => ({
  id: r.id,
  organizationId: r.organization_id,
  kind: r.kind as ScanKind,
  sourceId: r.source_id,
  sourceName: r.source_name,
  nodeId: r.node_id,
  claimedBy: r.claimed_by,
  state: r.state,
  attempt: r.attempt,
  spec: r.spec,
  progress: {
    done: Number(r.progress_done),
    total: Number(r.progress_total),
    found: Number(r.progress_found),
  },
  leaseUntil: r.lease_until ? new Date(r.lease_until) : null,
  queuedAt: new Date(r.queued_at),
  startedAt: r.started_at ? new Date(r.started_at) : null,
  finishedAt: r.finished_at ? new Date(r.finished_at) : null,
  error: r.error,
  refused: { count: r.refused_count, addresses: r.refused ?? [] },
  stopRequested: r.stop_requested,
  history: (r.history ?? []).map((h) => ({ ...h, at: new Date(h.at) })),
  createdAt: new Date(r.created_at),
});

const isKind = (k: string): k is ScanKind => (SCAN_KINDS as readonly string[]).includes(k);

function checkProgress(p: ScanProgress): void {
  for (const key of ['done', 'total', 'found'] as const) {
    const v = p[key];
    if (!Number.isSafeInteger(v) || v < 0)
      throw invalid(['progress', key], 'must be a whole number of at least 0');
  }
  if (p.done > p.total && p.total > 0) throw invalid(['progress', 'done'], 'must not be more than Total');
}

/**
 * Scan runs: queued by a scan's module, claimed by scan nodes under a lease, reported back in
 * numbered batches applied once each, stopped on request, and queued again (at most twice) when
 * their node falls silent. Modules that own the results plug in through onBatch, onFinished and
 * onBeforeStart. Batch handlers must be idempotent across attempts: a run queued again starts
 * from scratch, so a new attempt sends the same results again (the discovery module upserts hosts
 * by address).
 */
export class ScanRunService {
  private readonly batchHandlers = new Map<ScanKind, BatchHandler[]>();
  private readonly finishedHandlers = new Map<ScanKind, FinishedHandler[]>();
  private readonly startChecks = new Map<ScanKind, StartCheck[]>();
  private readonly describers = new Map<ScanKind, ScanDescriber>();

  constructor(
    private readonly repo: ScanRunRepository,
    private readonly nodes: ScanNodeService,
    private readonly clock: Clock,
    private readonly events: EventsService,
  ) {}

  /** What the kind's scan says of itself in a scan event (its scan group), in the run's transaction. */
  onDescribe(kind: ScanKind, describe: ScanDescriber): void {
    this.describers.set(kind, describe);
  }

  /** scan.started, scan.completed or scan.failed for the run, in the transaction of its change. */
  private async publishRun(
    trx: Transaction<DB>,
    type: 'scan.started' | 'scan.completed' | 'scan.failed',
    run: ScanRun,
  ): Promise<void> {
    const described = (await this.describers.get(run.kind)?.(run, trx)) ?? { scanGroupId: null };
    const scan = {
      Kind: run.kind,
      Id: run.sourceId,
      Name: run.sourceName,
      ScanGroupId: described.scanGroupId,
    };
    const ref = { Id: run.id, Attempt: run.attempt, State: run.state };
    const options = {
      subject: `scanruns/${run.id}`,
      facets: described.scanGroupId ? { scanGroupIds: [described.scanGroupId] } : {},
    };
    if (type === 'scan.failed')
      await this.events.publish(
        trx,
        run.organizationId,
        type,
        { Scan: scan, Run: ref, Error: run.error },
        options,
      );
    else await this.events.publish(trx, run.organizationId, type, { Scan: scan, Run: ref }, options);
  }

  /**
   * Applied exactly once per (run, attempt, seq) batch, inside the batch's transaction, with the
   * batch's results (refused addresses aside) as the contract of the kind says: a batch that
   * breaks it is refused whole before any handler sees it.
   */
  onBatch<K extends ScanKind>(kind: K, handler: BatchHandler<K>): void {
    this.batchHandlers.set(kind, [...(this.batchHandlers.get(kind) ?? []), handler as BatchHandler]);
  }

  /** When a run ends (Completed, Failed or Stopped), inside that transaction. */
  onFinished(kind: ScanKind, handler: FinishedHandler): void {
    this.finishedHandlers.set(kind, [...(this.finishedHandlers.get(kind) ?? []), handler]);
  }

  /** Checked when a node claims a run, before it is handed out: a refusal fails the run with it. */
  onBeforeStart(kind: ScanKind, check: StartCheck): void {
    this.startChecks.set(kind, [...(this.startChecks.get(kind) ?? []), check]);
  }

  private entry(
    state: ScanRunState,
    attempt: number,
    nodeId: string | null,
    message: string | null,
  ): HistoryRow {
    return { at: this.clock().toISOString(), state, attempt, nodeId, message };
  }

  private leaseUntil(): Date {
    return new Date(this.clock().getTime() + LEASE_SECONDS * 1000);
  }

  /** Queues a run of a scan (sourceId = the scan's id); nodeId null = any node serving the kind. */
  async queue(
    ctx: ServiceContext,
    input: { kind: ScanKind; sourceId: string; sourceName: string; nodeId: string | null; spec: unknown },
    trx?: Transaction<DB>,
  ): Promise<ScanRun> {
    if (!isKind(input.kind)) throw invalid('kind', `must be one of ${SCAN_KINDS.join(', ')}`);
    if (!UUID.test(input.sourceId)) throw invalid('sourceId', 'must be a UUID');
    const sourceName = input.sourceName.trim();
    if (sourceName.length === 0 || sourceName.length > 200)
      throw invalid('sourceName', 'must have 1 to 200 characters');
    if (input.nodeId !== null) {
      if (!UUID.test(input.nodeId)) throw invalid('nodeId', 'must be a UUID');
      const node = await this.nodes.get(ctx, input.nodeId, trx).catch(() => null);
      if (!node || node.revokedAt)
        throw invalid('nodeId', 'must be a scan node of your organisation that is not revoked');
      if (!node.kinds.includes(input.kind))
        throw invalid('nodeId', `names scan node ${node.name}, which does not serve ${input.kind} scans`);
    }
    const now = this.clock();
    const row = await this.repo.insert(
      {
        organizationId: ctx.organizationId,
        id: uuidv7(now.getTime()),
        kind: input.kind,
        sourceId: input.sourceId,
        sourceName,
        nodeId: input.nodeId,
        spec: input.spec,
        history: this.entry('Queued', 0, input.nodeId, null),
        now,
      },
      trx,
    );
    return toRun(row);
  }

  /**
   * Queued → Stopped at once; Running → Stopping (the node is told and stops within 5 s) → Stopped.
   * A run that is stopping or has ended is answered as it is.
   */
  async stop(ctx: ServiceContext, runId: string): Promise<ScanRun> {
    this.checkId(runId);
    return this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, ctx.organizationId, runId);
      if (!row) throw this.notFound(runId);
      // Asking again changes nothing: an ended or stopping run is answered as it is.
      if (FINAL.includes(row.state) || row.state === 'Stopping') return toRun(row);
      if (row.state === 'Queued') {
        const stopped = await this.repo.transition(trx, row.organization_id, row.id, {
          state: 'Stopped',
          entry: this.entry('Stopped', row.attempt, null, 'Stopped before a node claimed it.'),
          finishedAt: this.clock(),
          stopRequested: true,
        });
        return this.finished(stopped, trx);
      }
      const stopping = await this.repo.transition(trx, row.organization_id, row.id, {
        state: 'Stopping',
        entry: this.entry('Stopping', row.attempt, row.claimed_by, 'Stop requested.'),
        stopRequested: true,
      });
      return toRun(stopping);
    });
  }

  /** The run `runId` of the organisation; 404 when absent. */
  async get(ctx: ServiceContext, runId: string): Promise<ScanRun> {
    this.checkId(runId);
    const row = await this.repo.findById(ctx.organizationId, runId);
    if (!row) throw this.notFound(runId);
    return toRun(row);
  }

  /** Runs newest first, filtered by source, kind and state. */
  async list(
    ctx: ServiceContext,
    q: { sourceId?: string; kind?: ScanKind; state?: ScanRunState; pageSize: number; cursor?: string },
  ): Promise<ScanRunPage> {
    if (q.sourceId !== undefined && !UUID.test(q.sourceId)) throw invalid('sourceId', 'must be a UUID');
    if (q.kind !== undefined && !isKind(q.kind))
      throw invalid('kind', `must be one of ${SCAN_KINDS.join(', ')}`);
    if (q.state !== undefined && !SCAN_RUN_STATES.includes(q.state))
      throw invalid('state', `must be one of ${SCAN_RUN_STATES.join(', ')}`);
    if (!Number.isInteger(q.pageSize) || q.pageSize < 1 || q.pageSize > MAX_PAGE_SIZE)
      throw invalid('pageSize', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    const after = q.cursor === undefined ? undefined : decodeCreatedAtCursor(q.cursor);
    if (q.cursor !== undefined && !after)
      throw invalid('cursor', 'is not valid; pass the NextCursor of a previous page');
    const filter = { organizationId: ctx.organizationId, sourceId: q.sourceId, kind: q.kind, state: q.state };
    const rows = (await this.repo.listPage(filter, q.pageSize + 1, after)).map(toRun);
    return { ...createdAtPage(rows, q.pageSize), totalCount: await this.repo.count(filter) };
  }

  /** The latest `limit` runs, newest first, of any scan or of these scans only (the dashboard). */
  async recent(ctx: ServiceContext, q: { limit: number; sourceIds?: string[] }): Promise<ScanRun[]> {
    const filter = { organizationId: ctx.organizationId, sourceIds: q.sourceIds };
    return (await this.repo.listPage(filter, q.limit)).map(toRun);
  }

  /** The latest run of a source (for its "last report"), or null. */
  async latest(ctx: ServiceContext, sourceId: string): Promise<ScanRun | null> {
    const page = await this.list(ctx, { sourceId, pageSize: 1 });
    return page.items[0] ?? null;
  }

  // ---- The node protocol: the node is authenticated by its key (or is the local node). ----

  /**
   * A node's heartbeat: records it, extends the leases of the runs it names, and answers which of
   * them to stop and which it lost (queued again or ended meanwhile).
   */
  async heartbeat(
    node: ScanNode,
    input: Omit<ScanNodeDescription, 'name'> & { runIds?: string[] },
  ): Promise<{ node: ScanNode; stopRunIds: string[]; lostRunIds: string[] }> {
    const runIds = input.runIds ?? [];
    runIds.forEach((id, i) => {
      if (!UUID.test(id)) throw invalid(['runIds', String(i)], 'must be a UUID');
    });
    const { runIds: _ids, ...description } = input;
    const current = await this.nodes.heartbeat(node, description);
    const held = await this.repo.renew(node.id, node.organizationId, runIds, this.leaseUntil());
    const heldIds = new Set(held.map((r) => r.id));
    return {
      node: current,
      stopRunIds: held.filter((r) => r.stop_requested).map((r) => r.id),
      lostRunIds: runIds.filter((id) => !heldIds.has(id)),
    };
  }

  /**
   * Claims the oldest run the node may take (its kinds, or `kinds` among them; its organisation,
   * any for the local node; within its capacity), or null. A run a start check refuses is failed
   * with the refusal, and the next one is tried.
   */
  async claim(node: ScanNode, kinds?: ScanKind[]): Promise<ClaimedRun | null> {
    if (kinds !== undefined) {
      const unserved = kinds.filter((k) => !node.kinds.includes(k));
      if (unserved.length > 0) throw invalid('kinds', `are not served by this node: ${unserved.join(', ')}`);
    }
    const wanted = kinds ?? node.kinds;
    if (wanted.length === 0) return null;
    for (let tries = 0; tries < 20; tries++) {
      const start = { refusal: null as string | null };
      const row = await this.repo.claim(
        {
          nodeId: node.id,
          organizationId: node.organizationId,
          kinds: wanted,
          capacity: node.capacity,
          now: this.clock(),
          leaseUntil: this.leaseUntil(),
        },
        // Checked in the claim's transaction, so that scan.started commits with the claim and only
        // for a run that starts; a refused run fails below (scan.failed).
        async (trx, claimed) => {
          start.refusal = await this.startRefusal(toRun(claimed));
          if (start.refusal === null) await this.publishRun(trx, 'scan.started', toRun(claimed));
        },
      );
      if (!row) return null;
      const run = toRun(row);
      if (start.refusal === null) return { id: run.id, kind: run.kind, attempt: run.attempt, spec: run.spec };
      await this.end(node, run.id, run.attempt, 'Failed', start.refusal);
    }
    return null;
  }

  private async startRefusal(run: ScanRun): Promise<string | null> {
    for (const check of this.startChecks.get(run.kind) ?? []) {
      const refusal = await check(run);
      if (refusal !== null) return refusal;
    }
    return null;
  }

  /**
   * A batch of results: applied once per (run, attempt, seq), so that a batch the node sends again
   * changes nothing. Renews the lease. 409 when the node no longer holds that attempt of the run.
   */
  async batch(
    node: ScanNode,
    input: { runId: string; attempt: number; seq: number; items: unknown[]; progress?: ScanProgress },
  ): Promise<{ applied: boolean; stopRequested: boolean }> {
    this.checkId(input.runId);
    if (!Number.isInteger(input.attempt) || input.attempt < 1)
      throw invalid('attempt', 'must be a whole number of at least 1');
    if (!Number.isInteger(input.seq) || input.seq < 1)
      throw invalid('seq', 'must be a whole number of at least 1');
    if (!Array.isArray(input.items)) throw invalid('items', 'must be an array');
    if (input.items.length > MAX_BATCH_ITEMS)
      throw invalid('items', `must hold at most ${MAX_BATCH_ITEMS} items`);
    if (input.progress) checkProgress(input.progress);
    return this.repo.transaction(async (trx) => {
      const row = await this.held(trx, node, input.runId, input.attempt);
      const checked = checkBatch(row.kind as ScanKind, input.items, '/Items');
      // A node is another process: a batch that breaks the contract is refused whole, unapplied.
      if ('issues' in checked)
        throw AppError.of(
          Problems.ValidationFailed,
          `The batch breaks the contract of ${row.kind} results: ${describeIssues(checked.issues)}`,
          { errors: checked.issues },
        );
      const { refused, results } = checked.batch;
      const applied = await this.repo.insertBatch(trx, {
        organizationId: row.organization_id,
        runId: row.id,
        attempt: input.attempt,
        seq: input.seq,
        itemCount: input.items.length,
        now: this.clock(),
      });
      if (applied) {
        const run = toRun(row);
        // Refused addresses belong to the run whatever its kind; the rest are the kind's results.
        if (refused.length > 0)
          await this.repo.addRefused(trx, row.organization_id, row.id, {
            refused: refused.map((r) => ({ address: r.address, rule: r.rule, message: r.message })),
            known: run.refused.addresses,
            listed: REFUSALS_LISTED,
          });
        for (const handler of this.batchHandlers.get(run.kind) ?? []) await handler(run, results, trx);
      }
      await this.repo.touch(trx, row.organization_id, row.id, {
        leaseUntil: this.leaseUntil(),
        ...(applied && input.progress ? { progress: input.progress } : {}),
      });
      return { applied, stopRequested: row.stop_requested };
    });
  }

  /**
   * The node ends its attempt: Completed, Failed (with the error) or Stopped. Sending it again
   * answers the same run; 409 when the node no longer holds that attempt.
   */
  async finish(
    node: ScanNode,
    input: { runId: string; attempt: number; state: ScanRunFinishState; error?: string | null },
  ): Promise<ScanRun> {
    this.checkId(input.runId);
    if (!Number.isInteger(input.attempt) || input.attempt < 1)
      throw invalid('attempt', 'must be a whole number of at least 1');
    if (!FINISH_STATES.includes(input.state))
      throw invalid('state', `must be one of ${FINISH_STATES.join(', ')}`);
    if (input.error !== undefined && input.error !== null && input.error.length > 4000)
      throw invalid('error', 'must have at most 4000 characters');
    return this.end(node, input.runId, input.attempt, input.state, input.error ?? null);
  }

  private async end(
    node: ScanNode,
    runId: string,
    attempt: number,
    state: ScanRunFinishState,
    error: string | null,
  ): Promise<ScanRun> {
    return this.repo.transaction(async (trx) => {
      const locked = await this.repo.lock(trx, node.organizationId, runId);
      if (
        locked &&
        locked.claimed_by === node.id &&
        locked.attempt === attempt &&
        FINAL.includes(locked.state)
      )
        return toRun(locked);
      const row = await this.held(trx, node, runId, attempt);
      const message =
        state === 'Failed'
          ? error?.trim() || 'The scan failed.'
          : state === 'Stopped'
            ? error?.trim() || null
            : null;
      const ended = await this.repo.transition(trx, row.organization_id, row.id, {
        state,
        entry: this.entry(state, attempt, node.id, message),
        error: state === 'Completed' ? null : message,
        finishedAt: this.clock(),
      });
      return this.finished(ended, trx);
    });
  }

  /** The run, locked, when `node` holds this attempt of it; 404 when absent, 409 when not held. */
  private async held(
    trx: Transaction<DB>,
    node: ScanNode,
    runId: string,
    attempt: number,
  ): Promise<ScanRunRow> {
    const row = await this.repo.lock(trx, node.organizationId, runId);
    if (!row) throw this.notFound(runId);
    if (row.claimed_by !== node.id || row.attempt !== attempt || !HELD.includes(row.state))
      throw AppError.of(
        Problems.Conflict,
        `This node no longer holds attempt ${attempt} of scan run ${runId} (now ${row.state}, attempt ${row.attempt}): stop working on it.`,
      );
    return row;
  }

  private async finished(row: ScanRunRow, trx: Transaction<DB>): Promise<ScanRun> {
    const run = toRun(row);
    for (const handler of this.finishedHandlers.get(run.kind) ?? []) await handler(run, trx);
    // A run stopped before any node took it never started: no event. A stopped run that ran
    // kept what it found, as a completed one (its Run.State says Stopped).
    if (run.state === 'Failed') await this.publishRun(trx, 'scan.failed', run);
    else if (run.state === 'Completed' || (run.state === 'Stopped' && run.startedAt))
      await this.publishRun(trx, 'scan.completed', run);
    return run;
  }

  /**
   * Runs whose node lease lapsed (60 s without a heartbeat or batch): queued again at most twice,
   * then Failed with the reason; a run that was stopping is Stopped. Returns how many changed.
   */
  /**
   * A node that restarted holds no run any more: the runs it held are queued again (or given
   * up) now, as a silent node's would be after its lease. Only safe where no other process could
   * be that node — the local node on the embedded database.
   */
  async releaseRunsOf(nodeId: string): Promise<number> {
    if ((await this.repo.endLeasesOf(nodeId, this.clock())) === 0) return 0;
    return this.requeueSilent();
  }

  /**
   * For the metrics: runs of every organisation by kind and state, and the age in seconds of each
   * kind's oldest Queued run (how long runs wait for a node), by the application clock.
   */
  async figures(): Promise<{
    states: { kind: string; state: ScanRunState; count: number }[];
    oldestQueuedAge: { kind: string; seconds: number }[];
  }> {
    const now = this.clock().getTime();
    const { states, oldestQueued } = await this.repo.figures();
    return {
      states,
      oldestQueuedAge: oldestQueued.map((o) => ({
        kind: o.kind,
        seconds: Math.max(0, (now - o.queuedAt.getTime()) / 1000),
      })),
    };
  }

  async requeueSilent(): Promise<number> {
    const now = this.clock();
    const expired = await this.repo.expired(now);
    let changed = 0;
    for (const e of expired) {
      // Named before the transaction: the embedded database has one connection.
      const nodeName = await this.nodeName(e.organization_id, e.claimed_by);
      const done = await this.repo.transaction(async (trx) => {
        const row = await this.repo.lock(trx, e.organization_id, e.id);
        if (!row || !HELD.includes(row.state) || !row.lease_until || new Date(row.lease_until) >= now)
          return false;
        const silent = `The scan node ${nodeName} fell silent for ${LEASE_SECONDS} s`;
        if (row.state === 'Stopping') {
          const ended = await this.repo.transition(trx, row.organization_id, row.id, {
            state: 'Stopped',
            entry: this.entry('Stopped', row.attempt, row.claimed_by, `${silent} while stopping.`),
            error: `${silent} while stopping.`,
            finishedAt: now,
          });
          await this.finished(ended, trx);
        } else if (row.attempt < MAX_ATTEMPTS) {
          await this.repo.transition(trx, row.organization_id, row.id, {
            state: 'Queued',
            entry: this.entry('Queued', row.attempt, row.claimed_by, `${silent}: queued again.`),
            release: true,
          });
        } else {
          const reason = `${silent} on attempt ${row.attempt} of ${MAX_ATTEMPTS}: the run was given up.`;
          const ended = await this.repo.transition(trx, row.organization_id, row.id, {
            state: 'Failed',
            entry: this.entry('Failed', row.attempt, row.claimed_by, reason),
            error: reason,
            finishedAt: now,
          });
          await this.finished(ended, trx);
        }
        return true;
      });
      if (done) changed += 1;
    }
    return changed;
  }

  private async nodeName(organizationId: string, nodeId: string | null): Promise<string> {
    if (!nodeId) return '(unknown)';
    const node = await this.nodes
      .get({ organizationId, actor: { type: 'system', id: null } }, nodeId)
      .catch(() => null);
    return node ? `"${node.name}"` : nodeId;
  }

  private checkId(runId: string): void {
    if (!UUID.test(runId)) throw invalid('id', 'must be a UUID');
  }

  private notFound(runId: string): AppError {
    return AppError.of(Problems.NotFound, `No scan run ${runId} in your organisation.`);
  }
}
