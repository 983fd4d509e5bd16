import { type RawBuilder, sql } from 'kysely';

/**
 * A timestamp rendered by the database as JavaScript's toISOString() would render it. Exports
 * select text like this so that a million rows are not each parsed into Date objects only to be
 * printed again.
 */
export function isoText(column: string | RawBuilder<unknown>): RawBuilder<string | null> {
  const value = typeof column === 'string' ? sql.ref(column) : column;
  return sql<string | null>`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
