import { type Kysely, sql } from 'kysely';

// The import that last reported a finding: a re-import fixes the findings of its scope that it
// did not report, which is then a comparison on the row instead of a search of the report.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table findings add column last_import_id uuid`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
