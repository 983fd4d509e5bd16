import { type Kysely, sql } from 'kysely';

// An upstream CVE matched on a distribution build whose distribution's advisory data Rampart does
// not hold cannot be confirmed: the build may carry the fix. Such a finding is
// Unconfirmed: kept, with the data it lacks in its evidence, but scored 0, given no due date and
// left out of lists unless asked for, until a re-scan with the data decides it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table findings add column confidence text not null default 'Confirmed'
      constraint findings_confidence_check check (confidence in ('Confirmed', 'Unconfirmed'))`.execute(db);
  await sql`alter table import_findings add column confidence text`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
