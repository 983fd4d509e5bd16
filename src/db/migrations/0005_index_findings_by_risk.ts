import { type Kysely, sql } from 'kysely';

// Lists sort by risk descending with the id as tie-breaker, also descending: the indexes must
// run the same way, or PostgreSQL sorts every matching row (measured by bench:findings).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index findings_risk_idx`.execute(db);
  await sql`create index findings_risk_idx on findings (organization_id, risk_score desc, id desc)`.execute(
    db,
  );
  await sql`drop index findings_vulnerability_idx`.execute(db);
  await sql`create index findings_vulnerability_idx on findings (organization_id, vulnerability_id, risk_score desc, id desc)`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
