import { type Kysely, sql } from 'kysely';

// Times come from the application's clock only (tests move it, and every value the API returns or
// a rule compares then agrees with it): a column default taking the database server's time gave
// rows a second, different clock. With the defaults gone, an insert that forgets a time fails
// instead of quietly taking the server's.
const COLUMNS: readonly [table: string, column: string][] = [
  ['organizations', 'created_at'],
  ['users', 'created_at'],
  ['users', 'updated_at'],
  ['api_keys', 'created_at'],
  ['sessions', 'created_at'],
  ['audit_events', 'occurred_at'],
  ['organization_settings', 'updated_at'],
  ['assets', 'created_at'],
  ['assets', 'updated_at'],
  ['vulnerabilities', 'created_at'],
  ['vulnerabilities', 'updated_at'],
  ['findings', 'created_at'],
  ['findings', 'updated_at'],
  ['tickets', 'created_at'],
  ['tickets', 'updated_at'],
  ['ticket_findings', 'linked_at'],
  ['ticket_comments', 'created_at'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, column] of COLUMNS) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} drop default`.execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
