import { BOOKKEEPING_TABLES } from './format.js';

/** Runs a query and returns its rows (pg's client and PGlite both fit). */
export type Query = <R>(text: string, params?: unknown[]) => Promise<R[]>;

export interface TableInfo {
  name: string;
  /** The columns a COPY writes and reads, in table order: every stored one but generated ones. */
  columns: string[];
  /** The tables it references by a foreign key (itself excluded). */
  references: string[];
}

/**
 * Rampart's tables in the public schema, from pg_catalog, in an order that satisfies their foreign
 * keys (a table after every table it references; ties by name, so that it is the same every time).
 */
export async function listTables(query: Query): Promise<TableInfo[]> {
  const columns = await query<{ table: string; column: string }>(
    `select c.relname as "table", a.attname as "column"
       from pg_catalog.pg_class c
       join pg_catalog.pg_attribute a on a.attrelid = c.oid
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
        and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      order by c.relname, a.attnum`,
  );
  const references = await query<{ table: string; referenced: string }>(
    `select distinct c.relname as "table", r.relname as referenced
       from pg_catalog.pg_constraint k
       join pg_catalog.pg_class c on c.oid = k.conrelid
       join pg_catalog.pg_class r on r.oid = k.confrelid
      where k.contype = 'f' and c.relnamespace = 'public'::regnamespace
        and r.relnamespace = 'public'::regnamespace`,
  );
  const tables = new Map<string, TableInfo>();
  for (const row of columns) {
    if (BOOKKEEPING_TABLES.has(row.table)) continue;
    let table = tables.get(row.table);
    if (!table) {
      table = { name: row.table, columns: [], references: [] };
      tables.set(row.table, table);
    }
    table.columns.push(row.column);
  }
  for (const row of references) {
    // A table referencing itself loads in one COPY, whose foreign key checks run at its end.
    if (row.table !== row.referenced) tables.get(row.table)?.references.push(row.referenced);
  }
  return dependencyOrder([...tables.values()]);
}

/** Tables ordered so that each comes after those it references; ties by name. */
export function dependencyOrder(tables: readonly TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const ordered: TableInfo[] = [];
  const waiting = [...tables].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  while (waiting.length > 0) {
    const next = waiting.findIndex((t) => t.references.every((r) => done.has(r) || !byName.has(r)));
    if (next < 0)
      throw new Error(
        `The tables ${waiting.map((t) => t.name).join(', ')} reference each other in a cycle: no load order satisfies their foreign keys`,
      );
    const [table] = waiting.splice(next, 1) as [TableInfo];
    done.add(table.name);
    ordered.push(table);
  }
  return ordered;
}

/** The sequences in the public schema, by name. */
export async function listSequences(query: Query): Promise<string[]> {
  const rows = await query<{ name: string }>(
    `select relname as name from pg_catalog.pg_class
      where relnamespace = 'public'::regnamespace and relkind = 'S' order by relname`,
  );
  return rows.map((r) => r.name);
}

/** The migrations applied, in the order they were (Kysely names sort in that order). */
export async function appliedMigrations(query: Query): Promise<string[]> {
  const found = await query<{ found: string | null }>(
    `select to_regclass('public.kysely_migration')::text as found`,
  );
  if (found[0]?.found == null) return [];
  const rows = await query<{ name: string }>(
    'select name from public.kysely_migration order by name collate "C"',
  );
  return rows.map((r) => r.name);
}
