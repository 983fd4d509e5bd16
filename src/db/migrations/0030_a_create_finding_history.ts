import { type Kysely, sql } from 'kysely';

// History that makes trends possible (src/modules/history): one row per organisation, scope and
// day, where the scope is the whole organisation (scope_key ''), an asset tag (the tag) or a scan
// group (its id). A day is a calendar day in the organisation's time zone (time_zone, added to
// its settings here); each row holds the figures at the end of that day and what happened during
// it. Rows are replaced whole when a day is computed again, so the daily job is idempotent.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table finding_history (
      organization_id uuid not null references organizations (id) on delete cascade,
      scope_kind text not null check (scope_kind in ('Organization', 'Tag', 'ScanGroup')),
      scope_key text not null,
      day date not null,
      open_critical integer not null default 0,
      open_high integer not null default 0,
      open_medium integer not null default 0,
      open_low integer not null default 0,
      open_info integer not null default 0,
      state_open integer not null default 0,
      state_reopened integer not null default 0,
      state_risk_accepted integer not null default 0,
      state_false_positive integer not null default 0,
      state_fixed integer not null default 0,
      new_count integer not null default 0,
      fixed_count integer not null default 0,
      reopened_count integer not null default 0,
      past_sla integer not null default 0,
      due_soon integer not null default 0,
      risk_exposure numeric not null default 0,
      kev_open integer not null default 0,
      assets_seen integer not null default 0,
      assets_scanned integer not null default 0,
      mttr_critical_mean numeric, mttr_critical_median numeric, mttr_critical_count integer not null default 0,
      mttr_high_mean numeric, mttr_high_median numeric, mttr_high_count integer not null default 0,
      mttr_medium_mean numeric, mttr_medium_median numeric, mttr_medium_count integer not null default 0,
      mttr_low_mean numeric, mttr_low_median numeric, mttr_low_count integer not null default 0,
      mttr_info_mean numeric, mttr_info_median numeric, mttr_info_count integer not null default 0,
      computed_at timestamptz not null,
      primary key (organization_id, scope_kind, scope_key, day)
    )`.execute(db);
  // How far an organisation's history was built, and by which version of the computation: a
  // different version (an upgrade that counts differently) rebuilds it from the findings' history.
  await sql`
    create table finding_history_builds (
      organization_id uuid primary key references organizations (id) on delete cascade,
      version integer not null,
      state text not null check (state in ('Queued', 'Running', 'Completed', 'Failed')),
      first_day date,
      last_day date,
      days_done integer not null default 0,
      days_total integer not null default 0,
      started_at timestamptz,
      finished_at timestamptz,
      last_error text,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`alter table organization_settings add column time_zone text not null default 'UTC'`.execute(db);
  // The history reads the events of a span of time (a day, or everything after a day).
  await sql`create index finding_events_time_idx on finding_events (organization_id, occurred_at)`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
