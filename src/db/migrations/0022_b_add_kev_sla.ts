import { type Kysely, sql } from 'kysely';

// A finding whose CVE is in CISA's KEV catalogue was due by the catalogue's date, the deadline
// CISA set for federal agencies when the CVE was added: often years before the finding was found,
// so a finding imported today was overdue at once. It is now due a number of days after it was
// found (the organisation's KEV SLA, 14 by default; null: by its severity alone), or by its
// severity's SLA when that comes sooner. rampart_due_at takes whether the vulnerability is in KEV
// and those days instead of the catalogue's date: its old argument list is dropped here, and the
// new one is created after the migrations (src/db/functions/rampart_due_at.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table organization_settings add column sla_kev_days integer check (sla_kev_days > 0)`.execute(
    db,
  );
  await sql`update organization_settings set sla_kev_days = 14`.execute(db);
  await sql`drop function if exists rampart_due_at(text, timestamptz, date, integer, integer, integer, integer, integer)`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
