import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTOVACUUM_RULES,
  analyzeGrown,
  dueMaintenance,
  maintainTables,
  tablesNeedUs,
} from '../../src/db/maintenance.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

const stats = (over: Partial<Parameters<typeof dueMaintenance>[0][number]>) => ({
  table: 't',
  rows: 10_000,
  modified: 0,
  dead: 0,
  inserted: 0,
  ...over,
});

describe('dueMaintenance: autovacuum thresholds', () => {
  it('analyses past 50 + 10 % of the rows changed, not before', () => {
    expect(dueMaintenance([stats({ modified: 1050 })], AUTOVACUUM_RULES)).toEqual([]);
    expect(dueMaintenance([stats({ modified: 1051 })], AUTOVACUUM_RULES)).toEqual([
      { table: 't', action: 'analyze' },
    ]);
  });

  it('vacuums past 50 + 20 % dead rows or 1000 + 20 % inserted rows, analysing in the same pass', () => {
    expect(dueMaintenance([stats({ dead: 2050, modified: 5000 })], AUTOVACUUM_RULES)).toEqual([
      { table: 't', action: 'analyze' },
    ]);
    expect(dueMaintenance([stats({ dead: 2051, modified: 5000 })], AUTOVACUUM_RULES)).toEqual([
      { table: 't', action: 'vacuum' },
    ]);
    expect(dueMaintenance([stats({ inserted: 3001 })], AUTOVACUUM_RULES)).toEqual([
      { table: 't', action: 'vacuum' },
    ]);
  });

  it('counts a table never analysed (reltuples -1) as empty', () => {
    expect(dueMaintenance([stats({ rows: -1, modified: 51 })], AUTOVACUUM_RULES)).toEqual([
      { table: 't', action: 'analyze' },
    ]);
    expect(dueMaintenance([stats({ rows: -1, modified: 50 })], AUTOVACUUM_RULES)).toEqual([]);
  });
});

// maintainTables does autovacuum's work where a server has none running (the counters go back to zero).
describe('maintainTables on the embedded database [embedded]', () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  /** PostgreSQL publishes a session's counters when it is idle, at most once a second. */
  async function countersOf(table: string, until: (row: Counters) => boolean): Promise<Counters> {
    for (let i = 0; i < 40; i++) {
      await sql`select 1`.execute(tdb.database.db);
      const { rows } = await sql<Counters>`
        select s.n_mod_since_analyze::int as modified, s.n_dead_tup::int as dead,
               c.reltuples::int as rows
          from pg_stat_user_tables s join pg_class c on c.oid = s.relid
         where s.relname = ${table}`.execute(tdb.database.db);
      if (rows[0] && until(rows[0])) return rows[0];
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`the counters of ${table} did not reach the expected values`);
  }

  interface Counters {
    modified: number;
    dead: number;
    rows: number;
  }

  it('analyses a table filled since, then leaves it alone', async () => {
    const db = tdb.database.db;
    await sql`create table maintenance_probe (id int primary key, body text)`.execute(db);
    await sql`insert into maintenance_probe select g, md5(g::text) from generate_series(1, 5000) g`.execute(
      db,
    );
    await countersOf('maintenance_probe', (c) => c.modified >= 5000);

    const done = await maintainTables(db);
    // 5,000 inserted into a table of "no rows": past the insert threshold, so vacuum (analyze).
    expect(done).toContainEqual({ table: 'maintenance_probe', action: 'vacuum' });
    const after = await countersOf('maintenance_probe', (c) => c.modified === 0);
    expect(after.rows).toBe(5000);

    await countersOf('maintenance_probe', () => true);
    expect((await maintainTables(db)).map((m) => m.table)).not.toContain('maintenance_probe');
  });

  it('vacuums the rows that updates left dead', async () => {
    const db = tdb.database.db;
    await sql`update maintenance_probe set body = body || 'x' where id <= 3000`.execute(db);
    await countersOf('maintenance_probe', (c) => c.dead >= 3000);

    expect(await maintainTables(db)).toContainEqual({ table: 'maintenance_probe', action: 'vacuum' });
    const after = await countersOf('maintenance_probe', (c) => c.dead === 0);
    expect(after).toMatchObject({ dead: 0, modified: 0, rows: 5000 });
  });

  it('analyses, inside a transaction, a table that grew past the threshold by its own inserts', async () => {
    const db = tdb.database.db;
    await sql`create table maintenance_grown (id int primary key)`.execute(db);
    const grown = await db.transaction().execute(async (trx) => {
      await sql`insert into maintenance_grown select g from generate_series(1, 4000) g`.execute(trx);
      return analyzeGrown(trx, { maintenance_grown: 4000 });
    });
    expect(grown).toEqual(['maintenance_grown']);
    // Known at once, with no maintenance pass: the rows the transaction itself inserted count.
    const { rows } = await sql<{ rows: number }>`
      select reltuples::int as rows from pg_class where relname = 'maintenance_grown'`.execute(db);
    expect(rows[0]?.rows).toBe(4000);
    // 300 more rows of 4,000 is under 50 + 10 %.
    expect(await analyzeGrown(db, { maintenance_grown: 300 })).toEqual([]);
    expect(await analyzeGrown(db, { maintenance_grown: 20 })).toEqual([]);
  });

  it('gives a 100-row page of a large table from an index once analysed', async () => {
    const db = tdb.database.db;
    await sql`create table maintenance_plan (id int primary key, grp int not null, score int not null)`.execute(
      db,
    );
    await sql`create index maintenance_plan_grp_score on maintenance_plan (grp, score desc)`.execute(db);
    await sql`insert into maintenance_plan select g, g % 50, g from generate_series(1, 50000) g`.execute(db);
    await countersOf('maintenance_plan', (c) => c.modified >= 50000);
    await maintainTables(db);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`
      explain select * from maintenance_plan where grp = 7 order by score desc limit 100`.execute(db);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index Scan using maintenance_plan_grp_score/);
    // The planner knows a group holds about 1,000 rows (50,000 over 50), not a guess.
    const estimate = Number(/Index Scan.*rows=(\d+)/.exec(plan)?.[1]);
    expect(estimate).toBeGreaterThan(900);
    expect(estimate).toBeLessThan(1100);
  });
});

describe.each(DB_KINDS)('who maintains the tables [%s]', (kind) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it("Rampart only when the server's autovacuum is off (the embedded server runs its own)", async () => {
    const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(tdb.database.db);
    if (kind === 'embedded') expect(rows[0]?.autovacuum).toBe('on');
    expect(await tablesNeedUs(tdb.database.db)).toBe(rows[0]?.autovacuum !== 'on');
  });
});
