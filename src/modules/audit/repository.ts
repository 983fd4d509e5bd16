import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import { uuidv7 } from '../../lib/uuidv7.js';

export type AuditActorType = 'user' | 'apikey' | 'system' | 'cli';

export interface AuditInsert {
  organizationId: string;
  actorType: AuditActorType;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  ipAddress: string | null;
  requestId: string | null;
  occurredAt: Date;
}

/** One entry of the audit log as stored. */
export interface AuditEntry {
  id: string;
  occurredAt: Date;
  actorType: AuditActorType;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  ipAddress: string | null;
  requestId: string | null;
}

/** What a reader of the log narrows it to; every field is optional and they all hold together. */
export interface AuditFilter {
  actorType?: AuditActorType;
  actorId?: string;
  /** What the system or the command line did (entries without an actor id). */
  actorIs?: 'system' | 'cli';
  /** The exact action, or every action starting so when `actionPrefix`. */
  action?: string;
  actionPrefix?: boolean;
  targetType?: string;
  targetId?: string;
  /** Entries at or after this time. */
  from?: Date;
  /** Entries at or before this time. */
  to?: Date;
}

const COLUMNS = [
  'id',
  'occurred_at as occurredAt',
  'actor_type as actorType',
  'actor_id as actorId',
  'action',
  'target_type as targetType',
  'target_id as targetId',
  'details',
  'ip_address as ipAddress',
  'request_id as requestId',
] as const;

/** `like` pattern of a literal prefix (its %, _ and \ taken as themselves). */
const prefixPattern = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class AuditRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(e: AuditInsert): Promise<void> {
    await this.db
      .insertInto('audit_events')
      .values({
        organization_id: e.organizationId,
        id: uuidv7(),
        occurred_at: e.occurredAt,
        actor_type: e.actorType,
        actor_id: e.actorId,
        action: e.action,
        target_type: e.targetType,
        target_id: e.targetId,
        details: JSON.stringify(e.details),
        ip_address: e.ipAddress,
        request_id: e.requestId,
      })
      .execute();
  }

  listRecent(organizationId: string, limit: number) {
    return this.db
      .selectFrom('audit_events')
      .select([
        'id',
        'occurred_at',
        'actor_type',
        'actor_id',
        'action',
        'target_type',
        'target_id',
        'details',
      ])
      .where('organization_id', '=', organizationId)
      .orderBy('occurred_at', 'desc')
      .limit(limit)
      .execute();
  }

  private filtered(organizationId: string, f: AuditFilter) {
    let q: SelectQueryBuilder<DB, 'audit_events', object> = this.db
      .selectFrom('audit_events')
      .where('organization_id', '=', organizationId);
    if (f.actorType) q = q.where('actor_type', '=', f.actorType);
    if (f.actorId) q = q.where('actor_id', '=', f.actorId);
    if (f.actorIs) q = q.where('actor_type', '=', f.actorIs);
    if (f.action !== undefined)
      q = f.actionPrefix
        ? q.where(sql<boolean>`action like ${prefixPattern(f.action)}`)
        : q.where('action', '=', f.action);
    if (f.targetType) q = q.where('target_type', '=', f.targetType);
    if (f.targetId) q = q.where('target_id', '=', f.targetId);
    if (f.from) q = q.where('occurred_at', '>=', f.from);
    if (f.to) q = q.where('occurred_at', '<=', f.to);
    return q;
  }

  /** Entries newest first, after the (occurredAt, id) key when given; `limit` of them. */
  async listPage(
    organizationId: string,
    f: AuditFilter,
    limit: number,
    after?: { occurredAt: string; id: string },
  ): Promise<AuditEntry[]> {
    let q = this.filtered(organizationId, f).select(COLUMNS);
    if (after)
      q = q.where(sql<boolean>`(occurred_at, id) < (${after.occurredAt}::timestamptz, ${after.id}::uuid)`);
    return (await q
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()) as AuditEntry[];
  }

  async count(organizationId: string, f: AuditFilter): Promise<number> {
    const row = await this.filtered(organizationId, f)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every entry that matches, newest first, read from the database in chunks (CSV export). */
  stream(organizationId: string, f: AuditFilter): AsyncIterableIterator<AuditEntry> {
    return this.filtered(organizationId, f)
      .select(COLUMNS)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .stream(1000) as AsyncIterableIterator<AuditEntry>;
  }

  /**
   * Deletes the organisation's entries older than `before`: the one delete the append-only trigger
   * lets through, because this transaction (and only it) sets rampart.audit_purge.
   */
  async purgeBefore(organizationId: string, before: Date): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select set_config('rampart.audit_purge', 'on', true)`.execute(trx);
      const result = await trx
        .deleteFrom('audit_events')
        .where('organization_id', '=', organizationId)
        .where('occurred_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
}
