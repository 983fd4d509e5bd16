import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { CreatedAtKey } from '../../lib/cursor.js';
import type { WebUrlResult } from '../../scanning/types.js';
import type { ImportCounts, WebRunOutcome, WebScan } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const SCAN_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'urls',
  'template_id',
  'node_id',
  'schedule',
  'scan_group_id',
  'created_by',
  'last_run_id',
  'last_completed_run_id',
  'last_completed_at',
  'created_at',
  'updated_at',
] as const;

type ScanRow = {
  id: string;
  organization_id: string;
  name: string;
  urls: unknown;
  template_id: string;
  node_id: string | null;
  schedule: unknown;
  scan_group_id: string | null;
  created_by: string | null;
  last_run_id: string | null;
  last_completed_run_id: string | null;
  last_completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

function toScan(r: ScanRow): WebScan {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    urls: r.urls as string[],
    templateId: r.template_id,
    nodeId: r.node_id,
    schedule: (r.schedule as ScheduleOption | null) ?? null,
    scanGroupId: r.scan_group_id,
    createdBy: r.created_by,
    lastRunId: r.last_run_id,
    lastCompletedRunId: r.last_completed_run_id,
    lastCompletedAt: r.last_completed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface WebScanWrite {
  name: string;
  urls: string[];
  templateId: string;
  nodeId: string | null;
  schedule: ScheduleOption | null;
  scanGroupId: string | null;
}

function writeColumns(w: WebScanWrite) {
  return {
    name: w.name,
    urls: JSON.stringify(w.urls),
    template_id: w.templateId,
    node_id: w.nodeId,
    schedule: w.schedule == null ? null : JSON.stringify(w.schedule),
    scan_group_id: w.scanGroupId,
  };
}

/** Web scans, the URLs each run reported, and what became of each run's results. */
export class WebScanRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insert(organizationId: string, id: string, w: WebScanWrite, createdBy: string | null, now: Date) {
    const row = await this.db
      .insertInto('web_scans')
      .values({
        organization_id: organizationId,
        id,
        ...writeColumns(w),
        created_by: createdBy,
        created_at: now,
        updated_at: now,
      })
      .returning(SCAN_COLUMNS)
      .executeTakeFirstOrThrow();
    return toScan(row);
  }

  async update(organizationId: string, id: string, w: WebScanWrite, now: Date) {
    const row = await this.db
      .updateTable('web_scans')
      .set({ ...writeColumns(w), updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(SCAN_COLUMNS)
      .executeTakeFirst();
    return row ? toScan(row) : undefined;
  }

  async find(organizationId: string, id: string, db: Db = this.db): Promise<WebScan | undefined> {
    const row = await db
      .selectFrom('web_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toScan(row) : undefined;
  }

  /** Newest first, one beyond the page size (for the cursor). */
  async page(organizationId: string, pageSize: number, after?: CreatedAtKey): Promise<WebScan[]> {
    let q = this.db
      .selectFrom('web_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId);
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', new Date(after.createdAt)),
          eb.and([eb('created_at', '=', new Date(after.createdAt)), eb('id', '<', after.id)]),
        ]),
      );
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize + 1)
      .execute();
    return rows.map(toScan);
  }

  async byGroup(organizationId: string, groupId: string): Promise<WebScan[]> {
    const rows = await this.db
      .selectFrom('web_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('scan_group_id', '=', groupId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toScan);
  }

  async count(organizationId: string): Promise<number> {
    const r = await this.db
      .selectFrom('web_scans')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    const r = await this.db
      .selectFrom('web_scans')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('template_id', '=', templateId)
      .executeTakeFirst();
    return r !== undefined;
  }

  async delete(organizationId: string, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of ['web_run_urls', 'web_runs'] as const)
        await trx
          .deleteFrom(table)
          .where('organization_id', '=', organizationId)
          .where('scan_id', '=', id)
          .execute();
      await trx
        .deleteFrom('web_scans')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    });
  }

  async setLastRun(organizationId: string, scanId: string, runId: string, db: Db = this.db) {
    await db
      .updateTable('web_scans')
      .set({ last_run_id: runId })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }

  async setCompleted(organizationId: string, scanId: string, runId: string, now: Date, db: Db) {
    await db
      .updateTable('web_scans')
      .set({ last_run_id: runId, last_completed_run_id: runId, last_completed_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }

  /** The run's own row, made when it is queued (a Verify run's findings with it). */
  async addRun(
    organizationId: string,
    scanId: string,
    runId: string,
    verifyFindingIds: string[] | null,
    now: Date,
    db: Db,
  ) {
    await db
      .insertInto('web_runs')
      .values({
        organization_id: organizationId,
        run_id: runId,
        scan_id: scanId,
        verify_finding_ids: verifyFindingIds ? JSON.stringify(verifyFindingIds) : null,
        created_at: now,
      })
      .execute();
  }

  async runOutcome(organizationId: string, runId: string, db: Db = this.db): Promise<WebRunOutcome | null> {
    const r = await db
      .selectFrom('web_runs')
      .select(['verify_finding_ids', 'import_id', 'counts', 'ingest_error'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .executeTakeFirst();
    if (!r) return null;
    return {
      verifyFindingIds: (r.verify_finding_ids as string[] | null) ?? null,
      importId: r.import_id,
      counts: (r.counts as ImportCounts | null) ?? null,
      ingestError: r.ingest_error,
    };
  }

  async setRunImport(
    organizationId: string,
    runId: string,
    outcome: { importId: string; counts: ImportCounts } | { error: string },
  ) {
    await this.db
      .updateTable('web_runs')
      .set(
        'error' in outcome
          ? { ingest_error: outcome.error }
          : { import_id: outcome.importId, counts: JSON.stringify(outcome.counts), ingest_error: null },
      )
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .execute();
  }

  /** A batch of a run's URLs, upserted by URL: a retried attempt keeps one row with the latest result. */
  async addRunUrls(
    organizationId: string,
    scanId: string,
    runId: string,
    results: WebUrlResult[],
    seenAt: Date,
    trx: Transaction<DB>,
  ) {
    if (results.length === 0) return;
    await trx
      .insertInto('web_run_urls')
      .values(
        results.map((r) => ({
          organization_id: organizationId,
          run_id: runId,
          scan_id: scanId,
          url: r.url,
          result: JSON.stringify(r),
          seen_at: seenAt,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'run_id', 'url']).doUpdateSet((eb) => ({
          result: eb.ref('excluded.result'),
          seen_at: eb.ref('excluded.seen_at'),
        })),
      )
      .execute();
  }

  async runUrls(organizationId: string, runId: string): Promise<WebUrlResult[]> {
    const rows = await this.db
      .selectFrom('web_run_urls')
      .select('result')
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .orderBy('url')
      .execute();
    return rows.map((r) => r.result as WebUrlResult);
  }
}
