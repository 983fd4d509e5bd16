import { Redis } from 'ioredis';
import { type AppOptions, buildApp, type RampartApp } from './app.js';
import { type Background, startBackground } from './background.js';
import type { Config } from './config.js';
import { type Database, type OpenOptions, openDatabase } from './db/database.js';
import { type Clock, systemClock } from './lib/clock.js';
import { type InvalidationBus, LocalInvalidationBus, RedisInvalidationBus } from './lib/invalidation-bus.js';
import { builtInExecutors } from './scanning/node/executors.js';
import type { RunExecutor, ScanKind } from './scanning/types.js';
import { buildServices, type Services } from './services.js';

// The composition root: what a Rampart process is made of, built in one place and in the order
// each part needs the one before it: configuration → database → invalidation bus → services →
// background work. The HTTP app (src/app.ts) is built on the services and only registers plugins
// and routes; the background work starts only when asked, by `rampart serve` (src/cli/serve.ts)
// and by the tests that need jobs or scans to run. A command (or `npm run gen:web-types`) that
// composes without starting it runs no job, schedule or scan node.

export interface ComposeOptions {
  /** A database the caller opened and closes (tests, scripts); else the one config names is opened. */
  database?: Database;
  /** How the database is opened when compose opens it: the command named in its lock, its log. */
  open?: OpenOptions;
  /** The application's time (default: the system's); tests pass a movable one. */
  clock?: Clock;
  /** Seconds a verified API key stays cached: the server's setting; 0 (the default) for a command. */
  authCacheSeconds?: number;
}

export interface BackgroundStart {
  log: Parameters<typeof startBackground>[0]['log'];
  /** Take up at start the work a stopped process left (default true; see BackgroundOptions). */
  resumeInterrupted?: boolean;
  /** The local scan node's engines (default: the built-in ones), when RAMPART_LOCAL_SCAN_NODE is on. */
  scanExecutors?: ReadonlyMap<ScanKind, RunExecutor>;
}

export interface Composition {
  config: Config;
  database: Database;
  /** Tells every instance to drop cached API keys (through Redis when configured). */
  bus: InvalidationBus;
  services: Services;
  /**
   * Starts the work beside the requests: the job runner with every kind of the job catalogue,
   * the system schedules, the local tasks and the local scan node. Once per composition.
   */
  startBackground(options: BackgroundStart): Promise<Background>;
  /**
   * Stops the background work (when started), records the last API key use, closes the bus, then
   * the database when compose opened it: last, since everything before may still use it.
   */
  close(): Promise<void>;
}

/** Tells every instance to drop cached API keys: through Redis when configured, else this one. */
export function openInvalidationBus(config: Pick<Config, 'redisUrl' | 'redisPrefix'>): InvalidationBus {
  return config.redisUrl
    ? new RedisInvalidationBus(config.redisUrl, config.redisPrefix)
    : new LocalInvalidationBus();
}

/** The throttle's connection; fails at start when Redis is configured but unreachable. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Cannot reach Redis at REDIS_URL: ${(error as Error).message}`);
  }
  return redis;
}

export async function compose(config: Config, options: ComposeOptions = {}): Promise<Composition> {
  const clock = options.clock ?? systemClock;
  // The database: the caller's, or the one the configuration names (opened, not migrated).
  const ownDatabase = !options.database;
  const database = options.database ?? (await openDatabase(config, options.open ?? { command: 'rampart' }));
  // A revoke reaches every instance's API key cache through it; the services raise it.
  const bus = openInvalidationBus(config);
  // The service graph: every dependency goes to a constructor, in one direction (src/services.ts).
  const services = buildServices(database, clock, bus, {
    ...config,
    authCacheSeconds: options.authCacheSeconds ?? 0,
  });
  // The background work, started on demand and stopped first on close.
  let background: Promise<Background> | undefined;
  const start = async (how: BackgroundStart): Promise<Background> => {
    if (background) throw new Error('The background work of this composition has started already.');
    background = startBackground({
      services,
      databaseKind: database.kind,
      db: database.db,
      exclusive: database.exclusive,
      log: how.log,
      config,
      resumeInterrupted: how.resumeInterrupted,
      localScanNode: config.localScanNode && { executors: how.scanExecutors ?? builtInExecutors(clock) },
    });
    return background;
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      try {
        const running = await background?.catch(() => undefined);
        await running?.stop();
        await services.apiKeys.flushLastUsed();
      } finally {
        await bus.close();
        if (ownDatabase) await database.close();
      }
    })();
    return closing;
  };
  return { config, database, bus, services, startBackground: start, close };
}

/**
 * The HTTP app on a composition's services (src/app.ts), with the throttle's Redis connection
 * when REDIS_URL is set: connected here, where an unreachable Redis fails the start, and closed
 * with the app.
 */
export async function httpApp(
  composition: Pick<Composition, 'config' | 'database' | 'services'>,
  options: Pick<AppOptions, 'logger' | 'webDir' | 'onClose'> = {},
): Promise<RampartApp> {
  const { config } = composition;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  try {
    return await buildApp(composition.services, {
      config,
      databaseKind: composition.database.kind,
      ...(redis ? { redis } : {}),
      ...options,
      onClose: async () => {
        redis?.disconnect();
        await options.onClose?.();
      },
    });
  } catch (error) {
    redis?.disconnect();
    throw error;
  }
}
