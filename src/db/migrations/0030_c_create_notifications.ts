import { type Kysely, sql } from 'kysely';

// Notifications (src/modules/notifications): where events go (endpoints), which events go there
// (rules), and each event's delivery to each endpoint with the log of its attempts.
//
// An endpoint's `secret` signs webhook bodies (HMAC-SHA256), so it must be readable when a
// delivery is made: it is kept as it was generated, like the signing secrets of Stripe or GitHub
// webhooks, shown once in the answer that creates the endpoint and never returned or logged after.
// A hash would not do (the receiver needs the same secret to verify), and encrypting it with a key
// kept beside it in the same database would protect nothing.
//
// One delivery per (endpoint, event): the unique key makes the dispatch idempotent, so that a
// dispatch transaction run again after a kill never queues an event twice for one endpoint.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table notification_endpoints (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      name text not null check (length(name) between 1 and 100),
      kind text not null check (kind in ('Webhook', 'Slack', 'Teams', 'Email')),
      url text not null check (length(url) between 1 and 2000),
      secret text,
      enabled boolean not null default true,
      disabled_reason text check (length(disabled_reason) <= 1000),
      disabled_at timestamptz,
      consecutive_failures integer not null default 0,
      failing_since timestamptz,
      rate_per_minute integer not null check (rate_per_minute between 1 and 6000),
      created_by uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id),
      unique (organization_id, name)
    )`.execute(db);
  await sql`
    create table notification_rules (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      name text not null check (length(name) between 1 and 100),
      event_types text[] not null check (cardinality(event_types) between 1 and 100),
      min_severity text check (min_severity in ('Critical', 'High', 'Medium', 'Low', 'Info')),
      kev_only boolean not null default false,
      risk_above double precision,
      tag text check (length(tag) between 1 and 100),
      scan_group_id uuid,
      asset_id uuid,
      endpoint_ids uuid[] not null check (cardinality(endpoint_ids) between 1 and 50),
      enabled boolean not null default true,
      created_by uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id),
      unique (organization_id, name)
    )`.execute(db);
  // The dispatch looks rules up by the event types of a batch.
  await sql`create index notification_rules_types on notification_rules using gin (event_types)`.execute(db);
  await sql`
    create table notification_deliveries (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      -- The order deliveries were made in (the outbox's order): an endpoint gets them in it.
      seq bigint generated always as identity,
      endpoint_id uuid not null,
      rule_id uuid,
      event_id uuid not null,
      event_type text not null,
      -- The CloudEvent as it is sent: a delivery (and a redelivery) needs nothing else.
      event jsonb not null,
      state text not null check (state in ('Pending', 'Delivering', 'Succeeded', 'Failed', 'Dead')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      lease_until timestamptz,
      last_status integer,
      last_duration_ms integer,
      last_error text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      delivered_at timestamptz,
      primary key (organization_id, id),
      unique (organization_id, endpoint_id, event_id),
      foreign key (organization_id, endpoint_id) references notification_endpoints (organization_id, id)
        on delete cascade
    )`.execute(db);
  // The log of an endpoint, newest first.
  await sql`
    create index notification_deliveries_log
      on notification_deliveries (organization_id, endpoint_id, created_at desc, id desc)`.execute(db);
  // The work still to do, per endpoint, oldest first.
  await sql`
    create index notification_deliveries_due
      on notification_deliveries (endpoint_id, seq)
      where state in ('Pending', 'Delivering', 'Failed')`.execute(db);
  await sql`
    create table notification_attempts (
      organization_id uuid not null,
      id uuid not null,
      delivery_id uuid not null,
      endpoint_id uuid not null,
      attempt integer not null,
      at timestamptz not null,
      status integer,
      duration_ms integer not null,
      error text,
      primary key (organization_id, id),
      foreign key (organization_id, delivery_id) references notification_deliveries (organization_id, id)
        on delete cascade
    )`.execute(db);
  await sql`create index notification_attempts_delivery on notification_attempts (organization_id, delivery_id, at)`.execute(
    db,
  );
  // The rate limit counts an endpoint's attempts of the last minute.
  await sql`create index notification_attempts_endpoint on notification_attempts (endpoint_id, at)`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
