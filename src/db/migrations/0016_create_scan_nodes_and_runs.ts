import { type Kysely, sql } from 'kysely';

// Scan nodes and scan runs: nodes enrol with a one-time token and then authenticate
// with their own key (only its SHA-256 is kept); runs are claimed by a node under a lease and
// report back in numbered batches, each recorded once per (run, attempt, seq) so that a retried
// batch is not applied twice. Every time is the application clock's: no column takes a default.
export async function up(db: Kysely<unknown>): Promise<void> {
  // organization_id is null only for the built-in local node, which serves every organisation.
  await sql`
    create table scan_nodes (
      organization_id uuid references organizations (id),
      id uuid primary key,
      name text not null check (length(name) between 1 and 100),
      kinds text[] not null,
      version text not null,
      capacity integer not null check (capacity between 1 and 64),
      is_local boolean not null default false,
      key_hash bytea unique,
      enrolment_id uuid,
      last_heartbeat_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz not null,
      check (is_local = (organization_id is null)),
      check (is_local or key_hash is not null)
    )`.execute(db);
  await sql`create unique index scan_nodes_one_local_idx on scan_nodes (is_local) where is_local`.execute(db);
  await sql`create index scan_nodes_org_idx on scan_nodes (organization_id, created_at)`.execute(db);

  await sql`
    create table scan_node_enrolments (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      token_hash bytea not null unique,
      expires_at timestamptz not null,
      used_at timestamptz,
      node_id uuid,
      created_by uuid,
      created_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);

  await sql`
    create table scan_runs (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      kind text not null check (kind in ('Discovery', 'System', 'Web')),
      source_id uuid not null,
      source_name text not null,
      node_id uuid,
      claimed_by uuid,
      state text not null check (state in ('Queued', 'Running', 'Stopping', 'Completed', 'Failed', 'Stopped')),
      attempt integer not null default 0 check (attempt >= 0),
      spec jsonb not null,
      progress_done bigint not null default 0,
      progress_total bigint not null default 0,
      progress_found bigint not null default 0,
      lease_until timestamptz,
      stop_requested boolean not null default false,
      error text,
      history jsonb not null default '[]',
      queued_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz,
      created_at timestamptz not null,
      primary key (organization_id, id)
    )`.execute(db);
  // Claiming: queued runs in order; the lease sweep: held runs by lease end; capacity: a node's runs.
  await sql`create index scan_runs_claim_idx on scan_runs (queued_at, id) where state = 'Queued'`.execute(db);
  await sql`create index scan_runs_lease_idx on scan_runs (lease_until) where state in ('Running', 'Stopping')`.execute(
    db,
  );
  await sql`create index scan_runs_node_idx on scan_runs (claimed_by) where state in ('Running', 'Stopping')`.execute(
    db,
  );
  // Listing, newest first, overall and by source.
  await sql`create index scan_runs_created_idx on scan_runs (organization_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index scan_runs_source_idx on scan_runs (organization_id, source_id, created_at desc, id desc)`.execute(
    db,
  );

  await sql`
    create table scan_run_batches (
      organization_id uuid not null,
      run_id uuid not null,
      attempt integer not null check (attempt >= 1),
      seq integer not null check (seq >= 1),
      item_count integer not null,
      received_at timestamptz not null,
      primary key (organization_id, run_id, attempt, seq),
      foreign key (organization_id, run_id) references scan_runs (organization_id, id) on delete cascade
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
