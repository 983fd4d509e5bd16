import { type Kysely, sql } from 'kysely';

// Idempotency keys (src/modules/idempotency; docs/idempotency.md): the `Idempotency-Key` of an
// unsafe POST, held by the first request that sent it and then keeping its answer, so that a
// retry with the same key and the same request gets that answer instead of acting again.
//
// - One slot per (organisation, principal, key): a principal is an API key, a signed-in user or a
//   scan node, so that two clients using the same key value never meet.
// - `fingerprint` is the SHA-256 of the request (method, route, path parameters, query string and
//   the body's own SHA-256); null while a route that reads its body as a stream has not read it.
// - State InFlight while the first request runs (held by `owner`, a token of that request, until
//   `lease_until`: a slot whose request died is taken over after it), Completed once its answer is
//   kept (`status`, a few `headers`, `body`). `withheld` says why a Completed slot keeps no body:
//   `secret` (an answer that shows a secret once: an API key's, a webhook's, a password, an
//   enrolment token; never stored) or `too-large` (above the application's bound); a retry is
//   then told that the first answer cannot be given again.
// - `expires_at` is 24 hours after the first request: an expired slot counts as free, and the
//   idempotency-purge job deletes it (by organisation, hence the index).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table idempotency_keys (
      organization_id uuid not null references organizations (id),
      principal_kind text not null check (principal_kind in ('apikey', 'user', 'node')),
      principal_id uuid not null,
      key text not null check (length(key) between 1 and 255),
      owner uuid not null,
      method text not null check (length(method) between 1 and 16),
      route text not null check (length(route) between 1 and 2000),
      fingerprint text check (fingerprint ~ '^[0-9a-f]{64}$'),
      state text not null check (state in ('InFlight', 'Completed')),
      status integer check (status between 100 and 599),
      headers jsonb,
      body bytea,
      withheld text check (withheld in ('secret', 'too-large')),
      created_at timestamptz not null,
      lease_until timestamptz not null,
      expires_at timestamptz not null,
      completed_at timestamptz,
      primary key (organization_id, principal_kind, principal_id, key),
      check (state = 'InFlight' or (status is not null and headers is not null and fingerprint is not null)),
      check (withheld is null or body is null)
    )`.execute(db);
  await sql`create index idempotency_keys_expiry on idempotency_keys (organization_id, expires_at)`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
