import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { Config } from '../config.js';
import { moveLegacyData } from './embedded/legacy.js';
import { importLegacyData } from './embedded/migrate-pglite.js';
import {
  type EmbeddedServer,
  EmbeddedServerError,
  explainFsError,
  type ServerMemory,
  startEmbeddedServer,
} from './embedded/server.js';
import { acquireDataDirLock, DatabaseLockedError } from './lock.js';
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
  /** How a `pg` client reaches this database (backup and restore open their own connections). */
  connection: pg.ClientConfig;
  /** The embedded server's processes' memory (benchmarks, diagnostics); absent on PostgreSQL. */
  serverMemory?(): ServerMemory;
  /** The connection pool's use and waits now (the metrics); the same on both kinds. */
  poolFigures?(): PoolFigures;
}

/** What the pool of connections tells of itself, and what its callers waited for a connection. */
export interface PoolFigures {
  /** RAMPART_DB_POOL_SIZE: the most connections it opens. */
  max: number;
  /** Connections open, idle or in use. */
  total: number;
  idle: number;
  /** Callers waiting for a connection now. */
  waiting: number;
  /** Connections handed out since the pool was made, and the seconds callers waited for them. */
  acquired: number;
  waitSeconds: number;
}

export interface OpenOptions {
  /** The CLI command opening the database, recorded in the embedded database's lock. */
  command: string;
  embedded?: EmbeddedOptions;
}

// A SQL date is a calendar day: keep it as 'YYYY-MM-DD' text instead of a Date at local
// midnight, which shifts a day when the process runs west of UTC.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

function kyselyOn(pool: pg.Pool): { db: Kysely<DB>; poolFigures: () => PoolFigures } {
  // A connection the server drops (restart, crash) while checked out fails its query; its
  // 'error' event must not crash the process. The pool replaces idle ones itself.
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', () => {});
  // Every connection Kysely takes comes through connect(): the time each caller waited for one.
  let acquired = 0;
  let waitSeconds = 0;
  type Callback = (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void;
  const connect = pool.connect.bind(pool) as (callback?: Callback) => Promise<pg.PoolClient> | undefined;
  const waited = (started: number) => {
    acquired += 1;
    waitSeconds += (performance.now() - started) / 1000;
  };
  // Both of pg's forms: the promise Kysely uses and the callback pool.query uses.
  (pool as unknown as { connect: (callback?: Callback) => unknown }).connect = (callback?: Callback) => {
    const started = performance.now();
    if (callback)
      return connect((error, client, done) => {
        waited(started);
        callback(error, client, done);
      });
    return (connect() as Promise<pg.PoolClient>).finally(() => waited(started));
  };
  const poolFigures = (): PoolFigures => ({
    max: pool.options.max ?? 10,
    total: pool.totalCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
    acquired,
    waitSeconds,
  });
  // pg-cursor lets exports stream rows in chunks instead of loading them all.
  return { db: new Kysely<DB>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) }), poolFigures };
}

/** Opens PostgreSQL at DATABASE_URL, or else the embedded database in RAMPART_DATA_DIR. */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolSize'>,
  options: OpenOptions,
): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config.dbPoolSize);
  return openEmbedded(config.dataDir, options.command, { ...options.embedded, poolSize: config.dbPoolSize });
}

export async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const { db, poolFigures } = kyselyOn(pool);
  return {
    db,
    kind: 'postgresql',
    poolFigures,
    connection: { connectionString: url },
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

/** Where the embedded server's progress and faults are told: stderr unless the caller says. */
export interface EmbeddedOptions {
  log?: (line: string) => void;
  /** Connections in the pool (the same setting as for PostgreSQL). */
  poolSize?: number;
  /**
   * Called when the server stopped unexpectedly and could not be started again: the process
   * should shut down, for it has no database. Default: exit status 1 and a SIGTERM to this
   * process, which `rampart serve` answers with its graceful shutdown.
   */
  onLost?: (error: Error) => void;
}

// Restarts of a server that keeps dying are given up after this many in this window.
const RESTARTS_ALLOWED = 3;
const RESTART_WINDOW_MS = 60_000;

/**
 * Opens the embedded database: a PostgreSQL server Rampart runs itself (./embedded/server.ts)
 * with its data in `dataDir`, or in a throwaway folder for `memory://`. From here on the same
 * code path as an external PostgreSQL: a pool of connections, MVCC, no worker thread.
 */
export async function openEmbedded(
  dataDir: string,
  command: string,
  options: EmbeddedOptions = {},
): Promise<Database> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const throwaway = dataDir === 'memory://';
  const dir = throwaway ? fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-embedded-')) : path.resolve(dataDir);
  let release: () => void;
  try {
    release = acquireDataDirLock(dir, command);
  } catch (error) {
    if (error instanceof DatabaseLockedError) throw error;
    throw explainFsError(error, dir);
  }
  try {
    await moveLegacyData(dir, log);
    const server = await startEmbeddedServer(dir, { log, removeOnStop: throwaway });
    // The data of an earlier Rampart's PGlite database, on the first start after the upgrade.
    await importLegacyData(dir, server.connection, log).catch(async (error) => {
      await server.stop();
      throw error;
    });
    const pool = new pg.Pool({ ...server.connection, max: options.poolSize ?? 10 });
    const { db, poolFigures } = kyselyOn(pool);
    watchServer(server, log, options.onLost);
    return {
      db,
      kind: 'embedded',
      connection: server.connection,
      // One process holds the embedded database (the data folder's lock): nobody to wait for.
      exclusive: (_name, work) => work(),
      serverMemory: () => server.memory(),
      poolFigures,
      close: async () => {
        await db.destroy();
        await server.stop();
        release();
      },
    };
  } catch (error) {
    release();
    if (throwaway) fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A server that stops on its own (killed, out of memory) is started again: PostgreSQL replays its
 * write-ahead log, so nothing committed is lost, and the pool replaces its broken connections.
 * One that keeps stopping is given up, and the process told.
 */
function watchServer(
  server: EmbeddedServer,
  log: (line: string) => void,
  onLost?: (error: Error) => void,
): void {
  const restarts: number[] = [];
  server.onUnexpectedExit((exit) => {
    const how = exit.signal ?? `exit code ${exit.code}`;
    const now = performance.now();
    while (restarts.length > 0 && now - (restarts[0] as number) > RESTART_WINDOW_MS) restarts.shift();
    const lost = (why: string) => {
      const error = new EmbeddedServerError(`The embedded database server stopped (${how}) ${why}`);
      log(error.message);
      if (onLost) onLost(error);
      else {
        process.exitCode = 1;
        process.kill(process.pid, 'SIGTERM');
      }
    };
    if (restarts.length >= RESTARTS_ALLOWED) {
      lost(`for the ${restarts.length + 1}th time in a minute: giving up.`);
      return;
    }
    restarts.push(now);
    log(`The embedded database server stopped unexpectedly (${how}): starting it again`);
    server.restart().then(
      () => log('The embedded database server is running again'),
      (error: Error) => lost(`and could not be started again: ${error.message}`),
    );
  });
}
