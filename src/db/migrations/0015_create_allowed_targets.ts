import { type Kysely, sql } from 'kysely';

// Allowed scan targets: per organisation, the ranges and host names its scans may
// reach, and the exclusions carved out of them. Empty by default: nothing may be scanned until an
// Admin allows a range. `target` holds the canonical text (src/scanning/targets), so that one
// range written two ways is one row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table allowed_targets (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      kind text not null check (kind in ('Allowed', 'Excluded')),
      target text not null check (length(target) between 1 and 300),
      description text check (length(description) <= 500),
      created_by uuid,
      created_at timestamptz not null,
      primary key (organization_id, id),
      unique (organization_id, kind, target),
      foreign key (organization_id, created_by) references users (organization_id, id)
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
