import { type Kysely, sql } from 'kysely';

// The event outbox (issue 26, item 4): a change writes its events here in its own transaction,
// so that an event exists exactly when its change committed; the events-dispatch job hands the
// pending ones to the consumers (notifications) and marks them dispatched in one transaction.
// seq orders the pending events for dispatch (ids are UUIDv7 from several clocks and statements).
// event_marks remembers occurrences published once only (a finding's SLA breach for one due
// date, a risk acceptance about to end), kept after their events are purged.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table event_outbox (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      seq bigint generated always as identity,
      type text not null,
      schema_version integer not null check (schema_version >= 1),
      subject text,
      time timestamptz not null,
      data jsonb not null,
      facets jsonb not null default '{}',
      created_at timestamptz not null,
      dispatched_at timestamptz,
      primary key (organization_id, id)
    )`.execute(db);
  // Dispatch: the pending events in order, from a small partial index.
  await sql`create index event_outbox_pending_idx on event_outbox (seq) where dispatched_at is null`.execute(
    db,
  );
  // Retention: dispatched events older than the retention are purged.
  await sql`create index event_outbox_dispatched_idx on event_outbox (dispatched_at) where dispatched_at is not null`.execute(
    db,
  );
  // An organisation's latest events, of a type.
  await sql`create index event_outbox_org_idx on event_outbox (organization_id, type, seq desc)`.execute(db);
  // A bulk change of findings names itself in its history rows (details.change): its events are
  // published from them, set-based. Only such rows are indexed.
  await sql`create index finding_events_change_idx on finding_events (organization_id, (details->>'change')) where details ? 'change'`.execute(
    db,
  );
  await sql`
    create table event_marks (
      organization_id uuid not null references organizations (id),
      key text not null,
      created_at timestamptz not null,
      primary key (organization_id, key)
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
