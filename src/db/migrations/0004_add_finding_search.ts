import { type Kysely, sql } from 'kysely';

// Free-text search of findings by the words of their titles, indexed: ILIKE '%…%' would read every
// row of a large organisation. The 'simple' configuration keeps product names and versions as written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table findings add column search_vector tsvector generated always as (to_tsvector('simple', title)) stored`.execute(
    db,
  );
  await sql`create index findings_search_idx on findings using gin (search_vector)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
