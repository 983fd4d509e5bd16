import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

export type EmailMode = 'Immediate' | 'Digest';
export type EmailState = 'Pending' | 'Sent' | 'Failed' | 'Skipped';

export interface PreferenceRow {
  organization_id: string;
  user_id: string;
  event_types: string[];
  mode: EmailMode;
  updated_at: Date;
}

export interface QueueInsert {
  organizationId: string;
  id: string;
  userId: string;
  eventId: string;
  eventType: string;
  envelope: Record<string, unknown>;
  mode: EmailMode;
  createdAt: Date;
}

export interface QueueRow {
  organization_id: string;
  id: string;
  user_id: string;
  event_id: string;
  event_type: string;
  envelope: Record<string, unknown>;
  mode: EmailMode;
  state: EmailState;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

type Executor = Kysely<DB> | Transaction<DB>;

/** The most events one digest lists; more wait for the next one (a bounded email and memory). */
export const DIGEST_MAX_EVENTS = 500;

export class EmailNotificationRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  findPreferences(organizationId: string, userId: string): Promise<PreferenceRow | undefined> {
    return this.db
      .selectFrom('user_notification_preferences')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst() as Promise<PreferenceRow | undefined>;
  }

  async savePreferences(
    organizationId: string,
    userId: string,
    eventTypes: string[],
    mode: EmailMode,
    at: Date,
  ): Promise<void> {
    await this.db
      .insertInto('user_notification_preferences')
      .values({
        organization_id: organizationId,
        user_id: userId,
        event_types: eventTypes,
        mode,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'user_id'])
          .doUpdateSet({ event_types: eventTypes, mode, updated_at: at }),
      )
      .execute();
  }

  /** The users of these organisations who asked for any of these event types. */
  subscribers(db: Executor, organizationIds: string[], eventTypes: string[]): Promise<PreferenceRow[]> {
    if (organizationIds.length === 0 || eventTypes.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('user_notification_preferences')
      .selectAll()
      .where('organization_id', 'in', organizationIds)
      .where(sql<boolean>`event_types && ${sql.val(eventTypes)}::text[]`)
      .execute() as Promise<PreferenceRow[]>;
  }

  /** Queues email in the caller's transaction; an event already queued for a user is not queued twice. */
  async enqueue(db: Executor, rows: QueueInsert[]): Promise<{ id: string; organizationId: string }[]> {
    if (rows.length === 0) return [];
    const inserted = await db
      .insertInto('notification_email_queue')
      .values(
        rows.map((r) => ({
          organization_id: r.organizationId,
          id: r.id,
          user_id: r.userId,
          event_id: r.eventId,
          event_type: r.eventType,
          envelope: JSON.stringify(r.envelope),
          mode: r.mode,
          created_at: r.createdAt,
          sent_at: null,
          last_error: null,
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'user_id', 'event_id']).doNothing())
      .returning(['id', 'organization_id'])
      .execute();
    return inserted.map((r) => ({ id: r.id, organizationId: r.organization_id }));
  }

  find(organizationId: string, id: string): Promise<QueueRow | undefined> {
    return this.db
      .selectFrom('notification_email_queue')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst() as Promise<QueueRow | undefined>;
  }

  /** Records the end (Sent, Failed, Skipped) or a failed attempt (Pending with its error) of rows. */
  async mark(
    organizationId: string,
    ids: string[],
    change: { state: EmailState; error: string | null; at: Date },
    trx?: Transaction<DB>,
  ): Promise<void> {
    if (ids.length === 0) return;
    await (trx ?? this.db)
      .updateTable('notification_email_queue')
      .set({
        state: change.state,
        last_error: change.error,
        attempts: sql<number>`attempts + 1`,
        ...(change.state === 'Sent' ? { sent_at: change.at } : {}),
      })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  }

  /** Why a pending email waits, without counting an attempt. */
  async note(organizationId: string, id: string, why: string): Promise<void> {
    await this.db
      .updateTable('notification_email_queue')
      .set({ last_error: why })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('state', '=', 'Pending')
      .execute();
  }

  /** The organisations and users with digest email waiting from before `before` (any organisation). */
  digestRecipients(): Promise<{ organization_id: string; user_id: string }[]> {
    return this.db
      .selectFrom('notification_email_queue')
      .select(['organization_id', 'user_id'])
      .where('mode', '=', 'Digest')
      .where('state', '=', 'Pending')
      .groupBy(['organization_id', 'user_id'])
      .execute();
  }

  /**
   * A user's pending digest rows made before `before`, oldest first and bounded, locked for the
   * sender (another instance's digest job passes them by).
   */
  claimDigest(
    trx: Transaction<DB>,
    organizationId: string,
    userId: string,
    before: Date,
  ): Promise<QueueRow[]> {
    return trx
      .selectFrom('notification_email_queue')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('mode', '=', 'Digest')
      .where('state', '=', 'Pending')
      .where('created_at', '<', before)
      .orderBy('created_at')
      .orderBy('id')
      .limit(DIGEST_MAX_EVENTS)
      .forUpdate()
      .skipLocked()
      .execute() as Promise<QueueRow[]>;
  }

  /** A user's latest email, newest first, for My profile. */
  recent(organizationId: string, userId: string, limit: number): Promise<QueueRow[]> {
    return this.db
      .selectFrom('notification_email_queue')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute() as Promise<QueueRow[]>;
  }
}
