import fs from 'node:fs';
import { openInvalidationBus } from '../background.js';
import { type Config, loadConfig } from '../config.js';
import { type Database, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { InvalidationBus } from '../lib/invalidation-bus.js';
import type { Organization } from '../modules/organizations/service.js';
import type { RunExecutor, ScanKind } from '../scanning/types.js';
import { buildServices, type Services } from '../services.js';

export interface Output {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface CliEnv {
  env: Record<string, string | undefined>;
  out: Output;
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

export interface Runtime {
  config: Config;
  database: Database;
  services: Services;
  /**
   * The services' invalidation bus. The HTTP app of `rampart serve` shares it and closes it on
   * shutdown, before `close` closes it again (a no-op).
   */
  bus: InvalidationBus;
  firstOrganization: Organization;
  appliedMigrations: string[];
  createdOrganization: boolean;
  close(): Promise<void>;
}

export function readConfig(cli: CliEnv): Config {
  return loadConfig(cli.env, (p) => fs.readFileSync(p, 'utf8'));
}

export interface RuntimeOptions {
  /**
   * Seconds a verified API key stays cached: 0 (the default) for a command, which verifies none;
   * the server's RAMPART_AUTH_CACHE_SECONDS for `rampart serve`.
   */
  authCacheSeconds?: number;
}

/**
 * Opens the database for a command: applies migrations and creates the first organisation on an
 * empty database, so that every command leaves a usable database behind.
 */
export async function openRuntime(
  cli: CliEnv,
  command: string,
  config = readConfig(cli),
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const database = await openDatabase(config, { command });
  let bus: InvalidationBus | undefined;
  try {
    // A revoke from the CLI reaches running servers' caches through Redis when it is configured.
    bus = openInvalidationBus(config);
    const services = buildServices(database, cli.clock ?? systemClock, bus, {
      ...config,
      authCacheSeconds: options.authCacheSeconds ?? 0,
    });
    // Processes starting at once on a new database: one migrates (re-applying the SQL functions
    // whose file changed) and creates the first organisation, the others wait and find it done.
    const { appliedMigrations, organization, created } = await database.exclusive('first-start', async () => {
      const applied = await migrateToLatest(database.db);
      return { appliedMigrations: applied, ...(await services.organizations.ensureFirst()) };
    });
    const openBus = bus;
    return {
      config,
      database,
      services,
      bus: openBus,
      firstOrganization: organization,
      appliedMigrations,
      createdOrganization: created,
      close: async () => {
        await services.apiKeys.flushLastUsed();
        await openBus.close();
        await database.close();
      },
    };
  } catch (error) {
    await bus?.close();
    await database.close();
    throw error;
  }
}
