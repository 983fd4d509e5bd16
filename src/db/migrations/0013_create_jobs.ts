import { type Kysely, sql } from 'kysely';

// Background jobs: one durable queue that behaves the same on the embedded
// database and on PostgreSQL. A worker claims a job with a lease (locked_by, lease_until); a job
// whose lease ran out is claimed again, since its worker died. Every time is the application
// clock's, passed in by src/jobs: no column takes a default from the database's clock.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table jobs (
      organization_id uuid references organizations (id),
      id uuid primary key default rampart_uuidv7(),
      kind text not null,
      payload jsonb not null default '{}',
      state text not null check (state in ('Queued', 'Running', 'Completed', 'Failed', 'Cancelled')),
      attempts integer not null default 0 check (attempts >= 0),
      max_attempts integer not null check (max_attempts >= 1),
      run_at timestamptz not null,
      locked_by text,
      lease_until timestamptz,
      last_error text,
      dedup_key text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      finished_at timestamptz
    )`.execute(db);
  // Claiming: queued jobs that are due, and running jobs whose lease ran out.
  await sql`create index jobs_claim_idx on jobs (state, run_at) where state in ('Queued', 'Running')`.execute(
    db,
  );
  await sql`create index jobs_lease_idx on jobs (lease_until) where state = 'Running'`.execute(db);
  // One unfinished job per (kind, dedup_key).
  await sql`create unique index jobs_dedup_idx on jobs (kind, dedup_key) where state in ('Queued', 'Running') and dedup_key is not null`.execute(
    db,
  );
  // Listing, newest first, by kind and state.
  await sql`create index jobs_created_idx on jobs (created_at desc, id desc)`.execute(db);
  await sql`create index jobs_kind_state_idx on jobs (kind, state, created_at desc, id desc)`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
