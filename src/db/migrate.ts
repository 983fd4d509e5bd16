import { createHash } from 'node:crypto';
import { type Kysely, type MigrationResultSet, Migrator, sql } from 'kysely';
import { FUNCTIONS } from './functions/index.js';
import type { SqlFunction } from './functions/types.js';
import { migrations } from './migrations/index.js';
import type { DB } from './schema.js';

export class MigrationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/**
 * Whether Rampart's migrations were ever applied to this database (its migration table exists),
 * found without creating anything.
 */
// biome-ignore lint/suspicious/noExplicitAny: asked of any schema
export async function wasMigrated(db: Kysely<any>): Promise<boolean> {
  const result = await sql<{
    found: string | null;
  }>`select to_regclass('kysely_migration')::text as found`.execute(db);
  return result.rows[0]?.found != null;
}

export interface MigrateOptions {
  /**
   * The caller has a transaction open on the database's only connection (a restore): run every
   * migration and function in it, opening none (a nested BEGIN would be ignored, and its COMMIT
   * would end the caller's transaction).
   */
  inTransaction?: boolean;
}

/** The names of the migrations this code knows, in the order they apply. */
export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(migrations).sort();

// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema
function migratorOf(db: Kysely<any>, options: MigrateOptions): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    disableTransactions: options.inTransaction === true,
  });
}

function succeeded(result: MigrationResultSet): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`Migration ${failed} failed: ${(result.error as Error).message}`, {
      cause: result.error,
    });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Applies every pending migration, then every SQL function whose definition changed; returns the
 * names of the migrations applied now (empty when up to date).
 */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions = {}): Promise<string[]> {
  const names = succeeded(await migratorOf(db, options).migrateToLatest());
  await applyFunctions(db, FUNCTIONS, options);
  return names;
}

/**
 * Applies the migrations up to and including `name` and no further (a restore brings an empty
 * database to its backup's schema before loading the data); the SQL functions come with the
 * latest migration, from migrateToLatest. Returns the names applied now.
 */
export async function migrateTo(
  // biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema
  db: Kysely<any>,
  name: string,
  options: MigrateOptions = {},
): Promise<string[]> {
  if (!KNOWN_MIGRATIONS.includes(name)) throw new MigrationError(`Unknown migration ${name}`);
  return succeeded(await migratorOf(db, options).migrateTo(name));
}

const hashOf = (definition: string) => createHash('sha256').update(definition).digest('hex');

/**
 * Applies each function whose definition differs from the one last applied (by hash), each with
 * its hash in one transaction; returns the names applied now. Processes starting together call it
 * under the first-start lock, so that two never replace the same function at once.
 */
export async function applyFunctions(
  db: Kysely<DB>,
  functions: readonly SqlFunction[] = FUNCTIONS,
  options: MigrateOptions = {},
): Promise<string[]> {
  const applied = await db.selectFrom('sql_functions').select(['name', 'content_hash']).execute();
  const hashes = new Map(applied.map((row) => [row.name, row.content_hash]));
  const changed = functions.filter((f) => hashes.get(f.name) !== hashOf(f.definition));
  for (const f of changed) {
    const contentHash = hashOf(f.definition);
    try {
      const apply = async (trx: Kysely<DB>) => {
        await sql.raw(f.definition).execute(trx);
        await trx
          .insertInto('sql_functions')
          .values({ name: f.name, content_hash: contentHash })
          .onConflict((oc) => oc.column('name').doUpdateSet({ content_hash: contentHash }))
          .execute();
      };
      if (options.inTransaction) await apply(db);
      else await db.transaction().execute(apply);
    } catch (error) {
      throw new MigrationError(`SQL function ${f.name} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return changed.map((f) => f.name);
}
