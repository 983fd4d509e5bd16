import { type Kysely, sql } from 'kysely';

// The findings list filters by the import that created, fixed or reopened them (ImportId).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index finding_events_import_idx on finding_events (organization_id, (details->>'importId'))
    where details ? 'importId'`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
