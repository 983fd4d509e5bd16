import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// Every user becomes a person of their own with their password; the active Admins of the first
// organisation become installation Admins; sessions keep working.
describe.each(DB_KINDS)('migration 0032_create_people [%s]', (kind) => {
  let tdb: TestDatabase;
  const at = '2026-11-21T12:00:00Z';
  const first = '00000000-0000-7000-8000-000000000001';
  const second = '00000000-0000-7000-8000-000000000002';
  const users = {
    admin: '00000000-0000-7000-8000-0000000000a1',
    retired: '00000000-0000-7000-8000-0000000000a2',
    analyst: '00000000-0000-7000-8000-0000000000a3',
    otherAdmin: '00000000-0000-7000-8000-0000000000a4',
  };

  beforeAll(async () => {
    tdb = await newTestDatabase(kind, false);
    const db = tdb.database.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const before = await migrator.migrateTo('0031_c_create_sso_providers');
    expect(before.error).toBeUndefined();
    await sql`insert into organizations (id, name, created_at) values (${first}, 'First', ${at}), (${second}, 'Second', ${at})`.execute(
      db,
    );
    for (const [org, id, email, role, active, hash] of [
      [first, users.admin, 'Admin@Example.com', 'Admin', true, 'hash-a'],
      [first, users.retired, 'retired@example.com', 'Admin', false, 'hash-r'],
      [first, users.analyst, 'analyst@example.com', 'Analyst', true, null],
      [second, users.otherAdmin, 'boss@second.example', 'Admin', true, 'hash-b'],
    ] as const)
      await sql`insert into users (organization_id, id, email, name, role, password_hash, active, created_at, updated_at)
        values (${org}, ${id}, ${email}, 'n', ${role}, ${hash}, ${active}, ${at}, ${at})`.execute(db);
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it('makes each user a person of their own, with their email and password', async () => {
    const people = (
      await sql<{ id: string; email: string; password_hash: string | null; last_organization_id: string }>`
        select id, email, password_hash, last_organization_id from people order by id`.execute(
        tdb.database.db,
      )
    ).rows;
    expect(people).toEqual([
      { id: users.admin, email: 'Admin@Example.com', password_hash: 'hash-a', last_organization_id: first },
      {
        id: users.retired,
        email: 'retired@example.com',
        password_hash: 'hash-r',
        last_organization_id: first,
      },
      { id: users.analyst, email: 'analyst@example.com', password_hash: null, last_organization_id: first },
      {
        id: users.otherAdmin,
        email: 'boss@second.example',
        password_hash: 'hash-b',
        last_organization_id: second,
      },
    ]);
    const memberships = (
      await sql<{ id: string; person_id: string }>`select id, person_id from users order by id`.execute(
        tdb.database.db,
      )
    ).rows;
    for (const m of memberships) expect(m.person_id).toBe(m.id);
  });

  it('makes the active Admins of the first organisation installation Admins, and no one else', async () => {
    const admins = (
      await sql<{ id: string }>`select id from people where installation_admin order by id`.execute(
        tdb.database.db,
      )
    ).rows.map((r) => r.id);
    expect(admins).toEqual([users.admin]);
  });

  it('lets the same email join another organisation, once per organisation', async () => {
    const db = tdb.database.db;
    await sql`insert into users (organization_id, id, person_id, email, name, role, created_at, updated_at)
      values (${second}, '00000000-0000-7000-8000-0000000000b1', ${users.admin}, 'admin@example.com', 'n', 'ReadOnly', ${at}, ${at})`.execute(
      db,
    );
    await expect(
      sql`insert into users (organization_id, id, person_id, email, name, role, created_at, updated_at)
        values (${second}, '00000000-0000-7000-8000-0000000000b2', ${users.analyst}, 'ADMIN@example.com', 'n', 'ReadOnly', ${at}, ${at})`.execute(
        db,
      ),
    ).rejects.toThrow(/users_email_key/);
  });
});
