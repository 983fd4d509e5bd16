import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

/**
 * docs/deployment-at-scale.md plans how the schema is distributed by organisation on Citus: each
 * table Distributed (by organization_id, colocated), Reference (copied to every worker) or Local
 * (on the coordinator). The plan holds only if the schema the migrations make allows it, which is
 * what Citus requires of it: checked here, so that a new table or key cannot silently break it.
 */

type Kind = 'Distributed' | 'Reference' | 'Local';

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/deployment-at-scale.md'), 'utf8');

/** The plan's rows: `| \`table\` | Kind | why |`. */
function plan(): Map<string, Kind> {
  const kinds = new Map<string, Kind>();
  for (const m of DOC.matchAll(/^\| `([a-z_]+)` \| (Distributed|Reference|Local) \|/gm)) {
    expect(kinds.has(m[1]!), `${m[1]} is listed twice`).toBe(false);
    kinds.set(m[1]!, m[2] as Kind);
  }
  return kinds;
}

interface Key {
  table: string;
  name: string;
  type: 'p' | 'u' | 'f';
  columns: string[];
  references: string | null;
  referencedColumns: string[];
}

describe('the Citus plan of docs/deployment-at-scale.md', () => {
  let tdb: TestDatabase;
  let tables: string[];
  let keys: Key[];
  let uniqueIndexes: { table: string; name: string; columns: string[] }[];
  let nullableOrg: string[];

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    const db = tdb.database.db;
    tables = (
      await sql<{ name: string }>`
        select tablename as name from pg_tables where schemaname = 'public' order by 1`.execute(db)
    ).rows.map((r) => r.name);
    keys = (
      await sql<{
        table: string;
        name: string;
        type: 'p' | 'u' | 'f';
        columns: string[];
        references: string | null;
        referenced_columns: string[] | null;
      }>`
        select c.conrelid::regclass::text as table, c.conname as name, c.contype as type,
          array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
                  join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns,
          case when c.contype = 'f' then c.confrelid::regclass::text end as references,
          array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
                  join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i)
            as referenced_columns
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname = 'public' and c.contype in ('p', 'u', 'f')`.execute(db)
    ).rows.map((r) => ({
      table: r.table,
      name: r.name,
      type: r.type,
      columns: r.columns,
      references: r.references,
      referencedColumns: r.referenced_columns ?? [],
    }));
    uniqueIndexes = (
      await sql<{ table: string; name: string; columns: string[] }>`
        select t.relname::text as table, x.relname::text as name,
          array(select a.attname::text from unnest(i.indkey) with ordinality k(n, o)
                  join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.o) as columns
        from pg_index i join pg_class t on t.oid = i.indrelid join pg_class x on x.oid = i.indexrelid
          join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'public' and i.indisunique`.execute(db)
    ).rows;
    nullableOrg = (
      await sql<{ table: string }>`
        select table_name as table from information_schema.columns
        where table_schema = 'public' and column_name = 'organization_id' and is_nullable = 'YES'`.execute(db)
    ).rows.map((r) => r.table);
  });
  afterAll(() => tdb?.drop());

  it('lists every table the migrations make, once, and no other', () => {
    const kinds = plan();
    expect([...kinds.keys()].sort()).toEqual(tables);
  });

  it('distributes only tables whose every primary key and unique index holds a non-null organization_id', () => {
    const distributed = [...plan()].filter(([, k]) => k === 'Distributed').map(([t]) => t);
    for (const table of distributed) {
      expect(nullableOrg, `${table}.organization_id may be null`).not.toContain(table);
      const pk = keys.find((k) => k.table === table && k.type === 'p');
      expect(pk?.columns[0], `${table}'s primary key starts with organization_id`).toBe('organization_id');
      for (const index of uniqueIndexes.filter((i) => i.table === table))
        expect(index.columns, `unique index ${index.name} of ${table}`).toContain('organization_id');
    }
  });

  it('joins distributed tables only on organization_id, and refers from them only to distributed or reference tables', () => {
    const kinds = plan();
    for (const fk of keys.filter((k) => k.type === 'f')) {
      const from = kinds.get(fk.table);
      const to = kinds.get(fk.references!);
      const where = `${fk.name} (${fk.table} → ${fk.references})`;
      if (from === 'Distributed') {
        expect(to, where).not.toBe('Local');
        if (to === 'Distributed') {
          // Colocated: the key carries the distribution column to the same place.
          const at = fk.columns.indexOf('organization_id');
          expect(at, where).toBeGreaterThanOrEqual(0);
          expect(fk.referencedColumns[at], where).toBe('organization_id');
        }
      }
      // Reference and local tables may not point into distributed ones; reference tables not into local ones.
      if (from === 'Reference') expect(to, where).toBe('Reference');
      if (from === 'Local') expect(to, where).not.toBe('Distributed');
    }
  });
});
