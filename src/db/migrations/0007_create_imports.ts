import { type Kysely, sql } from 'kysely';

// Scanner report imports. A report is parsed into staging tables in short batches (the embedded
// database has one connection, so no long transaction may hold it while a file is read), then
// merged into assets, vulnerabilities, findings, services and software in one transaction: an
// import lands whole or not at all. Staging rows are deleted when the import ends either way.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table imports (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      state text not null check (state in ('Queued', 'Running', 'Completed', 'Failed')),
      format text,
      format_confidence numeric(3, 2),
      scope_name text,
      file_name text,
      file_sha256 text not null,
      file_size bigint not null,
      actor_type text not null,
      actor_id uuid,
      counts jsonb not null default '{}',
      warnings text[] not null default '{}',
      error text,
      created_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz,
      -- Written while an import is queued or runs: one whose process stopped goes stale.
      heartbeat_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create index imports_created_idx on imports (organization_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index imports_unfinished_idx on imports (state) where state in ('Queued', 'Running')`.execute(
    db,
  );

  // The scope a finding was last reported in (ScopeName), for "not seen again → Fixed".
  await sql`alter table findings add column scope_name text`.execute(db);
  await sql`create index findings_scope_idx on findings (organization_id, scope_name) where scope_name is not null`.execute(
    db,
  );
  await sql`create index findings_asset_source_idx on findings (organization_id, asset_id, source)`.execute(
    db,
  );

  await sql`
    create table import_assets (
      organization_id uuid not null,
      import_id uuid not null,
      asset_key text not null,
      input jsonb not null,
      asset_id uuid,
      primary key (organization_id, import_id, asset_key)
    )`.execute(db);

  await sql`
    create table import_vulnerabilities (
      organization_id uuid not null,
      import_id uuid not null,
      vulnerability_key text not null,
      input jsonb not null,
      vulnerability_id uuid,
      primary key (organization_id, import_id, vulnerability_key)
    )`.execute(db);

  await sql`
    create table import_findings (
      organization_id uuid not null,
      import_id uuid not null,
      seq integer not null,
      asset_key text not null,
      vulnerability_key text not null,
      location_key text not null,
      location_kind text not null,
      port integer,
      protocol text,
      url text,
      parameter text,
      file_path text,
      line integer,
      package_name text,
      package_version text,
      title text not null,
      severity text not null,
      evidence text,
      tool_finding_id text,
      state text,
      state_reason text,
      primary key (organization_id, import_id, seq)
    )`.execute(db);

  await sql`
    create table import_services (
      organization_id uuid not null,
      import_id uuid not null,
      asset_key text not null,
      port integer not null,
      protocol text not null,
      name text,
      product text,
      version text,
      cpe text,
      banner text,
      primary key (organization_id, import_id, asset_key, port, protocol)
    )`.execute(db);

  await sql`
    create table import_software (
      organization_id uuid not null,
      import_id uuid not null,
      asset_key text not null,
      name_key text not null,
      version text not null,
      name text not null,
      vendor text,
      category text not null,
      cpe text,
      purl text,
      primary key (organization_id, import_id, asset_key, name_key, version)
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
