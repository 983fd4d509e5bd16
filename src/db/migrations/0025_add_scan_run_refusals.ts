import { type Kysely, sql } from 'kysely';

// A run whose addresses the node refused (loopback, outside the allowed targets, a name that did
// not resolve) used to end Completed with nothing to show and the reasons only in the node's log.
// The run now keeps them: the first REFUSALS_LISTED as { address, rule, message } and how many in
// all, reset when a new attempt starts (it sends them again).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table scan_runs add column refused jsonb not null default '[]'::jsonb`.execute(db);
  await sql`alter table scan_runs add column refused_count integer not null default 0`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
