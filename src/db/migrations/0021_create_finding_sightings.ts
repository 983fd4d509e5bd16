import { type Kysely, sql } from 'kysely';

// A re-import used to rewrite every finding it saw again (last seen, last import): ~100,000 row
// updates touching every index of findings for an unchanged report (bench:import). Findings now
// belong to a sighting: the group of findings one import reported. When a later import reports
// every finding of a sighting, the sighting moves to that import (one row) instead of each finding.
// `findings` counts its members; it may count too many (a finding deleted) but never too few, so
// "every member reported" is never wrongly concluded. A finding's last seen is then the later of
// its own last_seen_at and its sighting's seen_at.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table finding_sightings (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      import_id uuid not null,
      seen_at timestamptz not null,
      findings integer not null,
      primary key (organization_id, id)
    )`.execute(db);
  // No index and no foreign key: findings are never looked up by sighting (the merge reads the
  // sighting of findings it already has), and a per-row check would slow every insert.
  await sql`alter table findings add column sighting_id uuid`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
