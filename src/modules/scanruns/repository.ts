import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type {
  DB,
  RefusedAddressRow,
  ScanRunHistoryEntry,
  ScanRunState,
  ScanRunsTable,
} from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;
export type ScanRunRow = Selectable<ScanRunsTable>;

const HELD: ScanRunState[] = ['Running', 'Stopping'];

export interface ScanRunFilter {
  organizationId: string;
  sourceId?: string;
  /** Runs of any of these sources (a scan group's scans). */
  sourceIds?: string[];
  kind?: string;
  state?: ScanRunState;
}

/** jsonb of one history entry, appended to a run's history in the same statement. */
const historyEntry = (entry: ScanRunHistoryEntry) => sql<string>`${JSON.stringify([entry])}::jsonb`;

/**
 * The SQL of scan runs and their batches. Callers pass every time (the application clock's). A
 * node without an organisation (the local node) may claim any organisation's runs; every other
 * query names the organisation.
 */
export class ScanRunRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  insert(
    row: {
      organizationId: string;
      id: string;
      kind: string;
      sourceId: string;
      sourceName: string;
      nodeId: string | null;
      spec: unknown;
      history: ScanRunHistoryEntry;
      now: Date;
    },
    db: Db = this.db,
  ): Promise<ScanRunRow> {
    return db
      .insertInto('scan_runs')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        kind: row.kind,
        source_id: row.sourceId,
        source_name: row.sourceName,
        node_id: row.nodeId,
        state: 'Queued',
        spec: JSON.stringify(row.spec ?? null),
        history: JSON.stringify([row.history]),
        queued_at: row.now,
        created_at: row.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  findById(organizationId: string, id: string, db: Db = this.db): Promise<ScanRunRow | undefined> {
    return db
      .selectFrom('scan_runs')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** A run locked for this transaction; `organizationId` null (the local node) finds it in any. */
  lock(trx: Transaction<DB>, organizationId: string | null, id: string): Promise<ScanRunRow | undefined> {
    let q = trx.selectFrom('scan_runs').selectAll().where('id', '=', id);
    if (organizationId !== null) q = q.where('organization_id', '=', organizationId);
    return q.forUpdate().executeTakeFirst();
  }

  /**
   * Claims the oldest Queued run a node may take, unless it already holds `capacity` runs: of the
   * kinds it serves, of its organisation (any for the local node), asked of it or of any node.
   * Claims by one node are serialised (a transaction-scoped advisory lock on its id), so its
   * capacity holds; rows another transaction is claiming are skipped, so two nodes never get the
   * same run.
   */
  async claim(
    input: {
      nodeId: string;
      organizationId: string | null;
      kinds: string[];
      capacity: number;
      now: Date;
      leaseUntil: Date;
    },
    claimed?: (trx: Transaction<DB>, row: ScanRunRow) => Promise<void>,
  ): Promise<ScanRunRow | undefined> {
    const { nodeId, organizationId, kinds, now, leaseUntil } = input;
    return this.transaction(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`scan-node:${nodeId}`}))`.execute(trx);
      const held = await trx
        .selectFrom('scan_runs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('claimed_by', '=', nodeId)
        .where('state', 'in', HELD)
        .executeTakeFirstOrThrow();
      if (Number(held.n) >= input.capacity) return undefined;
      const { rows } = await sql<ScanRunRow>`
        update scan_runs r
           set state = 'Running',
               claimed_by = ${nodeId}::uuid,
               attempt = r.attempt + 1,
               lease_until = ${leaseUntil}::timestamptz,
               started_at = ${now}::timestamptz,
               stop_requested = false,
               progress_done = 0,
               progress_total = 0,
               progress_found = 0,
               refused = '[]'::jsonb,
               refused_count = 0,
               history = r.history || jsonb_build_array(jsonb_build_object(
                 'at', ${now.toISOString()}::text, 'state', 'Running', 'attempt', r.attempt + 1,
                 'nodeId', ${nodeId}::text, 'message', null))
         where (r.organization_id, r.id) in (
           select organization_id, id
             from scan_runs
            where state = 'Queued'
              and kind = any(${kinds}::text[])
              and (${organizationId}::uuid is null or organization_id = ${organizationId}::uuid)
              and (node_id is null or node_id = ${nodeId}::uuid)
            order by queued_at, id
            limit 1
            for update skip locked)
        returning r.*`.execute(trx);
      if (rows[0]) await claimed?.(trx, rows[0]);
      return rows[0];
    });
  }

  /**
   * Extends the lease of the runs `nodeId` says it runs and still holds; returns those, so that
   * the others are known lost. Runs a node holds but does not name lapse (a lost claim answer).
   */
  async renew(
    nodeId: string,
    organizationId: string | null,
    ids: string[],
    leaseUntil: Date,
  ): Promise<{ id: string; attempt: number; stop_requested: boolean }[]> {
    if (ids.length === 0) return [];
    let q = this.db
      .updateTable('scan_runs')
      .set({ lease_until: leaseUntil })
      .where('claimed_by', '=', nodeId)
      .where('state', 'in', HELD)
      .where('id', 'in', ids);
    if (organizationId !== null) q = q.where('organization_id', '=', organizationId);
    return q.returning(['id', 'attempt', 'stop_requested']).execute();
  }

  /** Records a batch; false when this (run, attempt, seq) was recorded before. */
  async insertBatch(
    trx: Transaction<DB>,
    row: {
      organizationId: string;
      runId: string;
      attempt: number;
      seq: number;
      itemCount: number;
      now: Date;
    },
  ): Promise<boolean> {
    const inserted = await trx
      .insertInto('scan_run_batches')
      .values({
        organization_id: row.organizationId,
        run_id: row.runId,
        attempt: row.attempt,
        seq: row.seq,
        item_count: row.itemCount,
        received_at: row.now,
      })
      .onConflict((oc) => oc.columns(['organization_id', 'run_id', 'attempt', 'seq']).doNothing())
      .returning('seq')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  /** Renews the lease of a held run, with its progress when a new batch brought one. */
  async touch(
    trx: Transaction<DB>,
    organizationId: string,
    id: string,
    change: { leaseUntil: Date; progress?: { done: number; total: number; found: number } },
  ): Promise<void> {
    await trx
      .updateTable('scan_runs')
      .set({
        lease_until: change.leaseUntil,
        ...(change.progress
          ? {
              progress_done: change.progress.done,
              progress_total: change.progress.total,
              progress_found: change.progress.found,
            }
          : {}),
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * Adds refused addresses to a run: the first `listed` of the attempt are kept, every one counted.
   * `known` is what the run holds already (read under the batch's lock).
   */
  async addRefused(
    trx: Transaction<DB>,
    organizationId: string,
    id: string,
    change: { refused: RefusedAddressRow[]; known: RefusedAddressRow[]; listed: number },
  ): Promise<void> {
    const kept = [...change.known, ...change.refused].slice(0, change.listed);
    await trx
      .updateTable('scan_runs')
      .set((eb) => ({
        refused: JSON.stringify(kept),
        refused_count: eb('refused_count', '+', change.refused.length),
      }))
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  /** Moves a run to a new state, appending the step to its history. */
  async transition(
    db: Db,
    organizationId: string,
    id: string,
    change: {
      state: ScanRunState;
      entry: ScanRunHistoryEntry;
      error?: string | null;
      finishedAt?: Date | null;
      stopRequested?: boolean;
      /** Queued again: the node lets go and the lease ends. */
      release?: boolean;
    },
  ): Promise<ScanRunRow> {
    return db
      .updateTable('scan_runs')
      .set({
        state: change.state,
        history: sql`history || ${historyEntry(change.entry)}`,
        ...(change.error !== undefined ? { error: change.error } : {}),
        ...(change.finishedAt !== undefined ? { finished_at: change.finishedAt, lease_until: null } : {}),
        ...(change.stopRequested !== undefined ? { stop_requested: change.stopRequested } : {}),
        ...(change.release ? { claimed_by: null, lease_until: null, started_at: null } : {}),
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Held runs whose lease ran out: their node fell silent. */
  expired(now: Date): Promise<{ organization_id: string; id: string; claimed_by: string | null }[]> {
    return this.db
      .selectFrom('scan_runs')
      .select(['organization_id', 'id', 'claimed_by'])
      .where('state', 'in', HELD)
      .where('lease_until', '<', now)
      .orderBy('lease_until')
      .limit(1000)
      .execute();
  }

  /** Ends now the leases a node holds (it restarted: it holds none any more). Every organisation's. */
  async endLeasesOf(nodeId: string, now: Date): Promise<number> {
    const r = await this.db
      .updateTable('scan_runs')
      .set({ lease_until: new Date(now.getTime() - 1) })
      .where('claimed_by', '=', nodeId)
      .where('state', 'in', HELD)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  private filtered(filter: ScanRunFilter) {
    let q = this.db.selectFrom('scan_runs').where('organization_id', '=', filter.organizationId);
    if (filter.sourceId !== undefined) q = q.where('source_id', '=', filter.sourceId);
    if (filter.sourceIds !== undefined)
      q = filter.sourceIds.length
        ? q.where('source_id', 'in', filter.sourceIds)
        : q.where(sql<boolean>`false`);
    if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
    if (filter.state !== undefined) q = q.where('state', '=', filter.state);
    return q;
  }

  /** A page of runs, newest first, after the (createdAt, id) of the last row of the page before. */
  listPage(filter: ScanRunFilter, limit: number, after?: { createdAt: string; id: string }) {
    let q = this.filtered(filter).selectAll();
    if (after)
      q = q.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '<', tuple(new Date(after.createdAt), after.id)),
      );
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async count(filter: ScanRunFilter): Promise<number> {
    const row = await this.filtered(filter)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * For the metrics (docs/metrics.md), across organisations, labelled by kind only: runs by kind
   * and state, and per kind the queued_at of the oldest Queued run.
   */
  async figures(): Promise<{
    states: { kind: string; state: ScanRunState; count: number }[];
    oldestQueued: { kind: string; queuedAt: Date }[];
  }> {
    const states = await this.db
      .selectFrom('scan_runs')
      .select(['kind', 'state', (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy(['kind', 'state'])
      .execute();
    const oldest = await this.db
      .selectFrom('scan_runs')
      .select(['kind', (eb) => eb.fn.min('queued_at').as('queued_at')])
      .where('state', '=', 'Queued')
      .groupBy('kind')
      .execute();
    return {
      states: states.map((r) => ({ kind: r.kind, state: r.state, count: Number(r.n) })),
      oldestQueued: oldest
        .filter((r) => r.queued_at !== null)
        .map((r) => ({ kind: r.kind, queuedAt: new Date(r.queued_at as Date | string) })),
    };
  }
}
