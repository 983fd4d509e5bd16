import { type Kysely, sql } from 'kysely';

// An import says which earlier import of its organisation had the same file (the same SHA-256):
// found by this index, newest first, for each import shown.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index imports_file_sha256_idx on imports (organization_id, file_sha256, created_at desc, id desc)`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
