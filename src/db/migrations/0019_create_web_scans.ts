import { type Kysely, sql } from 'kysely';

// Web scans: saved URLs with a web template and a node; each run is a scan run of the
// scanruns module (referred to by id only). What a run reported is kept per URL, upserted so that
// a retried attempt sending the same URL again keeps one row; what became of the run's results
// (the import that turned them into findings, or why it failed) is kept per run.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table web_scans (
      organization_id uuid not null references organizations (id),
      id uuid not null default rampart_uuidv7(),
      name text not null,
      urls jsonb not null,
      template_id uuid not null,
      node_id uuid,
      schedule jsonb,
      scan_group_id uuid,
      created_by uuid,
      last_run_id uuid,
      last_completed_run_id uuid,
      last_completed_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create index web_scans_created_idx on web_scans (organization_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index web_scans_group_idx on web_scans (organization_id, scan_group_id)`.execute(db);
  await sql`
    create table web_run_urls (
      organization_id uuid not null references organizations (id),
      run_id uuid not null,
      scan_id uuid not null,
      url text not null,
      result jsonb not null,
      seen_at timestamptz not null,
      primary key (organization_id, run_id, url)
    )`.execute(db);
  // One row per run: a Verify run's findings, and the import its results became.
  await sql`
    create table web_runs (
      organization_id uuid not null references organizations (id),
      run_id uuid not null,
      scan_id uuid not null,
      verify_finding_ids jsonb,
      import_id uuid,
      counts jsonb,
      ingest_error text,
      created_at timestamptz not null,
      primary key (organization_id, run_id)
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
