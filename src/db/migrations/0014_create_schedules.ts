import { type Kysely, sql } from 'kysely';

// Schedules: what enqueues a job at the times of a rule (a cron expression in a time
// zone, an interval, or one time). The scheduler claims due rows with FOR UPDATE SKIP LOCKED and,
// in the same transaction, enqueues the occurrence's job and moves next_run_at past now, so that
// every occurrence fires once however many instances tick. organization_id is null for a system
// schedule; the key is unique per organisation (and among system schedules).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table schedules (
      organization_id uuid references organizations (id),
      id uuid primary key,
      key text not null,
      rule jsonb not null,
      job_kind text not null,
      payload jsonb not null default '{}',
      max_attempts integer not null check (max_attempts >= 1),
      enabled boolean not null,
      next_run_at timestamptz,
      last_run_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      constraint schedules_key_unique unique nulls not distinct (organization_id, key)
    )`.execute(db);
  await sql`create index schedules_due_idx on schedules (next_run_at) where enabled`.execute(db);
  // An import's job is found by its dedup key after it finished too (an import whose job was given up).
  await sql`create index jobs_dedup_any_idx on jobs (kind, dedup_key, created_at desc) where dedup_key is not null`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
