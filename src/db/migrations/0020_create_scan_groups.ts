import { type Kysely, sql } from 'kysely';

// Scan groups: vulnerability scan groups as the original service has them — settings
// for the system and web scans the group holds, and asset monitoring configurations that follow a
// discovery scan's reports to add (and remove) those scans host by host. The scans themselves
// belong to the systemscans and webscans modules; the group keeps which host (and port) each
// tracked scan is for.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table scan_groups (
      organization_id uuid not null references organizations (id),
      id uuid not null default rampart_uuidv7(),
      name text not null,
      description text,
      responsible_user_id uuid,
      scanning_mode text not null,
      system_settings jsonb not null,
      web_settings jsonb not null,
      notifications jsonb not null default '[]',
      notes jsonb not null default '[]',
      created_by uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create index scan_groups_created_idx on scan_groups (organization_id, created_at, id)`.execute(
    db,
  );
  await sql`
    create table scan_group_monitors (
      organization_id uuid not null references organizations (id),
      group_id uuid not null,
      id uuid not null,
      position integer not null,
      is_active boolean not null,
      discovery_scan_id uuid not null,
      options jsonb not null,
      primary key (organization_id, group_id, id)
    )`.execute(db);
  await sql`create index scan_group_monitors_discovery_idx on scan_group_monitors (organization_id, discovery_scan_id)`.execute(
    db,
  );
  // The scans a group's monitoring added: one per host for system scans, per host and port for web.
  await sql`
    create table scan_group_tracked (
      organization_id uuid not null references organizations (id),
      group_id uuid not null,
      kind text not null check (kind in ('System', 'Web')),
      address text not null,
      port integer not null,
      scan_id uuid not null,
      known_ports integer[] not null default '{}',
      created_at timestamptz not null,
      primary key (organization_id, group_id, kind, address, port)
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
