import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { Config } from '../config.js';
import { type EmbeddedMemory, startEmbeddedServer } from './embedded.js';
import { acquireDataDirLock } from './lock.js';
import type { DB } from './schema.js';

export type DatabaseKind = 'embedded' | 'postgresql';

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseKind;
  /**
   * Runs `work` while holding an installation-wide lock named `name`: of any number of processes
   * calling it at once, one runs at a time and the others wait for it (first-start work).
   */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** The embedded database thread's memory (benchmarks, diagnostics); absent on PostgreSQL. */
  embeddedMemory?(): Promise<EmbeddedMemory>;
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
  return {
    db,
    kind: 'postgresql',
    exclusive: (name, work) => withSessionLock(url, name, work),
    close: () => db.destroy(),
  };
}

/**
 * A PostgreSQL session advisory lock on a connection of its own (not one of the pool's, which the
 * work itself needs). The server drops it when the session ends, so a process that dies holding
 * it does not block the others.
 */
async function withSessionLock<T>(url: string, name: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [`rampart:${name}`]);
    return await work();
  } finally {
    // Ending the session releases the lock even if the unlock itself cannot be sent.
    await client.end().catch(() => {});
  }
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
      // One process holds the embedded database (the data directory's lock): nobody to wait for.
      exclusive: (_name, work) => work(),
      embeddedMemory: () => server.memory(),
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
