import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { CreatedAtKey } from '../../lib/cursor.js';
import type { ScanTarget, SystemHostResult } from '../../scanning/types.js';
import type { BackportNote } from '../scanresults/service.js';
import type { SystemRunRecord, SystemScan } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const SCAN_COLUMNS = [
  'id',
  'organization_id',
  'name',
  'targets',
  'exclusions',
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
  targets: unknown;
  exclusions: unknown;
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

function toScan(r: ScanRow): SystemScan {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    targets: r.targets as ScanTarget[],
    exclusions: r.exclusions as string[],
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

export interface SystemScanWrite {
  name: string;
  targets: ScanTarget[];
  exclusions: string[];
  templateId: string;
  nodeId: string | null;
  schedule: ScheduleOption | null;
  scanGroupId: string | null;
}

function writeColumns(w: SystemScanWrite) {
  return {
    name: w.name,
    targets: JSON.stringify(w.targets),
    exclusions: JSON.stringify(w.exclusions),
    template_id: w.templateId,
    node_id: w.nodeId,
    schedule: w.schedule == null ? null : JSON.stringify(w.schedule),
    scan_group_id: w.scanGroupId,
  };
}

/** System scans, what each run was asked and made, and the hosts each run reported. */
export class SystemScanRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insert(organizationId: string, id: string, w: SystemScanWrite, createdBy: string | null, now: Date) {
    const row = await this.db
      .insertInto('system_scans')
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

  async update(organizationId: string, id: string, w: SystemScanWrite, now: Date) {
    const row = await this.db
      .updateTable('system_scans')
      .set({ ...writeColumns(w), updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(SCAN_COLUMNS)
      .executeTakeFirst();
    return row ? toScan(row) : undefined;
  }

  async find(organizationId: string, id: string, db: Db = this.db): Promise<SystemScan | undefined> {
    const row = await db
      .selectFrom('system_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toScan(row) : undefined;
  }

  /** Newest first, one beyond the page size (for the cursor). */
  async page(
    organizationId: string,
    pageSize: number,
    after?: CreatedAtKey,
    scanGroupId?: string,
  ): Promise<SystemScan[]> {
    let q = this.db
      .selectFrom('system_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId);
    if (scanGroupId) q = q.where('scan_group_id', '=', scanGroupId);
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

  async count(organizationId: string, scanGroupId?: string): Promise<number> {
    let q = this.db
      .selectFrom('system_scans')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId);
    if (scanGroupId) q = q.where('scan_group_id', '=', scanGroupId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /** A group's scans, oldest first. */
  async byGroup(organizationId: string, scanGroupId: string): Promise<SystemScan[]> {
    const rows = await this.db
      .selectFrom('system_scans')
      .select(SCAN_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('scan_group_id', '=', scanGroupId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toScan);
  }

  async usesTemplate(organizationId: string, templateId: string): Promise<boolean> {
    const r = await this.db
      .selectFrom('system_scans')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('template_id', '=', templateId)
      .executeTakeFirst();
    return r !== undefined;
  }

  async delete(organizationId: string, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of ['system_run_hosts', 'system_scan_runs'] as const)
        await trx
          .deleteFrom(table)
          .where('organization_id', '=', organizationId)
          .where('scan_id', '=', id)
          .execute();
      await trx
        .deleteFrom('system_scans')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    });
  }

  async setLastRun(organizationId: string, scanId: string, runId: string, db: Db = this.db) {
    await db
      .updateTable('system_scans')
      .set({ last_run_id: runId })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }

  async setCompleted(organizationId: string, scanId: string, runId: string, at: Date, db: Db) {
    await db
      .updateTable('system_scans')
      .set({ last_run_id: runId, last_completed_run_id: runId, last_completed_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', scanId)
      .execute();
  }

  async insertRun(
    organizationId: string,
    r: { runId: string; scanId: string; verifyFindingIds: string[] | null; ports: string },
    db: Db,
  ) {
    await db
      .insertInto('system_scan_runs')
      .values({
        organization_id: organizationId,
        run_id: r.runId,
        scan_id: r.scanId,
        verify_finding_ids: r.verifyFindingIds,
        ports: r.ports,
        counts: null,
        backports: '[]',
      })
      .execute();
  }

  async findRun(
    organizationId: string,
    runId: string,
    db: Db = this.db,
  ): Promise<SystemRunRecord | undefined> {
    const r = await db
      .selectFrom('system_scan_runs')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .executeTakeFirst();
    if (!r) return undefined;
    return {
      runId: r.run_id,
      scanId: r.scan_id,
      verifyFindingIds: r.verify_finding_ids,
      ports: r.ports,
      importId: r.import_id,
      counts: (r.counts as Record<string, number> | null) ?? null,
      backports: (r.backports as BackportNote[]) ?? [],
      ingestError: r.ingest_error,
      ingestedAt: r.ingested_at,
    };
  }

  async recordIngest(
    organizationId: string,
    runId: string,
    outcome: {
      importId: string | null;
      counts: Record<string, number> | null;
      backports: BackportNote[];
      error: string | null;
      at: Date;
    },
  ) {
    await this.db
      .updateTable('system_scan_runs')
      .set({
        import_id: outcome.importId,
        counts: outcome.counts ? JSON.stringify(outcome.counts) : null,
        backports: JSON.stringify(outcome.backports),
        ingest_error: outcome.error,
        ingested_at: outcome.at,
      })
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .execute();
  }

  /** A batch of a run's hosts, upserted by address: an attempt sending a host again replaces it. */
  async addRunHosts(
    organizationId: string,
    scanId: string,
    runId: string,
    hosts: SystemHostResult[],
    seenAt: Date,
    trx: Transaction<DB>,
  ) {
    if (hosts.length === 0) return;
    const unique = [...new Map(hosts.map((h) => [h.address, h])).values()];
    await trx
      .insertInto('system_run_hosts')
      .values(
        unique.map((h) => ({
          organization_id: organizationId,
          run_id: runId,
          scan_id: scanId,
          address: h.address,
          result: JSON.stringify(h),
          seen_at: seenAt,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'run_id', 'address']).doUpdateSet((eb) => ({
          result: eb.ref('excluded.result'),
          seen_at: eb.ref('excluded.seen_at'),
        })),
      )
      .execute();
  }

  async runHosts(organizationId: string, runId: string): Promise<SystemHostResult[]> {
    const rows = await this.db
      .selectFrom('system_run_hosts')
      .select(['result'])
      .where('organization_id', '=', organizationId)
      .where('run_id', '=', runId)
      .orderBy(sql`address::inet`)
      .execute();
    return rows.map((r) => r.result as SystemHostResult);
  }
}
