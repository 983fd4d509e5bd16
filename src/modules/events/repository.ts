import { type Kysely, type RawBuilder, type Selectable, sql, type Transaction } from 'kysely';
import type { DB, EventOutboxTable } from '../../db/schema.js';
import type { EventType } from './catalogue.js';
import type { EventFacets, EventRowsQuery, Executor, StoredEvent } from './types.js';

/** A row to write to the outbox, every value decided by the service. */
export interface OutboxInsert {
  organizationId: string;
  id: string;
  type: EventType;
  schemaVersion: number;
  subject: string | null;
  time: Date;
  data: unknown;
  facets: EventFacets;
  createdAt: Date;
}

/** Rows a statement may carry: 9 parameters a row, well under PostgreSQL's 65,535. */
const INSERT_CHUNK = 1000;

const toStored = (r: Selectable<EventOutboxTable>): StoredEvent => ({
  organizationId: r.organization_id,
  id: r.id,
  type: r.type as EventType,
  schemaVersion: r.schema_version,
  time: new Date(r.time),
  subject: r.subject,
  data: r.data,
  facets: (r.facets ?? {}) as EventFacets,
});

/** The SQL of the event outbox (tables event_outbox and event_marks). */
export class EventRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Writes the events with the given executor: in the caller's transaction when it is one. */
  async insert(db: Executor, rows: readonly OutboxInsert[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      await db
        .insertInto('event_outbox')
        .values(
          chunk.map((r) => ({
            organization_id: r.organizationId,
            id: r.id,
            type: r.type,
            schema_version: r.schemaVersion,
            subject: r.subject,
            time: r.time,
            data: JSON.stringify(r.data),
            facets: JSON.stringify(r.facets),
            created_at: r.createdAt,
          })),
        )
        .execute();
    }
  }

  /**
   * Writes one event of `type` for each row `rows` yields, in one statement (INSERT … SELECT), so
   * that a merge of a million findings publishes without a round trip a row. With `once`, a row
   * whose mark_key is already marked is left out, and the others are marked in the same statement.
   * Returns how many events were written.
   */
  async insertFromQuery(
    db: Executor,
    params: { type: EventType; schemaVersion: number; time: Date; once: boolean },
    rows: RawBuilder<EventRowsQuery>,
  ): Promise<number> {
    const { type, schemaVersion, time, once } = params;
    const result = once
      ? await sql`
          with candidates as (${rows}),
          marked as (
            insert into event_marks (organization_id, key, created_at)
            select distinct organization_id, mark_key, ${time}::timestamptz from candidates
            on conflict do nothing
            returning organization_id, key
          )
          insert into event_outbox (organization_id, id, type, schema_version, subject, time, data, facets, created_at)
          select c.organization_id, rampart_uuidv7(), ${type}, ${schemaVersion}, c.subject, ${time}::timestamptz,
                 c.data, c.facets, ${time}::timestamptz
          from candidates c
          join marked m on m.organization_id = c.organization_id and m.key = c.mark_key`.execute(db)
      : await sql`
          insert into event_outbox (organization_id, id, type, schema_version, subject, time, data, facets, created_at)
          select c.organization_id, rampart_uuidv7(), ${type}, ${schemaVersion}, c.subject, ${time}::timestamptz,
                 c.data, c.facets, ${time}::timestamptz
          from (${rows}) c`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  }

  /**
   * Marks `keys` of the organisation as published; returns the keys that were not marked before
   * (the caller publishes those only). In the caller's transaction.
   */
  async mark(db: Executor, organizationId: string, keys: readonly string[], now: Date): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await db
      .insertInto('event_marks')
      .values(keys.map((key) => ({ organization_id: organizationId, key, created_at: now })))
      .onConflict((oc) => oc.doNothing())
      .returning('key')
      .execute();
    return new Set(rows.map((r) => r.key));
  }

  /**
   * Locks up to `limit` undispatched events, oldest first, skipping those another dispatcher holds:
   * each event is in one dispatcher's batch only.
   */
  async claimPending(trx: Transaction<DB>, limit: number): Promise<StoredEvent[]> {
    const rows = await trx
      .selectFrom('event_outbox')
      .selectAll()
      .where('dispatched_at', 'is', null)
      .orderBy('seq')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    return rows.map(toStored);
  }

  async markDispatched(trx: Transaction<DB>, events: readonly StoredEvent[], now: Date): Promise<void> {
    if (events.length === 0) return;
    const byOrg = new Map<string, string[]>();
    for (const e of events) byOrg.set(e.organizationId, [...(byOrg.get(e.organizationId) ?? []), e.id]);
    for (const [organizationId, ids] of byOrg)
      await trx
        .updateTable('event_outbox')
        .set({ dispatched_at: now })
        .where('organization_id', '=', organizationId)
        .where('id', 'in', ids)
        .execute();
  }

  /** Whether any event waits for dispatch (the partial index answers it). */
  async hasPending(): Promise<boolean> {
    const row = await this.db
      .selectFrom('event_outbox')
      .select('id')
      .where('dispatched_at', 'is', null)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** For the metrics, across organisations: the undispatched events and the oldest one's creation. */
  async backlog(): Promise<{ count: number; oldestCreatedAt: Date | null }> {
    const row = await this.db
      .selectFrom('event_outbox')
      .select([(eb) => eb.fn.countAll<string>().as('n'), (eb) => eb.fn.min('created_at').as('oldest')])
      .where('dispatched_at', 'is', null)
      .executeTakeFirst();
    const oldest = row?.oldest ?? null;
    return { count: Number(row?.n ?? 0), oldestCreatedAt: oldest === null ? null : new Date(oldest) };
  }

  /** Deletes the events dispatched before `before`; returns how many. */
  async purgeDispatched(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('event_outbox')
      .where('dispatched_at', 'is not', null)
      .where('dispatched_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The organisation's events, newest first, of `types` when given. */
  async listRecent(
    organizationId: string,
    options: { types?: readonly EventType[]; limit: number; db?: Executor },
  ): Promise<StoredEvent[]> {
    let query = (options.db ?? this.db)
      .selectFrom('event_outbox')
      .selectAll()
      .where('organization_id', '=', organizationId);
    if (options.types?.length) query = query.where('type', 'in', options.types);
    const rows = await query.orderBy('seq', 'desc').limit(options.limit).execute();
    return rows.map(toStored);
  }
}
