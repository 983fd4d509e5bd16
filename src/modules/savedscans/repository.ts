import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { CreatedAtKey } from '../../lib/cursor.js';
import type { ResultRow, ScanRow, ScanTable } from './kind.js';
import type { SavedScan, SavedScanWrite } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

/** The columns every kind's scan table has. */
const COMMON_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'template_id',
  'node_id',
  'schedule',
  'created_by',
  'last_run_id',
  'last_completed_run_id',
  'last_completed_at',
  'created_at',
  'updated_at',
] as const;

/**
 * The table a kind keeps its scans in, seen through the columns all kinds share. The kind's own
 * table is named at run time (each kind's module owns its table); `scan` is only this view's name.
 */
type ScanTables = { scan: ScanRow & { scan_group_id: string | null } };

function commonColumns(w: SavedScanWrite) {
  return {
    name: w.name,
    template_id: w.templateId,
    node_id: w.nodeId,
    schedule: w.schedule == null ? null : JSON.stringify(w.schedule),
  };
}

/** One kind's saved scans, in the kind's own table. */
export class SavedScanRepository<Scan extends SavedScan, Write extends SavedScanWrite> {
  private readonly table: 'scan';
  private readonly columns: readonly 'id'[];

  constructor(
    private readonly db: Kysely<DB>,
    private readonly spec: ScanTable<Scan, Write>,
  ) {
    // The view's name stands for the kind's table; the SQL names the kind's table.
    this.table = spec.name as 'scan';
    this.columns = [...COMMON_COLUMNS, ...spec.columns] as readonly 'id'[];
  }

  private scans(db: Db = this.db): Kysely<ScanTables> {
    return db as unknown as Kysely<ScanTables>;
  }

  private toScan(r: ScanRow): Scan {
    const common: SavedScan = {
      id: r.id,
      organizationId: r.organization_id,
      name: r.name,
      templateId: r.template_id,
      nodeId: r.node_id,
      schedule: (r.schedule as ScheduleOption | null) ?? null,
      createdBy: r.created_by,
      lastRunId: r.last_run_id,
      lastCompletedRunId: r.last_completed_run_id,
      lastCompletedAt: r.last_completed_at,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
    return { ...common, ...this.spec.fromRow(r) } as Scan;
  }

  private writeColumns(w: Write) {
    return { ...commonColumns(w), ...this.spec.toColumns(w) };
  }

  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insert(organizationId: string, id: string, w: Write, createdBy: string | null, now: Date) {
    const row = await this.scans()
      .insertInto(this.table)
      .values({
        organization_id: organizationId,
        id,
        ...this.writeColumns(w),
        created_by: createdBy,
        created_at: now,
        updated_at: now,
      } as unknown as ScanRow)
      .returning(this.columns)
      .executeTakeFirstOrThrow();
    return this.toScan(row as ScanRow);
  }

  async update(organizationId: string, id: string, w: Write, now: Date): Promise<Scan | undefined> {
    const row = await this.scans()
      .updateTable(this.table)
      .set({ ...this.writeColumns(w), updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(this.columns)
      .executeTakeFirst();
    return row ? this.toScan(row as ScanRow) : undefined;
  }

  async find(organizationId: string, id: string, db: Db = this.db): Promise<Scan | undefined> {
    const row = await this.scans(db)
      .selectFrom(this.table)
      .select(this.columns)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? this.toScan(row as ScanRow) : undefined;
  }

  /** The scan group the scan belongs to (scan events name it), null when none or no such scan. */
  async scanGroupOf(organizationId: string, id: string, db: Db = this.db): Promise<string | null> {
    // Discovery scans belong to no group (their table has no such column).
    if (!(this.spec.columns as readonly string[]).includes('scan_group_id')) return null;
    const row = await this.scans(db)
      .selectFrom(this.table)
      .select('scan_group_id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.scan_group_id ?? null;
  }

  /** Newest first, one beyond the page size (for the cursor); a group's only when one is named. */
  async page(
    organizationId: string,
    pageSize: number,
    after?: CreatedAtKey,
    scanGroupId?: string,
  ): Promise<Scan[]> {
    let q = this.scans()
      .selectFrom(this.table)
      .select(this.columns)
      .where('organization_id', '=', organizationId);
    if (scanGroupId) q = q.where('scan_group_id', '=', scanGroupId);
    if (after)
      q = q.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '<', tuple(new Date(after.createdAt), after.id)),
      );
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize + 1)
      .execute();
    return rows.map((r) => this.toScan(r as ScanRow));
  }

  /** Oldest first by offset, as the original service pages. */
  async offset(organizationId: string, start: number, size: number): Promise<Scan[]> {
    const rows = await this.scans()
      .selectFrom(this.table)
      .select(this.columns)
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .offset(start)
      .limit(size)
      .execute();
    return rows.map((r) => this.toScan(r as ScanRow));
  }

  async count(organizationId: string, scanGroupId?: string): Promise<number> {
    let q = this.scans()
      .selectFrom(this.table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId);
    if (scanGroupId) q = q.where('scan_group_id', '=', scanGroupId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /** A scan group's scans, oldest first (for the kinds whose scans a group holds). */
  async byGroup(organizationId: string, scanGroupId: string): Promise<Scan[]> {
    const rows = await this.scans()
      .selectFrom(this.table)
      .select(this.columns)
      .where('organization_id', '=', organizationId)
      .where('scan_group_id', '=', scanGroupId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => this.toScan(r as ScanRow));
  }

  async usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    const r = await this.scans()
      .selectFrom(this.table)
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('template_id', '=', templateId)
      .executeTakeFirst();
    return r !== undefined;
  }

  /** The scan and its runs' results, in one transaction. */
  async delete(organizationId: string, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const results = trx as unknown as Kysely<Record<string, { organization_id: string; scan_id: string }>>;
      for (const table of this.spec.runTables)
        await results
          .deleteFrom(table)
          .where('organization_id', '=', organizationId)
          .where('scan_id', '=', id)
          .execute();
      await this.scans(trx)
        .deleteFrom(this.table)
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    });
  }

  /**
   * A batch of a run's results, upserted by key: a result reported again (by a retried attempt of
   * the run) is one row with the latest facts. A batch naming a key twice keeps the later one (one
   * INSERT … ON CONFLICT DO UPDATE may not touch a row twice).
   */
  async addResults(
    organizationId: string,
    scanId: string,
    runId: string,
    rows: ResultRow[],
    seenAt: Date,
    trx: Transaction<DB>,
  ): Promise<void> {
    if (rows.length === 0) return;
    const { name, key, replaced } = this.spec.results;
    const unique = [...new Map(rows.map((r) => [r.key, r])).values()];
    const results = trx as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await results
      .insertInto(name)
      .values(
        unique.map((r) => ({
          organization_id: organizationId,
          run_id: runId,
          scan_id: scanId,
          [key]: r.key,
          ...r.columns,
          seen_at: seenAt,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'run_id', key])
          .doUpdateSet((eb) =>
            Object.fromEntries([...replaced, 'seen_at'].map((c) => [c, eb.ref(`excluded.${c}`)])),
          ),
      )
      .execute();
  }

  async setLastRun(organizationId: string, scanId: string, runId: string, db: Db = this.db) {
    await this.scans(db)
      .updateTable(this.table)
      .set({ last_run_id: runId })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }

  async setCompleted(organizationId: string, scanId: string, runId: string, at: Date, db: Db) {
    await this.scans(db)
      .updateTable(this.table)
      .set({ last_run_id: runId, last_completed_run_id: runId, last_completed_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }
}

/** Whether a scan in any of these kinds' tables uses a template (templates in use may not be deleted). */
export function templateInUse(
  db: Kysely<DB>,
  tables: readonly ScanTable<SavedScan, SavedScanWrite>[],
): (organizationId: string, templateId: string) => Promise<boolean> {
  const repositories = tables.map((table) => new SavedScanRepository(db, table));
  return async (organizationId, templateId) => {
    for (const repository of repositories)
      if (await repository.usesTemplate(organizationId, templateId)) return true;
    return false;
  };
}
