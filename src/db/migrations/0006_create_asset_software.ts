import { type Kysely, sql } from 'kysely';

// The software installed on an asset (operating-system packages, applications, libraries), as
// scanners and inventories report it. One row per name and version: two versions of a package
// can be installed side by side.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table asset_software (
      organization_id uuid not null,
      id uuid not null,
      asset_id uuid not null,
      name text not null,
      name_key text generated always as (lower(name)) stored,
      version text not null default '',
      vendor text,
      category text not null default 'Application',
      cpe text,
      purl text,
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null,
      primary key (organization_id, id),
      unique (organization_id, asset_id, name_key, version),
      foreign key (organization_id, asset_id) references assets (organization_id, id) on delete cascade
    )`.execute(db);
  // Findings in a package are counted per installed software: by asset, then package name.
  await sql`create index findings_package_idx on findings (organization_id, asset_id, lower(package_name)) where location_kind = 'Package'`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
