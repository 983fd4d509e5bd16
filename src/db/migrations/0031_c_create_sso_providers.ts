import { type Kysely, sql } from 'kysely';

// Single sign-on with OpenID Connect (src/modules/sso): the providers an Admin configures per
// organisation, the identities (provider, subject) linked to users, the sign-in attempts under way
// (state, nonce and PKCE verifier, kept on the server for ten minutes and used once), and whether
// the organisation's people may sign in with a password at all.
//
// A provider's client secret is sent to the provider's token endpoint, so it must be readable: it
// is kept as it was given, like a webhook endpoint's signing secret (migration 0030_c), and never
// returned or logged. Encrypting it with a key kept beside it in the same database would protect
// nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sso_providers (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      name text not null check (length(name) between 1 and 100),
      issuer_url text not null check (length(issuer_url) between 1 and 500),
      client_id text not null check (length(client_id) between 1 and 500),
      client_secret text check (length(client_secret) between 1 and 1000),
      scopes text[] not null check (cardinality(scopes) between 1 and 30),
      groups_claim text not null check (length(groups_claim) between 1 and 100),
      default_role text check (default_role in ('ReadOnly', 'Analyst', 'Manager', 'Admin')),
      -- [{ "group": "...", "role": "..." }]
      role_mappings jsonb not null default '[]',
      enabled boolean not null default true,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, id),
      unique (organization_id, name),
      unique (organization_id, issuer_url, client_id)
    )`.execute(db);
  await sql`
    create table sso_identities (
      organization_id uuid not null references organizations (id),
      provider_id uuid not null,
      subject text not null check (length(subject) between 1 and 255),
      user_id uuid not null,
      created_at timestamptz not null,
      last_sign_in_at timestamptz not null,
      primary key (organization_id, provider_id, subject),
      foreign key (organization_id, provider_id) references sso_providers (organization_id, id) on delete cascade
    )`.execute(db);
  await sql`create index sso_identities_by_user on sso_identities (organization_id, user_id)`.execute(db);
  // Found by the hash of the random value of the browser's short-lived cookie, before the
  // organisation is known (as sessions are by their token's hash).
  await sql`
    create table sso_attempts (
      organization_id uuid not null references organizations (id),
      id uuid not null,
      provider_id uuid not null,
      cookie_hash bytea not null,
      state text not null,
      nonce text not null,
      code_verifier text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      primary key (organization_id, id),
      -- Found by the provider's organisation and the browser's cookie (docs/deployment-at-scale.md).
      unique (organization_id, cookie_hash),
      foreign key (organization_id, provider_id) references sso_providers (organization_id, id) on delete cascade
    )`.execute(db);
  await sql`create index sso_attempts_expiry on sso_attempts (expires_at)`.execute(db);
  await sql`
    create table sso_settings (
      organization_id uuid not null primary key references organizations (id),
      sso_only boolean not null default false,
      updated_at timestamptz not null
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
