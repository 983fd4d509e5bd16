import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type {
  ReportDefinition,
  ReportFormat,
  ReportKind,
  ReportRun,
  ReportSpec,
  ReportState,
} from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const RUN_COLUMNS = [
  'r.id',
  'r.organization_id as organizationId',
  'r.definition_id as definitionId',
  'r.name',
  'r.kind',
  'r.format',
  'r.spec',
  'r.state',
  'r.progress',
  'r.rows_total as rowsTotal',
  'r.rows_written as rowsWritten',
  'r.error',
  'r.size_bytes as sizeBytes',
  'r.page_count as pageCount',
  'r.content_type as contentType',
  'r.file_name as fileName',
  'r.delivered_at as deliveredAt',
  'r.delivery_error as deliveryError',
  'r.actor_type as actorType',
  'r.actor_id as actorId',
  'r.created_at as createdAt',
  'r.started_at as startedAt',
  'r.finished_at as finishedAt',
] as const;

const DEFINITION_COLUMNS = [
  'd.id',
  'd.organization_id as organizationId',
  'd.name',
  'd.kind',
  'd.format',
  'd.scope',
  'd.filter',
  'd.group_by as groupBy',
  'd.period_days as periodDays',
  'd.schedule',
  'd.recipients',
  'd.created_by as createdBy',
  'd.created_at as createdAt',
  'd.updated_at as updatedAt',
] as const;

const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

// bigint arrives as text; jsonb as parsed JSON.
const toRun = (r: Omit<ReportRun, 'sizeBytes' | 'spec'> & { sizeBytes: string | null; spec: unknown }) => ({
  ...r,
  spec: json(r.spec) as ReportSpec,
  sizeBytes: r.sizeBytes === null ? null : Number(r.sizeBytes),
});

interface DefinitionSelected {
  id: string;
  organizationId: string;
  name: string;
  kind: ReportKind;
  format: ReportFormat;
  scope: unknown;
  filter: unknown;
  groupBy: 'Asset' | 'Vulnerability';
  periodDays: number;
  schedule: unknown;
  recipients: string[];
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const toDefinition = (d: DefinitionSelected): Omit<ReportDefinition, 'nextRunAt'> => ({
  id: d.id,
  organizationId: d.organizationId,
  name: d.name,
  kind: d.kind,
  format: d.format,
  spec: {
    scope: json(d.scope) as ReportSpec['scope'],
    filter: (json(d.filter) as ReportSpec['filter']) ?? null,
    groupBy: d.groupBy,
    periodDays: d.periodDays,
  },
  schedule: (json(d.schedule) as ScheduleOption | null) ?? null,
  recipients: d.recipients,
  createdBy: d.createdBy,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export interface RunInsert {
  id: string;
  definitionId: string | null;
  name: string;
  kind: ReportKind;
  format: ReportFormat;
  spec: ReportSpec;
  actorType: string;
  actorId: string | null;
  createdAt: Date;
}

export interface DefinitionWrite {
  name: string;
  kind: ReportKind;
  format: ReportFormat;
  spec: ReportSpec;
  schedule: ScheduleOption | null;
  recipients: string[];
}

export class ReportRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Inserts a Queued run; false when one with this id exists (a job's retry). */
  async insertRun(organizationId: string, r: RunInsert, db: Db = this.db): Promise<boolean> {
    const inserted = await db
      .insertInto('report_runs')
      .values({
        organization_id: organizationId,
        id: r.id,
        definition_id: r.definitionId,
        name: r.name,
        kind: r.kind,
        format: r.format,
        spec: JSON.stringify(r.spec),
        state: 'Queued',
        actor_type: r.actorType,
        actor_id: r.actorId,
        created_at: r.createdAt,
      })
      .onConflict((oc) => oc.columns(['organization_id', 'id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return !!inserted;
  }

  async findRun(organizationId: string, id: string): Promise<ReportRun | undefined> {
    const row = await this.db
      .selectFrom('report_runs as r')
      .select(RUN_COLUMNS)
      .where('r.organization_id', '=', organizationId)
      .where('r.id', '=', id)
      .executeTakeFirst();
    return row && toRun(row);
  }

  /** Runs newest first, after (createdAt, id); of one definition when given. */
  async listRuns(
    organizationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
    definitionId?: string,
  ): Promise<ReportRun[]> {
    let q = this.db
      .selectFrom('report_runs as r')
      .select(RUN_COLUMNS)
      .where('r.organization_id', '=', organizationId);
    if (definitionId) q = q.where('r.definition_id', '=', definitionId);
    if (after)
      q = q.where(sql<boolean>`(r.created_at, r.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
    const rows = await q.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc').limit(limit).execute();
    return rows.map(toRun);
  }

  async countRuns(organizationId: string, definitionId?: string): Promise<number> {
    let q = this.db
      .selectFrom('report_runs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId);
    if (definitionId) q = q.where('definition_id', '=', definitionId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /** Marks a run Running (again, on a retry: its chunks of an earlier attempt removed). */
  async startRun(organizationId: string, id: string, at: Date, rowsTotal: number | null): Promise<void> {
    await this.transaction(async (trx) => {
      await trx
        .deleteFrom('report_chunks')
        .where('organization_id', '=', organizationId)
        .where('report_id', '=', id)
        .execute();
      await trx
        .updateTable('report_runs')
        .set({
          state: 'Running',
          started_at: at,
          progress: 0,
          rows_written: 0,
          rows_total: rowsTotal,
          error: null,
        })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    });
  }

  async progress(organizationId: string, id: string, progress: number, rowsWritten: number): Promise<void> {
    await this.db
      .updateTable('report_runs')
      .set({ progress, rows_written: rowsWritten })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async finishRun(
    organizationId: string,
    id: string,
    outcome:
      | {
          state: 'Completed';
          at: Date;
          sizeBytes: number;
          pageCount: number | null;
          contentType: string;
          fileName: string;
          rowsWritten: number;
        }
      | { state: 'Failed'; at: Date; error: string },
  ): Promise<void> {
    const set =
      outcome.state === 'Completed'
        ? {
            state: 'Completed' as ReportState,
            finished_at: outcome.at,
            progress: 100,
            size_bytes: outcome.sizeBytes,
            page_count: outcome.pageCount,
            content_type: outcome.contentType,
            file_name: outcome.fileName,
            rows_written: outcome.rowsWritten,
            error: null,
          }
        : { state: 'Failed' as ReportState, finished_at: outcome.at, error: outcome.error };
    await this.db
      .updateTable('report_runs')
      .set(set)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async recordDelivery(
    organizationId: string,
    id: string,
    outcome: { deliveredAt: Date | null; error: string | null },
  ): Promise<void> {
    await this.db
      .updateTable('report_runs')
      .set({ delivered_at: outcome.deliveredAt, delivery_error: outcome.error })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  /** Removes a run and its file; false when there was none. */
  async removeRun(organizationId: string, id: string): Promise<boolean> {
    const removed = await this.db
      .deleteFrom('report_runs')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    return !!removed;
  }

  /**
   * Retention: the finished runs of each definition beyond its newest `keepPerDefinition`, and
   * every finished run older than `before`, are removed with their files. Returns how many.
   */
  async purge(keepPerDefinition: number, before: Date): Promise<number> {
    const result = await sql<{ n: string }>`
      with ranked as (
        select organization_id, id, created_at, definition_id,
          row_number() over (partition by organization_id, definition_id order by created_at desc, id desc) as n
        from report_runs
        where state in ('Completed', 'Failed')
      ), gone as (
        delete from report_runs r using ranked k
        where r.organization_id = k.organization_id and r.id = k.id
          and (k.created_at < ${before} or (k.definition_id is not null and k.n > ${keepPerDefinition}))
        returning 1
      )
      select count(*) as n from gone`.execute(this.db);
    return Number(result.rows[0]?.n ?? 0);
  }

  /** Appends one chunk of a run's file. */
  async writeChunk(organizationId: string, reportId: string, seq: number, data: Buffer): Promise<void> {
    await this.db
      .insertInto('report_chunks')
      .values({ organization_id: organizationId, report_id: reportId, seq, data })
      .execute();
  }

  /** A run's file, chunk by chunk in order: one chunk in memory at a time. */
  async *readChunks(organizationId: string, reportId: string): AsyncGenerator<Buffer> {
    let seq = -1;
    for (;;) {
      const row = await this.db
        .selectFrom('report_chunks')
        .select(['seq', 'data'])
        .where('organization_id', '=', organizationId)
        .where('report_id', '=', reportId)
        .where('seq', '>', seq)
        .orderBy('seq')
        .limit(1)
        .executeTakeFirst();
      if (!row) return;
      seq = row.seq;
      yield row.data;
    }
  }

  async insertDefinition(
    organizationId: string,
    id: string,
    d: DefinitionWrite,
    createdBy: string | null,
    at: Date,
  ): Promise<void> {
    await this.db
      .insertInto('report_definitions')
      .values({
        organization_id: organizationId,
        id,
        ...this.definitionColumns(d),
        created_by: createdBy,
        created_at: at,
        updated_at: at,
      })
      .execute();
  }

  async updateDefinition(organizationId: string, id: string, d: DefinitionWrite, at: Date): Promise<boolean> {
    const updated = await this.db
      .updateTable('report_definitions')
      .set({ ...this.definitionColumns(d), updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    return !!updated;
  }

  private definitionColumns(d: DefinitionWrite) {
    return {
      name: d.name,
      kind: d.kind,
      format: d.format,
      scope: JSON.stringify(d.spec.scope),
      filter: d.spec.filter ? JSON.stringify(d.spec.filter) : null,
      group_by: d.spec.groupBy,
      period_days: d.spec.periodDays,
      schedule: d.schedule ? JSON.stringify(d.schedule) : null,
      recipients: d.recipients,
    };
  }

  async findDefinition(
    organizationId: string,
    id: string,
  ): Promise<Omit<ReportDefinition, 'nextRunAt'> | undefined> {
    const row = await this.db
      .selectFrom('report_definitions as d')
      .select(DEFINITION_COLUMNS)
      .where('d.organization_id', '=', organizationId)
      .where('d.id', '=', id)
      .executeTakeFirst();
    return row && toDefinition(row as DefinitionSelected);
  }

  async listDefinitions(
    organizationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<Omit<ReportDefinition, 'nextRunAt'>[]> {
    let q = this.db
      .selectFrom('report_definitions as d')
      .select(DEFINITION_COLUMNS)
      .where('d.organization_id', '=', organizationId);
    if (after)
      q = q.where(sql<boolean>`(d.created_at, d.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
    const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
    return rows.map((r) => toDefinition(r as DefinitionSelected));
  }

  async countDefinitions(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('report_definitions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Removes a definition; its runs stay in the history, no longer linked to it. */
  async removeDefinition(organizationId: string, id: string): Promise<boolean> {
    return this.transaction(async (trx) => {
      await trx
        .updateTable('report_runs')
        .set({ definition_id: null })
        .where('organization_id', '=', organizationId)
        .where('definition_id', '=', id)
        .execute();
      const removed = await trx
        .deleteFrom('report_definitions')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      return !!removed;
    });
  }
}
