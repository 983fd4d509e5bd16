import fs from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { type Composition, compose } from '../compose.js';
import { type Config, loadConfig } from '../config.js';
import { hasLegacyLayout, pendingLegacyDir } from '../db/embedded/legacy.js';
import { serverExists } from '../db/embedded/server.js';
import { migrateToLatest, wasMigrated } from '../db/migrate.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Organization } from '../modules/organizations/service.js';
import type { RunExecutor, ScanKind } from '../scanning/types.js';

export interface Output {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface CliEnv {
  env: Record<string, string | undefined>;
  out: Output;
  /** What `--password-stdin` reads (process.stdin in the real command). */
  stdin?: Readable;
  /**
   * Standard output as a stream (process.stdout in the real command), for output too large for
   * `out.stdout` (`rampart backup --output -`): writing through it waits when the reader is slow,
   * where `out.stdout` would queue the whole backup in memory. Without it, `out.stdout` is used.
   */
  stdoutStream?: Writable;
  /** The application's time; tests pass a fixed one (default: the system's). */
  clock?: Clock;
  /** The engines of `rampart scan-node` (default: the built-in ones); tests pass a stand-in. */
  scanExecutors?: ReadonlyMap<ScanKind, RunExecutor>;
  /**
   * Ends the process when a shutdown outlasts RAMPART_SHUTDOWN_TIMEOUT: `process.exit` in the
   * real command. Left out where the command runs inside another program (the tests), whose
   * process it must never end: there a slow shutdown is only awaited.
   */
  exit?: (code: number) => void;
}

/** A command's composition on a migrated database with its first organisation. */
export interface Runtime extends Composition {
  firstOrganization: Organization;
  appliedMigrations: string[];
  createdOrganization: boolean;
}

export function readConfig(cli: CliEnv): Config {
  return loadConfig(cli.env, (p) => fs.readFileSync(p, 'utf8'));
}

/** How a command names its database (first line on stderr): never with the password. */
export function describeDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) {
    if (config.dataDir === 'memory://') return 'Using a throwaway embedded database in memory';
    return `Using the embedded database at ${path.resolve(config.dataDir)}`;
  }
  return `Using PostgreSQL at ${postgresWhere(config.databaseUrl)}`;
}

/** `host:port/database` of a PostgreSQL URL, without user or password. */
function postgresWhere(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `${host}:${u.port || 5432}${u.pathname || '/'}`;
  } catch {
    return 'the server of DATABASE_URL';
  }
}

/** A command that only reads found no Rampart database where it was told to look. */
export class NoDatabaseError extends Error {
  constructor(config: Pick<Config, 'databaseUrl' | 'dataDir'>) {
    const where = config.databaseUrl ? postgresWhere(config.databaseUrl) : path.resolve(config.dataDir);
    super(`no Rampart database at ${where} (set RAMPART_DATA_DIR or DATABASE_URL)`);
    this.name = 'NoDatabaseError';
  }
}

/** Whether Rampart's embedded database exists in the data directory (without creating anything). */
export function embeddedExists(dataDir: string): boolean {
  if (dataDir === 'memory://') return false;
  // The server's folder, or the PGlite files of an earlier Rampart, which the first start moves in.
  return serverExists(dataDir) || hasLegacyLayout(dataDir) || pendingLegacyDir(dataDir) !== undefined;
}

export interface RuntimeOptions {
  /**
   * Seconds a verified API key stays cached: 0 (the default) for a command, which verifies none;
   * the server's RAMPART_AUTH_CACHE_SECONDS for `rampart serve`.
   */
  authCacheSeconds?: number;
  /**
   * The command only reads (or changes what must already be there): it refuses, with
   * NoDatabaseError, where there is no Rampart database, instead of creating one.
   */
  existing?: boolean;
}

/**
 * Composes Rampart for a command (src/compose.ts): opens the database, applies migrations and
 * creates the first organisation on an empty database, so that every command leaves a usable
 * database behind. Nothing runs in the background unless the command starts it (`rampart serve`).
 */
export async function openRuntime(
  cli: CliEnv,
  command: string,
  config = readConfig(cli),
  options: RuntimeOptions = {},
): Promise<Runtime> {
  cli.out.stderr(`${describeDatabase(config)}\n`);
  if (options.existing && !config.databaseUrl && !embeddedExists(config.dataDir))
    throw new NoDatabaseError(config);
  // A revoke from the CLI reaches running servers' caches through Redis when it is configured.
  const composition = await compose(config, {
    open: { command, embedded: { log: (line) => cli.out.stderr(`${line}\n`) } },
    clock: cli.clock ?? systemClock,
    authCacheSeconds: options.authCacheSeconds ?? 0,
  });
  const { database, services } = composition;
  try {
    if (options.existing && database.kind === 'postgresql' && !(await wasMigrated(database.db)))
      throw new NoDatabaseError(config);
    // Processes starting at once on a new database: one migrates (re-applying the SQL functions
    // whose file changed) and creates the first organisation, the others wait and find it done.
    const { appliedMigrations, organization, created } = await database.exclusive('first-start', async () => {
      const applied = await migrateToLatest(database.db);
      return { appliedMigrations: applied, ...(await services.organizations.ensureFirst()) };
    });
    return {
      ...composition,
      firstOrganization: organization,
      appliedMigrations,
      createdOrganization: created,
    };
  } catch (error) {
    await composition.close();
    throw error;
  }
}
