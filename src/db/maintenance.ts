import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from './schema.js';

/**
 * PostgreSQL's autovacuum thresholds (its defaults): a table is analysed once more than
 * `analyzeBase + analyzeScale × rows` rows changed since its last analysis, and vacuumed once it
 * holds more than `vacuumBase + vacuumScale × rows` dead rows, or had more than
 * `insertBase + insertScale × rows` rows inserted since its last vacuum (which keeps the
 * visibility map current for index-only scans).
 */
export const AUTOVACUUM_RULES = {
  analyzeBase: 50,
  analyzeScale: 0.1,
  vacuumBase: 50,
  vacuumScale: 0.2,
  insertBase: 1000,
  insertScale: 0.2,
};

export type MaintenanceRules = typeof AUTOVACUUM_RULES;

export interface TableMaintenance {
  table: string;
  action: 'analyze' | 'vacuum';
}

interface TableStats {
  table: string;
  rows: number;
  modified: number;
  dead: number;
  inserted: number;
}

/** The tables whose statistics or dead rows have passed the thresholds, and what each needs. */
export function dueMaintenance(tables: TableStats[], rules: MaintenanceRules): TableMaintenance[] {
  const due: TableMaintenance[] = [];
  for (const t of tables) {
    // A table never analysed has reltuples -1: count it as empty, so any change is enough.
    const rows = Math.max(0, t.rows);
    const needsVacuum =
      t.dead > rules.vacuumBase + rules.vacuumScale * rows ||
      t.inserted > rules.insertBase + rules.insertScale * rows;
    // VACUUM (ANALYZE) does both in one pass over the table.
    if (needsVacuum) due.push({ table: t.table, action: 'vacuum' });
    else if (t.modified > rules.analyzeBase + rules.analyzeScale * rows)
      due.push({ table: t.table, action: 'analyze' });
  }
  return due;
}

/**
 * Does autovacuum's work on a database that has no autovacuum: a PostgreSQL server with
 * `autovacuum = off` (and PGlite, the embedded database of earlier versions). Without it, tables filled by an import are
 * never analysed (the planner takes a 100,000-finding table for one row and joins it row by row:
 * a findings page took 300–700 ms instead of a few) and rows replaced by re-imports are never
 * reclaimed. Reads the activity counters, then analyses or vacuums each table past PostgreSQL's
 * default thresholds, one table at a time, so that other queries get the connection between them.
 */
export async function maintainTables(
  db: Kysely<DB>,
  rules: MaintenanceRules = AUTOVACUUM_RULES,
): Promise<TableMaintenance[]> {
  const { rows } = await sql<TableStats>`
    select s.relname as "table",
           c.reltuples::float8 as rows,
           s.n_mod_since_analyze::float8 as modified,
           s.n_dead_tup::float8 as dead,
           s.n_ins_since_vacuum::float8 as inserted
      from pg_stat_user_tables s
      join pg_class c on c.oid = s.relid
     where s.schemaname = current_schema()`.execute(db);
  const due = dueMaintenance(rows, rules);
  for (const { table, action } of due) {
    // VACUUM cannot run inside a transaction: each is its own statement on the pool.
    if (action === 'vacuum') await sql`vacuum (analyze) ${sql.table(table)}`.execute(db);
    else await sql`analyze ${sql.table(table)}`.execute(db);
  }
  return due;
}

/**
 * Whether this process must do autovacuum's work: on a PostgreSQL server whose autovacuum is off.
 * Without it, imported tables are never analysed: the planner takes 100,000 findings for one row
 * and a findings page costs 0.3–0.9 s instead of milliseconds. The embedded server runs its own
 * autovacuum (PGlite, the embedded database of earlier versions, had none).
 */
export async function tablesNeedUs(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(db);
  return rows[0]?.autovacuum !== 'on';
}

/**
 * Analyses, inside the caller's transaction, each table that grew past autovacuum's analyse
 * threshold by the rows `added` says it gained (an import's merge). Until a table is analysed its
 * statistics are the empty table's and a findings page costs 0.1–0.7 s instead of ~10 ms: on the
 * embedded database every request that waited for its one connection during the merge would run
 * so, and the table maintenance after them; on PostgreSQL until autovacuum's next round. ANALYZE
 * counts the rows its own transaction inserted, and the statistics apply from its commit.
 */
export async function analyzeGrown(
  db: Kysely<DB> | Transaction<DB>,
  added: Record<string, number>,
  rules: MaintenanceRules = AUTOVACUUM_RULES,
): Promise<string[]> {
  const tables = Object.keys(added).filter((t) => (added[t] ?? 0) > rules.analyzeBase);
  if (tables.length === 0) return [];
  const { rows } = await sql<{ table: string; rows: number }>`
    select c.relname as "table", c.reltuples::float8 as rows from pg_class c
     where c.relnamespace = current_schema()::regnamespace and c.relname = any(${tables}::text[])`.execute(
    db,
  );
  const grown = rows
    .filter((r) => (added[r.table] ?? 0) > rules.analyzeBase + rules.analyzeScale * Math.max(0, r.rows))
    .map((r) => r.table);
  for (const table of grown) await sql`analyze ${sql.table(table)}`.execute(db);
  return grown;
}
