import { type Kysely, sql } from 'kysely';

// Email notifications of people: what each user asks to receive by email (event types, and
// whether at once or in a daily digest), and the queue of their email, each row written in the
// transaction that dispatches its event, so that no event is lost between the outbox and the mail.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table user_notification_preferences (
      organization_id uuid not null,
      user_id uuid not null,
      -- Event names of the catalogue (finding.created, scan.failed, …).
      event_types text[] not null default '{}',
      mode text not null default 'Immediate' check (mode in ('Immediate', 'Digest')),
      updated_at timestamptz not null,
      primary key (organization_id, user_id)
    )`.execute(db);
  await sql`
    create table notification_email_queue (
      organization_id uuid not null,
      id uuid not null,
      user_id uuid not null,
      event_id text not null,
      event_type text not null,
      -- The event's CloudEvents envelope as it was dispatched: the mail is made from it.
      envelope jsonb not null,
      mode text not null check (mode in ('Immediate', 'Digest')),
      state text not null default 'Pending' check (state in ('Pending', 'Sent', 'Failed', 'Skipped')),
      attempts integer not null default 0,
      last_error text,
      created_at timestamptz not null,
      sent_at timestamptz,
      primary key (organization_id, id),
      unique (organization_id, user_id, event_id)
    )`.execute(db);
  // The digest job reads what is pending by mode; the profile shows a user's latest email.
  await sql`create index notification_email_queue_pending on notification_email_queue (mode, organization_id, user_id, created_at) where state = 'Pending'`.execute(
    db,
  );
  await sql`create index notification_email_queue_by_user on notification_email_queue (organization_id, user_id, created_at desc)`.execute(
    db,
  );
  await addOwnedRules(db);
}

/**
 * Rules a scan or a scan group owns (the original's MessageNotification): they filter on one scan,
 * and say which scan owns them; only their owner changes or removes them. Added to the rules of
 * 0030_c here, as the notifications module's own columns.
 */
async function addOwnedRules(db: Kysely<unknown>): Promise<void> {
  await sql`alter table notification_rules add column scan_id uuid, add column managed_by jsonb`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
