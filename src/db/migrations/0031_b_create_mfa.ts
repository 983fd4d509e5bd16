import { type Kysely, sql } from 'kysely';

// Multi-factor sign-in for password users (docs/mfa.md):
//
// - mfa_factors: a user's TOTP factor (RFC 6238). A factor is Pending from the start of an
//   enrolment until a code confirms it, then Active; a user has at most one of each. The secret
//   must be read to check codes, so it is kept (as a webhook's signing secret is), never logged.
//   last_used_step is the 30-second step of the last code accepted: a code of that step or an
//   earlier one is refused, so a code seen over a shoulder cannot be replayed.
// - mfa_recovery_codes: the ten one-time recovery codes, by their SHA-256 only (80 random bits
//   each: a plain hash is enough, and a code is found by its hash).
// - mfa_challenges: the short-lived, single-use tokens between the password step of a sign-in and
//   its second step (Verify: give a code; Enrol: the organisation requires a factor and the user
//   sets one up), by the token's SHA-256; a few wrong codes end one.
// - organization_settings.require_mfa: password users must have a factor to sign in.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table mfa_factors (
      organization_id uuid not null,
      id uuid not null,
      user_id uuid not null,
      kind text not null default 'Totp' check (kind in ('Totp')),
      state text not null check (state in ('Pending', 'Active')),
      secret text not null,
      created_at timestamptz not null,
      enabled_at timestamptz,
      last_used_step integer,
      last_used_at timestamptz,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create unique index mfa_factors_one_active on mfa_factors (organization_id, user_id) where state = 'Active'`.execute(
    db,
  );
  await sql`create unique index mfa_factors_one_pending on mfa_factors (organization_id, user_id) where state = 'Pending'`.execute(
    db,
  );
  await sql`
    create table mfa_recovery_codes (
      organization_id uuid not null,
      user_id uuid not null,
      code_hash bytea not null,
      created_at timestamptz not null,
      used_at timestamptz,
      primary key (organization_id, user_id, code_hash)
    )`.execute(db);
  await sql`
    create table mfa_challenges (
      organization_id uuid not null,
      id uuid not null,
      user_id uuid not null,
      token_hash bytea not null,
      purpose text not null check (purpose in ('Verify', 'Enrol')),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      failed_attempts integer not null default 0,
      primary key (organization_id, id)
    )`.execute(db);
  await sql`create unique index mfa_challenges_token on mfa_challenges (token_hash)`.execute(db);
  await sql`create index mfa_challenges_by_user on mfa_challenges (organization_id, user_id)`.execute(db);
  await sql`alter table organization_settings add column require_mfa boolean not null default false`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
