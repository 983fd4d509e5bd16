import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../src/db/functions/index.js';
import type { SqlFunction } from '../../src/db/functions/types.js';
import { applyFunctions, MigrationError, migrateToLatest } from '../../src/db/migrate.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

// SQL functions live in files of their own, applied after the migrations
// whenever their text changes, so that a formula change is a diff of one file.
const answer = (value: number): SqlFunction => ({
  name: 'rampart_test_answer',
  definition: `create or replace function rampart_test_answer() returns integer language sql immutable as $$ select ${value} $$`,
});

describe.each(DB_KINDS)('SQL functions applied from their files [%s]', (kind) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
  });
  afterAll(() => tdb?.drop());

  const scalar = async <T>(query: ReturnType<typeof sql<{ v: T }>>) =>
    (await query.execute(tdb.database.db)).rows[0]!.v;
  const recorded = async () =>
    (await tdb.database.db.selectFrom('sql_functions').select('name').orderBy('name').execute()).map(
      (r) => r.name,
    );
  const riskOfExample = () =>
    scalar<string>(sql`select rampart_risk_score(8.1, 'High', 0.99, false, 3, false) as v`);
  const dueOfExample = () =>
    scalar<Date | null>(
      sql`select rampart_due_at('High', '2026-11-01T10:00:00Z'::timestamptz, false, 7, 30, 90, 180, null, 14) as v`,
    );

  it('a migrated database has every function, each recorded; a second start applies none', async () => {
    expect(await recorded()).toEqual(FUNCTIONS.map((f) => f.name).sort());
    expect(Number(await riskOfExample())).toBe(80.6);
    expect((await dueOfExample())?.toISOString()).toBe('2026-12-01T10:00:00.000Z');
    expect(await applyFunctions(tdb.database.db)).toEqual([]);
    expect(await migrateToLatest(tdb.database.db)).toEqual([]);
  });

  it('applies a changed definition on the next start and leaves an unchanged one alone', async () => {
    expect(await applyFunctions(tdb.database.db, [answer(41)])).toEqual(['rampart_test_answer']);
    expect(await scalar<number>(sql`select rampart_test_answer() as v`)).toBe(41);

    // Replaced behind Rampart's back: an unchanged file is not applied again, so this stays.
    await sql`create or replace function rampart_test_answer() returns integer language sql immutable as $$ select 0 $$`.execute(
      tdb.database.db,
    );
    expect(await applyFunctions(tdb.database.db, [answer(41)])).toEqual([]);
    expect(await scalar<number>(sql`select rampart_test_answer() as v`)).toBe(0);

    expect(await applyFunctions(tdb.database.db, [answer(42)])).toEqual(['rampart_test_answer']);
    expect(await scalar<number>(sql`select rampart_test_answer() as v`)).toBe(42);
  });

  it('re-applies, at the next migration run, exactly the function whose recorded hash differs', async () => {
    await sql`create or replace function rampart_due_at(severity text, first_seen timestamptz, kev boolean,
      sla_critical integer, sla_high integer, sla_medium integer, sla_low integer, sla_info integer, sla_kev integer)
      returns timestamptz language sql stable as $$ select null::timestamptz $$`.execute(tdb.database.db);
    expect(await dueOfExample()).toBeNull();
    await tdb.database.db
      .updateTable('sql_functions')
      .set({ content_hash: 'an older definition' })
      .where('name', '=', 'rampart_due_at')
      .execute();

    await migrateToLatest(tdb.database.db);
    expect((await dueOfExample())?.toISOString()).toBe('2026-12-01T10:00:00.000Z');
    expect(await applyFunctions(tdb.database.db)).toEqual([]);
  });

  it('takes over the functions of a database migrated when migration 0010 created them', async () => {
    // Such a database has the functions but no recorded hashes.
    await tdb.database.db.deleteFrom('sql_functions').execute();
    expect(await applyFunctions(tdb.database.db)).toEqual(FUNCTIONS.map((f) => f.name));
    expect(Number(await riskOfExample())).toBe(80.6);
    expect(await recorded()).toEqual(FUNCTIONS.map((f) => f.name).sort());
  });

  it('a definition that fails stops the start and records nothing for it', async () => {
    const broken: SqlFunction = {
      name: 'rampart_test_broken',
      definition:
        'create or replace function rampart_test_broken() returns integer language sql as $$ select nope $$',
    };
    await expect(applyFunctions(tdb.database.db, [broken])).rejects.toThrow(MigrationError);
    await expect(applyFunctions(tdb.database.db, [broken])).rejects.toThrow(/rampart_test_broken/);
    expect(await recorded()).not.toContain('rampart_test_broken');
  });
});
