import { type Kysely, sql } from 'kysely';

// System scans: saved targets with a system template and a node, each run's hosts as
// the node reported them (one row per address, so a retried attempt replaces what it sent), and
// per run what it was asked (a Verify run's findings and ports) and what its ingestion made (the
// import and the distribution's backport decisions). A run itself is a scan run of the scanruns
// module, its findings the findings module's; these tables refer to them by id only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table system_scans (
      organization_id uuid not null references organizations (id),
      id uuid not null default rampart_uuidv7(),
      name text not null,
      targets jsonb not null,
      exclusions jsonb not null default '[]',
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
  await sql`create index system_scans_created_idx on system_scans (organization_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index system_scans_group_idx on system_scans (organization_id, scan_group_id) where scan_group_id is not null`.execute(
    db,
  );
  await sql`
    create table system_scan_runs (
      organization_id uuid not null references organizations (id),
      run_id uuid not null,
      scan_id uuid not null,
      verify_finding_ids uuid[],
      ports text not null,
      import_id uuid,
      counts jsonb,
      backports jsonb not null default '[]',
      ingest_error text,
      ingested_at timestamptz,
      primary key (organization_id, run_id)
    )`.execute(db);
  await sql`create index system_scan_runs_scan_idx on system_scan_runs (organization_id, scan_id)`.execute(
    db,
  );
  await sql`
    create table system_run_hosts (
      organization_id uuid not null references organizations (id),
      run_id uuid not null,
      scan_id uuid not null,
      address text not null,
      result jsonb not null,
      seen_at timestamptz not null,
      primary key (organization_id, run_id, address)
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
