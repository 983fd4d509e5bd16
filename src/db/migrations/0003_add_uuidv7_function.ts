import { type Kysely, sql } from 'kysely';

// UUIDv7 inside SQL, for set-based writes (bulk actions) that create many rows in one statement.
// PostgreSQL 18 has uuidv7() built in; older servers do not, so Rampart carries its own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function rampart_uuidv7() returns uuid as $$
    begin
      return encode(
        set_bit(
          set_bit(
            overlay(uuid_send(gen_random_uuid())
              placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
              from 1 for 6),
            52, 1),
          53, 1),
        'hex')::uuid;
    end
    $$ language plpgsql volatile`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
