import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { connectRedis, openInvalidationBus, startBackground } from './background.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { DEPRECATIONS, DeprecationRegistry } from './http/deprecations.js';
import { closeLogger, createLogger } from './http/logging.js';
import { createServer, type RegisteredRoute, registerChannels, registerPlugins } from './http/server.js';
import { type Clock, systemClock } from './lib/clock.js';
import type { InvalidationBus } from './lib/invalidation-bus.js';
import { moduleRoutes } from './modules/index.js';
import { builtInExecutors } from './scanning/node/executors.js';
import type { RunExecutor, ScanKind } from './scanning/types.js';
import { buildServices, type Services } from './services.js';
import { VERSION } from './version.js';

export type { RegisteredRoute };

export interface AppOptions {
  config: Config;
  database: Database;
  /** The service graph and its bus when the caller built them (`rampart serve`); else built here. */
  graph?: { services: Services; bus: InvalidationBus };
  /** Tests pass a movable clock (used when the graph is built here). */
  clock?: Clock;
  /** The built web app (default dist/web); served when it exists. */
  webDir?: string;
  /** Take up at start the work a stopped process left (default true; see BackgroundOptions). */
  resumeInterrupted?: boolean;
  /** The local scan node's engines (default: the built-in ones); tests pass a stand-in. */
  scanExecutors?: ReadonlyMap<ScanKind, RunExecutor>;
  /** Defaults to JSON logs on stdout at config.logLevel; tests pass false. */
  logger?: false | FastifyServerOptions['loggerInstance'];
}

export interface RampartApp {
  app: FastifyInstance;
  services: Services;
  /** Every route, as registered (tests check them against the OpenAPI documents). */
  routes: RegisteredRoute[];
}

/** The HTTP app: the service graph (given or built), cross-cutting plugins, every module's routes. */
export async function buildApp(options: AppOptions): Promise<RampartApp> {
  const { config, database } = options;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const bus = options.graph?.bus ?? openInvalidationBus(config);
  const services =
    options.graph?.services ?? buildServices(database, options.clock ?? systemClock, bus, config);
  const deprecations = new DeprecationRegistry([...DEPRECATIONS, ...config.deprecations]);
  const ownLogger = options.logger === undefined ? createLogger(config) : undefined;
  const { app, routes } = createServer(config, ownLogger ?? options.logger ?? false);
  const { apiKeys, sessions, scanNodes, clock } = services;
  await registerPlugins(app, { config, clock, apiKeys, sessions, scanNodes, redis, webDir: options.webDir });
  await registerChannels(app, moduleRoutes(services, config, database.kind), {
    config,
    deprecations,
    version: VERSION,
  });
  const background = await startBackground({
    services,
    databaseKind: database.kind,
    db: database.db,
    exclusive: database.exclusive,
    bus,
    redis,
    log: app.log,
    config,
    resumeInterrupted: options.resumeInterrupted,
    localScanNode: config.localScanNode && { executors: options.scanExecutors ?? builtInExecutors(clock) },
  });
  app.addHook('onClose', async () => {
    await background.stop();
    if (ownLogger) closeLogger(ownLogger);
  });
  await app.ready();
  return { app, services, routes };
}
