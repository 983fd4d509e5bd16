import { type RawBuilder, sql } from 'kysely';

/**
 * A timestamp rendered by the database as JavaScript's toISOString() would render it. Exports
 * select text like this so that a million rows are not each parsed into Date objects only to be
 * printed again.
 */
export function isoText(column: string): RawBuilder<string | null> {
  return sql<string | null>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
