import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { Config } from '../config.js';
import { startEmbeddedServer } from './embedded.js';
import { acquireDataDirLock } from './lock.js';
import type { DB } from './schema.js';

export type DatabaseKind = 'embedded' | 'postgresql';

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseKind;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** The CLI command opening the database, recorded in the embedded database's lock. */
  command: string;
}

// A SQL date is a calendar day: keep it as 'YYYY-MM-DD' text instead of a Date at local
// midnight, which shifts a day when the process runs west of UTC.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

function kyselyOn(pool: pg.Pool): Kysely<DB> {
  // pg-cursor lets exports stream rows in chunks instead of loading them all.
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
}

/** Opens PostgreSQL at DATABASE_URL, or else the embedded database in RAMPART_DATA_DIR. */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolSize'>,
  options: OpenOptions,
): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config.dbPoolSize);
  return openEmbedded(config.dataDir, options.command);
}

export async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = kyselyOn(pool);
  return { db, kind: 'postgresql', close: () => db.destroy() };
}

export async function openEmbedded(dataDir: string, command: string): Promise<Database> {
  const release = dataDir === 'memory://' ? () => {} : acquireDataDirLock(dataDir, command);
  try {
    const server = await startEmbeddedServer(dataDir);
    const pool = new pg.Pool({
      host: server.socketDir,
      port: server.port,
      user: 'postgres',
      database: 'postgres',
      max: 1,
      idleTimeoutMillis: 0,
    });
    pool.on('error', () => {});
    const db = kyselyOn(pool);
    return {
      db,
      kind: 'embedded',
      close: async () => {
        await db.destroy();
        await server.stop();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
