import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;

/** A table where a module stages an import's rows while the report streams in (import_findings, …). */
export type StagingTable = Extract<keyof DB, `import_${string}`>;

/** The imports that have rows staged in these tables: what a sweep looks at. */
export async function importsStagedIn(
  db: Db,
  tables: readonly StagingTable[],
): Promise<{ organizationId: string; importId: string }[]> {
  const rows = [];
  for (const table of tables)
    rows.push(
      ...(await db
        .selectFrom(table)
        .select(['organization_id as organizationId', 'import_id as importId'])
        .distinct()
        .execute()),
    );
  return rows;
}

/** Removes what an import staged in these tables. */
export async function clearStaged(
  db: Db,
  tables: readonly StagingTable[],
  organizationId: string,
  importId: string,
): Promise<void> {
  for (const table of tables)
    await db
      .deleteFrom(table)
      .where('organization_id', '=', organizationId)
      .where('import_id', '=', importId)
      .execute();
}
