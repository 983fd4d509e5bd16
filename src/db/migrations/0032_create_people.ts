import { type Kysely, sql } from 'kysely';

// Organisations (docs/organisations.md): a person may belong to several.
//
// - people: who signs in, once for the whole installation: the email, the password hash, and
//   whether they are an installation Admin (they create, rename and deactivate organisations).
//   last_organization_id is where their next password sign-in starts.
// - users stay what they were, a person's membership of one organisation with its role (sessions,
//   API keys, tickets, audit entries and SSO identities keep pointing at them). The email is the
//   person's, copied on each membership (emails never change); it is unique per organisation now.
//   The password hash moves to the person.
// - Every existing user becomes a person of its own (same id): emails were unique across the
//   installation. The active Admins of the first organisation become installation Admins: on an
//   installation of one organisation they already ran everything.
// - organizations.deactivated_at: a deactivated organisation's sessions and API keys stop working,
//   its schedules stop firing; its data is kept and it can be reactivated.
// - sessions.signed_in_with: a session started through an organisation's single sign-on is bound
//   to that organisation (its provider vouches for the person there only), so it cannot switch.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table people (
      id uuid primary key,
      email text not null,
      password_hash text,
      installation_admin boolean not null default false,
      last_organization_id uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create unique index people_email_key on people (lower(email))`.execute(db);
  await sql`
    insert into people (id, email, password_hash, installation_admin, last_organization_id, created_at, updated_at)
    select u.id, u.email, u.password_hash,
           u.role = 'Admin' and u.active and u.organization_id = (select o.id from organizations o order by o.id limit 1),
           u.organization_id, u.created_at, u.updated_at
      from users u`.execute(db);
  await sql`alter table users add column person_id uuid`.execute(db);
  await sql`update users set person_id = id`.execute(db);
  await sql`alter table users alter column person_id set not null`.execute(db);
  await sql`alter table users add constraint users_person_fkey foreign key (person_id) references people (id)`.execute(
    db,
  );
  await sql`create unique index users_person_key on users (organization_id, person_id)`.execute(db);
  await sql`create index users_person_idx on users (person_id)`.execute(db);
  await sql`drop index users_email_key`.execute(db);
  await sql`create unique index users_email_key on users (organization_id, lower(email))`.execute(db);
  await sql`alter table users drop column password_hash`.execute(db);
  await sql`alter table organizations add column deactivated_at timestamptz`.execute(db);
  await sql`
    alter table sessions add column signed_in_with text not null default 'password'
      check (signed_in_with in ('password', 'sso'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sessions drop column signed_in_with`.execute(db);
  await sql`alter table organizations drop column deactivated_at`.execute(db);
  await sql`alter table users add column password_hash text`.execute(db);
  await sql`update users u set password_hash = p.password_hash from people p where p.id = u.person_id`.execute(
    db,
  );
  await sql`drop index users_email_key`.execute(db);
  await sql`create unique index users_email_key on users (lower(email))`.execute(db);
  await sql`drop index users_person_idx`.execute(db);
  await sql`drop index users_person_key`.execute(db);
  await sql`alter table users drop column person_id`.execute(db);
  await sql`drop table people`.execute(db);
}
