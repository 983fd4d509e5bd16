import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { DB, TicketState } from '../../db/schema.js';
import { joinableAssets } from '../assets/queries.js';
import {
  HISTORY_COLUMNS,
  type HistoryEntryWrite,
  historyEntryValues,
  joinableFindings,
} from '../findings/queries.js';
import type {
  LinkedFinding,
  Ticket,
  TicketComment,
  TicketEvent,
  TicketPatch,
  TicketProgress,
} from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const COLUMNS = [
  't.id',
  't.organization_id as organizationId',
  't.number',
  't.title',
  't.description',
  't.priority',
  't.assignee_user_id as assigneeId',
  't.due_at as dueAt',
  't.state',
  't.created_by_user_id as createdById',
  't.created_at as createdAt',
  't.updated_at as updatedAt',
  't.resolved_at as resolvedAt',
  't.closed_at as closedAt',
  // A count never missing (no subquery row is null): an int, which the driver reads as a number.
  sql<number>`(select count(*)::int from ticket_findings tf
    where tf.organization_id = t.organization_id and tf.ticket_id = t.id)`.as('findingCount'),
] as const;

export class TicketRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  findById(organizationId: string, id: string, db: Db = this.db): Promise<Ticket | undefined> {
    return db
      .selectFrom('tickets as t')
      .select(COLUMNS)
      .where('t.organization_id', '=', organizationId)
      .where('t.id', '=', id)
      .executeTakeFirst();
  }

  async insert(
    organizationId: string,
    t: Pick<
      Ticket,
      'id' | 'number' | 'title' | 'description' | 'priority' | 'assigneeId' | 'dueAt' | 'createdAt'
    > & { createdBy: string | null },
    db: Db,
  ): Promise<void> {
    await db
      .insertInto('tickets')
      .values({
        organization_id: organizationId,
        id: t.id,
        number: t.number,
        title: t.title,
        description: t.description,
        priority: t.priority,
        assignee_user_id: t.assigneeId,
        due_at: t.dueAt,
        state: 'Open',
        created_by_user_id: t.createdBy,
        created_at: t.createdAt,
        updated_at: t.createdAt,
      })
      .execute();
  }

  async update(
    organizationId: string,
    id: string,
    patch: TicketPatch,
    at: Date,
    db: Db = this.db,
  ): Promise<void> {
    await db
      .updateTable('tickets')
      .set({
        title: patch.title,
        description: patch.description,
        priority: patch.priority,
        assignee_user_id: patch.assigneeId,
        due_at: patch.dueAt,
        state: patch.state,
        resolved_at: patch.resolvedAt,
        closed_at: patch.closedAt,
        updated_at: at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('tickets')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async link(
    organizationId: string,
    ticketId: string,
    findingIds: string[],
    at: Date,
    db: Db,
  ): Promise<number> {
    if (findingIds.length === 0) return 0;
    const result = await db
      .insertInto('ticket_findings')
      .values(
        findingIds.map((f) => ({
          organization_id: organizationId,
          ticket_id: ticketId,
          finding_id: f,
          linked_at: at,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  async unlink(organizationId: string, ticketId: string, findingIds: string[], db: Db): Promise<number> {
    if (findingIds.length === 0) return 0;
    const result = await db
      .deleteFrom('ticket_findings')
      .where('organization_id', '=', organizationId)
      .where('ticket_id', '=', ticketId)
      .where('finding_id', 'in', findingIds)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  linkedFindings(organizationId: string, ticketId: string): Promise<LinkedFinding[]> {
    return (
      this.db
        .selectFrom('ticket_findings as tf')
        .innerJoin(joinableFindings('f'), (j) =>
          j.onRef('f.organization_id', '=', 'tf.organization_id').onRef('f.id', '=', 'tf.finding_id'),
        )
        // Where each finding is: findings of one vulnerability differ only by it.
        .innerJoin(joinableAssets('a'), (j) =>
          j.onRef('a.organization_id', '=', 'f.organization_id').onRef('a.id', '=', 'f.asset_id'),
        )
        .select([
          'f.id',
          'f.title',
          'f.state',
          'f.effective_severity as effectiveSeverity',
          'f.asset_id as assetId',
          'a.name as assetName',
          'f.location_kind as locationKind',
          'f.port',
          'f.protocol',
          'f.url',
          'f.parameter',
          'f.file_path as filePath',
          'f.line',
          'f.package_name as packageName',
          'f.package_version as packageVersion',
        ])
        .where('tf.organization_id', '=', organizationId)
        .where('tf.ticket_id', '=', ticketId)
        .orderBy('f.id')
        .execute()
    );
  }

  /** Tickets linked to any of these findings, with how many of their findings are not Fixed and how many Reopened. */
  ticketsOfFindings(organizationId: string, findingIds: string[], db: Db): Promise<TicketProgress[]> {
    // Counts never missing (no subquery row is null): ints, which the driver reads as numbers.
    const linked = (where: RawBuilder<boolean>) =>
      sql<number>`(select count(*)::int from ticket_findings tf
        join ${joinableFindings('f')} on f.organization_id = tf.organization_id and f.id = tf.finding_id
        where tf.organization_id = t.organization_id and tf.ticket_id = t.id and ${where})`;
    return db
      .selectFrom('tickets as t')
      .select([
        't.id',
        't.state',
        linked(sql<boolean>`f.state <> 'Fixed'`).as('unfixed'),
        linked(sql<boolean>`f.state = 'Reopened'`).as('reopened'),
      ])
      .where('t.organization_id', '=', organizationId)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('ticket_findings as x')
            .select('x.ticket_id')
            .whereRef('x.organization_id', '=', 't.organization_id')
            .whereRef('x.ticket_id', '=', 't.id')
            .where('x.finding_id', 'in', findingIds),
        ),
      )
      .execute();
  }

  async addComment(
    organizationId: string,
    c: { id: string; ticketId: string; authorId: string | null; body: string; createdAt: Date },
  ): Promise<void> {
    await this.db
      .insertInto('ticket_comments')
      .values({
        organization_id: organizationId,
        id: c.id,
        ticket_id: c.ticketId,
        author_user_id: c.authorId,
        body: c.body,
        created_at: c.createdAt,
      })
      .execute();
  }

  comments(organizationId: string, ticketId: string): Promise<TicketComment[]> {
    return this.db
      .selectFrom('ticket_comments')
      .select(['id', 'author_user_id as authorId', 'body', 'created_at as createdAt'])
      .where('organization_id', '=', organizationId)
      .where('ticket_id', '=', ticketId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async addEvent(
    organizationId: string,
    e: HistoryEntryWrite & { ticketId: string },
    db: Db = this.db,
  ): Promise<void> {
    await db
      .insertInto('ticket_events')
      .values({ ...historyEntryValues(organizationId, e), ticket_id: e.ticketId })
      .execute();
  }

  events(organizationId: string, ticketId: string): Promise<TicketEvent[]> {
    return this.db
      .selectFrom('ticket_events')
      .select(HISTORY_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('ticket_id', '=', ticketId)
      .orderBy('occurred_at')
      .orderBy('id')
      .execute();
  }

  listPage(
    organizationId: string,
    f: { states?: TicketState[]; assigneeId?: string; search?: string },
    limit: number,
    afterId?: string,
  ): Promise<Ticket[]> {
    let q = this.db
      .selectFrom('tickets as t')
      .select(COLUMNS)
      .where('t.organization_id', '=', organizationId);
    if (f.states?.length) q = q.where('t.state', 'in', f.states);
    if (f.assigneeId) q = q.where('t.assignee_user_id', '=', f.assigneeId);
    if (f.search) q = q.where('t.title', 'ilike', `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    if (afterId) q = q.where('t.id', '<', afterId);
    return q.orderBy('t.id', 'desc').limit(limit).execute();
  }

  async count(
    organizationId: string,
    f: { states?: TicketState[]; assigneeId?: string; search?: string },
  ): Promise<number> {
    let q = this.db
      .selectFrom('tickets as t')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('t.organization_id', '=', organizationId);
    if (f.states?.length) q = q.where('t.state', 'in', f.states);
    if (f.assigneeId) q = q.where('t.assignee_user_id', '=', f.assigneeId);
    if (f.search) q = q.where('t.title', 'ilike', `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }
}
