import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Import } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const IMPORT_COLUMNS = [
  'id',
  'state',
  'format',
  'format_confidence as formatConfidence',
  'scope_name as scopeName',
  'file_name as fileName',
  'file_sha256 as fileSha256',
  'file_size as fileSize',
  'actor_type as actorType',
  'actor_id as actorId',
  'counts',
  'warnings',
  'error',
  'created_at as createdAt',
  'started_at as startedAt',
  'finished_at as finishedAt',
] as const;

type ImportSelected = Omit<Import, 'formatConfidence' | 'fileSize'> & {
  formatConfidence: string | null;
  fileSize: string;
};

// numeric and bigint columns arrive as strings.
const toImport = (r: ImportSelected): Import => ({
  ...r,
  formatConfidence: r.formatConfidence === null ? null : Number(r.formatConfidence),
  fileSize: Number(r.fileSize),
});

export class ImportRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async create(
    organizationId: string,
    row: {
      id: string;
      fileName: string | null;
      fileSha256: string;
      fileSize: number;
      format: string | null;
      scopeName: string | null;
      actorType: string;
      actorId: string | null;
      createdAt: Date;
    },
    db: Db = this.db,
  ): Promise<void> {
    await db
      .insertInto('imports')
      .values({
        organization_id: organizationId,
        id: row.id,
        state: 'Queued',
        format: row.format,
        scope_name: row.scopeName,
        file_name: row.fileName,
        file_sha256: row.fileSha256,
        file_size: row.fileSize,
        actor_type: row.actorType,
        actor_id: row.actorId,
        counts: '{}',
        warnings: [],
        created_at: row.createdAt,
        heartbeat_at: row.createdAt,
      })
      .execute();
  }

  async findById(organizationId: string, id: string): Promise<Import | undefined> {
    const row = await this.db
      .selectFrom('imports')
      .select(IMPORT_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toImport(row);
  }

  async listPage(
    organizationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<Import[]> {
    let q = this.db
      .selectFrom('imports')
      .select(IMPORT_COLUMNS)
      .where('organization_id', '=', organizationId);
    if (after)
      q = q.where(sql<boolean>`(created_at, id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toImport);
  }

  async count(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('imports')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async markRunning(organizationId: string, id: string, at: Date, db: Db = this.db): Promise<void> {
    await db
      .updateTable('imports')
      .set({ state: 'Running', started_at: at, heartbeat_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async finish(
    organizationId: string,
    id: string,
    outcome: {
      state: 'Completed' | 'Failed';
      format: string | null;
      formatConfidence: number | null;
      counts: Record<string, number>;
      warnings: string[];
      error: string | null;
      at: Date;
    },
    db: Db = this.db,
  ): Promise<void> {
    await db
      .updateTable('imports')
      .set({
        state: outcome.state,
        format: outcome.format,
        format_confidence: outcome.formatConfidence === null ? null : outcome.formatConfidence.toFixed(2),
        counts: JSON.stringify(outcome.counts),
        warnings: outcome.warnings,
        error: outcome.error,
        finished_at: outcome.at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async heartbeat(organizationId: string, id: string, at: Date): Promise<void> {
    await this.db
      .updateTable('imports')
      .set({ heartbeat_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  /** The import's state, its row locked for the transaction (one merge at a time). */
  async lockState(organizationId: string, id: string, trx: Transaction<DB>): Promise<string | undefined> {
    const row = await trx
      .selectFrom('imports')
      .select('state')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    return row?.state;
  }

  /** Every organisation's Queued and Running imports (the sweep of abandoned ones). */
  async listUnfinished(): Promise<{ organizationId: string; id: string }[]> {
    return this.db
      .selectFrom('imports')
      .select(['organization_id as organizationId', 'id'])
      .where('state', 'in', ['Queued', 'Running'])
      .orderBy('created_at')
      .execute();
  }

  /** Marks the import Failed when it is still Queued or Running; false when it had ended. */
  async failIfUnfinished(organizationId: string, id: string, reason: string, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('imports')
      .set({ state: 'Failed', error: reason, finished_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('state', 'in', ['Queued', 'Running'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
