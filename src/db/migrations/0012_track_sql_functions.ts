import { type Kysely, sql } from 'kysely';

// The SQL functions of src/db/functions/ and the hash of the definition each last had applied: a
// start re-applies those whose file changed since and leaves the others alone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sql_functions (
      name text primary key,
      content_hash text not null
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
