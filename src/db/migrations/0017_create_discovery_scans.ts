import { type Kysely, sql } from 'kysely';

// Discovery scans: an organisation's own scan templates (the built-in
// ones live in code), its discovery scans, the hosts each run found, and each scan's host
// inventory across runs (first and last seen, for "new" and "gone"). A run itself is a scan run
// of the scanruns module; these tables refer to it by id only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table scan_templates (
      organization_id uuid not null references organizations (id),
      id uuid not null default rampart_uuidv7(),
      kind text not null check (kind in ('Discovery', 'System', 'Web')),
      name text not null,
      description text,
      settings jsonb not null,
      created_by uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create unique index scan_templates_name_idx on scan_templates (organization_id, kind, lower(name))`.execute(
    db,
  );
  await sql`
    create table discovery_scans (
      organization_id uuid not null references organizations (id),
      id uuid not null default rampart_uuidv7(),
      name text not null,
      targets jsonb not null,
      exclusions jsonb not null default '[]',
      template_id uuid not null,
      node_id uuid,
      schedule jsonb,
      notifications jsonb not null default '[]',
      responsible_user_id uuid,
      created_by uuid,
      last_run_id uuid,
      last_completed_run_id uuid,
      last_completed_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create index discovery_scans_created_idx on discovery_scans (organization_id, created_at desc, id desc)`.execute(
    db,
  );
  // What one run found (status New or Seen as it arrived; Gone rows are added when the run completes).
  await sql`
    create table discovery_run_hosts (
      organization_id uuid not null references organizations (id),
      run_id uuid not null,
      scan_id uuid not null,
      address text not null,
      hostname text,
      mac_address text,
      os_guess text,
      open_ports integer[] not null default '{}',
      closed_ports integer[] not null default '{}',
      status text not null check (status in ('Found', 'New', 'Seen', 'Gone')),
      asset_id uuid,
      seen_at timestamptz not null,
      primary key (organization_id, run_id, address)
    )`.execute(db);
  // Every host a scan has found, with when it was first and last seen.
  await sql`
    create table discovery_hosts (
      organization_id uuid not null references organizations (id),
      scan_id uuid not null,
      address text not null,
      hostname text,
      mac_address text,
      os_guess text,
      asset_id uuid,
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null,
      first_run_id uuid not null,
      last_run_id uuid not null,
      primary key (organization_id, scan_id, address)
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
