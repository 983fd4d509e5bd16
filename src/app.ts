import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { DatabaseKind } from './db/database.js';
import { DEPRECATIONS, DeprecationRegistry } from './http/deprecations.js';
import { closeLogger, createLogger } from './http/logging.js';
import { createServer, type RegisteredRoute, registerChannels, registerPlugins } from './http/server.js';
import { moduleRoutes } from './modules/index.js';
import type { Services } from './services.js';
import { VERSION } from './version.js';

export type { RegisteredRoute };

export interface AppOptions {
  config: Config;
  /** The database's kind, told by GET /status and the routes that differ by it. */
  databaseKind: DatabaseKind;
  /**
   * The throttle's shared counters when REDIS_URL is set: a connection the caller opened (see
   * connectRedis in src/compose.ts) and closes after the app.
   */
  redis?: Redis;
  /** The built web app (default dist/web); served when it exists. */
  webDir?: string;
  /** Defaults to JSON logs on stdout at config.logLevel, closed with the app; tests pass false. */
  logger?: false | FastifyServerOptions['loggerInstance'];
  /** What the caller closes once the app has closed (the Redis connection it gave). */
  onClose?: () => Promise<void>;
}

export interface RampartApp {
  app: FastifyInstance;
  /** Every route, as registered (tests check them against the OpenAPI documents). */
  routes: RegisteredRoute[];
}

/**
 * The HTTP app on a service graph: cross-cutting plugins, then every module's routes under each
 * channel. It connects to nothing and starts nothing: src/compose.ts builds what it serves, and
 * `rampart serve` starts the background work beside it.
 */
export async function buildApp(services: Services, options: AppOptions): Promise<RampartApp> {
  const { config } = options;
  const deprecations = new DeprecationRegistry([...DEPRECATIONS, ...config.deprecations]);
  const ownLogger = options.logger === undefined ? createLogger(config) : undefined;
  const { app, routes } = createServer(config, ownLogger ?? options.logger ?? false);
  const { apiKeys, sessions, scanNodes, clock, metrics, health, idempotency } = services;
  await registerPlugins(app, {
    config,
    clock,
    apiKeys,
    sessions,
    idempotency,
    scanNodes,
    redis: options.redis,
    webDir: options.webDir,
    metrics,
    readiness: health,
  });
  await registerChannels(app, moduleRoutes(services, config, options.databaseKind), {
    config,
    deprecations,
    version: VERSION,
  });
  app.addHook('onClose', async () => {
    await options.onClose?.();
    if (ownLogger) closeLogger(ownLogger);
  });
  await app.ready();
  return { app, routes };
}
