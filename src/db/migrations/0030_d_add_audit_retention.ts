import { type Kysely, sql } from 'kysely';

// The audit log can be read (GET /auditlog), kept for a time each organisation chooses, and
// never changed: entries are only ever added, and removed only by the retention purge.
//
// - organization_settings.audit_retention_days: days an entry is kept (30 to 3650), null to keep
//   every entry for ever; 365 until an organisation says otherwise.
// - A trigger refuses every UPDATE of audit_events, and every DELETE and TRUNCATE unless the
//   transaction has set rampart.audit_purge to 'on' (set_config(..., true), which lasts to the end
//   of its transaction): only the retention purge does, and a restore, which empties every table
//   of the fresh database it fills. This holds against any code path of the application, not
//   against the database's owner, who can drop the trigger.
// - Indexes for the log's filters: newest first by (occurred_at, id) for keyset pages, and by
//   actor and by target within an organisation.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table organization_settings add column audit_retention_days integer default 365
    check (audit_retention_days is null or audit_retention_days between 30 and 3650)`.execute(db);

  await sql`drop index if exists audit_events_time_idx`.execute(db);
  await sql`create index audit_events_time_idx on audit_events (organization_id, occurred_at desc, id desc)`.execute(
    db,
  );
  await sql`create index audit_events_actor_idx on audit_events (organization_id, actor_id, occurred_at desc)`.execute(
    db,
  );
  await sql`create index audit_events_target_idx
    on audit_events (organization_id, target_type, target_id, occurred_at desc)`.execute(db);
  await sql`create index audit_events_action_idx
    on audit_events (organization_id, action text_pattern_ops, occurred_at desc)`.execute(db);

  await sql`
    create function rampart_audit_events_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'TRUNCATE') and coalesce(current_setting('rampart.audit_purge', true), '') = 'on' then
        return old;
      end if;
      raise exception 'audit_events is append-only: % refused', tg_op
        using errcode = 'insufficient_privilege';
    end
    $$`.execute(db);
  await sql`create trigger audit_events_append_only before update or delete on audit_events
    for each row execute function rampart_audit_events_append_only()`.execute(db);
  await sql`create trigger audit_events_no_truncate before truncate on audit_events
    for each statement execute function rampart_audit_events_append_only()`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
