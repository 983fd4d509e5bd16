import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Import } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const IMPORT_COLUMNS = [
  'i.id',
  'i.state',
  'i.format',
  'i.format_confidence as formatConfidence',
  'i.scope_name as scopeName',
  'i.file_name as fileName',
  'i.file_sha256 as fileSha256',
  'i.file_size as fileSize',
  'i.actor_type as actorType',
  'i.actor_id as actorId',
  'i.counts',
  'i.warnings',
  'i.error',
  'i.created_at as createdAt',
  'i.started_at as startedAt',
  'i.finished_at as finishedAt',
  'same.id as sameFileId',
  'same.created_at as sameFileAt',
] as const;

type ImportSelected = Omit<Import, 'formatConfidence' | 'fileSize' | 'sameFileAs'> & {
  formatConfidence: string | null;
  fileSize: string;
  sameFileId: string | null;
  sameFileAt: Date | null;
};

// numeric and bigint columns arrive as strings.
const toImport = ({ sameFileId, sameFileAt, ...r }: ImportSelected): Import => ({
  ...r,
  formatConfidence: r.formatConfidence === null ? null : Number(r.formatConfidence),
  fileSize: Number(r.fileSize),
  sameFileAs: sameFileId && sameFileAt ? { id: sameFileId, createdAt: sameFileAt } : null,
});

/**
 * Imports `i`, each with the latest earlier import of its organisation whose upload had the same
 * SHA-256 (`same`, by imports_file_sha256_idx): the same file imported again.
 */
function importsWithSameFile(db: Db) {
  return db.selectFrom('imports as i').leftJoinLateral(
    (eb) =>
      eb
        .selectFrom('imports as p')
        .select(['p.id', 'p.created_at'])
        .whereRef('p.organization_id', '=', 'i.organization_id')
        .whereRef('p.file_sha256', '=', 'i.file_sha256')
        .where(sql<boolean>`(p.created_at, p.id) < (i.created_at, i.id)`)
        .orderBy('p.created_at', 'desc')
        .orderBy('p.id', 'desc')
        .limit(1)
        .as('same'),
    (join) => join.onTrue(),
  );
}

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
    const row = await importsWithSameFile(this.db)
      .select(IMPORT_COLUMNS)
      .where('i.organization_id', '=', organizationId)
      .where('i.id', '=', id)
      .executeTakeFirst();
    return row && toImport(row);
  }

  async listPage(
    organizationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<Import[]> {
    let q = importsWithSameFile(this.db)
      .select(IMPORT_COLUMNS)
      .where('i.organization_id', '=', organizationId);
    if (after)
      q = q.where(sql<boolean>`(i.created_at, i.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
    const rows = await q.orderBy('i.created_at', 'desc').orderBy('i.id', 'desc').limit(limit).execute();
    return rows.map(toImport);
  }

  /** The latest `limit` imports, newest first, of any scope or of these scopes only. */
  async recent(organizationId: string, limit: number, scopeNames?: string[]): Promise<Import[]> {
    let q = importsWithSameFile(this.db)
      .select(IMPORT_COLUMNS)
      .where('i.organization_id', '=', organizationId);
    if (scopeNames !== undefined)
      q = scopeNames.length ? q.where('i.scope_name', 'in', scopeNames) : q.where(sql<boolean>`false`);
    const rows = await q.orderBy('i.created_at', 'desc').orderBy('i.id', 'desc').limit(limit).execute();
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
