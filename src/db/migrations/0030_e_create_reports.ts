import { type Kysely, sql } from 'kysely';

// Reports (docs/reports.md): saved report definitions (what to report on, in which format, on
// which schedule, to whom), the runs that made a report file (its history, state and progress),
// and each file's bytes in chunks of at most 1 MiB, so that every instance can serve a report
// another made and neither writing nor downloading holds a whole file in memory.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table report_definitions (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      name text not null,
      kind text not null check (kind in ('Executive', 'Technical')),
      format text not null check (format in ('Pdf', 'Html', 'Csv')),
      -- Organization, Tag or ScanGroup, with the tag or the group's id; a findings filter beside it.
      scope jsonb not null,
      filter jsonb,
      group_by text not null default 'Asset' check (group_by in ('Asset', 'Vulnerability')),
      period_days integer not null default 30,
      -- The ScheduleOption it runs on (Weekly or Monthly), or null: run by hand only.
      schedule jsonb,
      recipients text[] not null default '{}',
      created_by uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create index report_definitions_created_idx on report_definitions (organization_id, created_at, id)`.execute(
    db,
  );
  await sql`
    create table report_runs (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      -- The definition it ran for (scheduled or run by hand), or null for an ad hoc report.
      definition_id uuid,
      name text not null,
      kind text not null,
      format text not null,
      -- What it reports on, as asked: scope, filter, grouping and period.
      spec jsonb not null,
      state text not null check (state in ('Queued', 'Running', 'Completed', 'Failed')),
      progress integer not null default 0,
      rows_total integer,
      rows_written integer not null default 0,
      error text,
      size_bytes bigint,
      page_count integer,
      content_type text,
      file_name text,
      -- Scheduled reports mailed to the definition's recipients: when, or why not.
      delivered_at timestamptz,
      delivery_error text,
      actor_type text not null,
      actor_id uuid,
      created_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create index report_runs_created_idx on report_runs (organization_id, created_at, id)`.execute(
    db,
  );
  await sql`create index report_runs_definition_idx on report_runs (organization_id, definition_id, created_at)`.execute(
    db,
  );
  await sql`
    create table report_chunks (
      organization_id uuid not null,
      report_id uuid not null,
      seq integer not null,
      data bytea not null,
      primary key (organization_id, report_id, seq),
      foreign key (organization_id, report_id) references report_runs (organization_id, id) on delete cascade
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
