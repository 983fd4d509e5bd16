import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Access } from './http/access.js';
import { registerAuth } from './http/auth.js';
import { CHANNELS, type ChannelRoutes, requireAccessDeclarations } from './http/channels.js';
import { checkDeprecation, DEPRECATIONS, DeprecationRegistry } from './http/deprecations.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { createLogger, RequestLogController } from './http/logging.js';
import { registerChannelDocs } from './http/openapi.js';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './http/problems/framework.js';
import { registerErrorHandler } from './http/problems/handlers.js';
import { registerNotFound } from './http/problems/not-found.js';
import { ProblemSchema } from './http/problems/schema.js';
import { registerRequestGuards } from './http/request-guards.js';
import { registerThrottle } from './http/throttle.js';
import type { TypedApp } from './http/types.js';
import { registerValidators } from './http/validation.js';
import { registerWebApp } from './http/web-app.js';
import { setParseLimits } from './importers/common/parse-limits.js';
import { defaultRegistry } from './importers/index.js';
import { type Clock, systemClock } from './lib/clock.js';
import { type InvalidationBus, LocalInvalidationBus, RedisInvalidationBus } from './lib/invalidation-bus.js';
import { accountRoutes } from './modules/account/routes.js';
import { ApiKeyRepository } from './modules/apikeys/repository.js';
import { apiKeyRoutes } from './modules/apikeys/routes.js';
import { ApiKeyService } from './modules/apikeys/service.js';
import { AssetRepository } from './modules/assets/repository.js';
import { assetRoutes } from './modules/assets/routes.js';
import { AssetService } from './modules/assets/service.js';
import { AuditRepository } from './modules/audit/repository.js';
import { AuditService } from './modules/audit/service.js';
import { authenticationRoutes } from './modules/authentication/routes.js';
import { demoRoutes } from './modules/demo/routes.js';
import { FindingRepository } from './modules/findings/repository.js';
import { findingRoutes } from './modules/findings/routes.js';
import { FindingService } from './modules/findings/service.js';
import { ImportRepository } from './modules/imports/repository.js';
import { importRoutes } from './modules/imports/routes.js';
import { ImportService } from './modules/imports/service.js';
import { importDirectory } from './modules/imports/upload.js';
import { IntelMatcher } from './modules/intel/matcher.js';
import { IntelRepository } from './modules/intel/repository.js';
import { intelRoutes } from './modules/intel/routes.js';
import { IntelService } from './modules/intel/service.js';
import { OrganizationRepository } from './modules/organizations/repository.js';
import { OrganizationService } from './modules/organizations/service.js';
import { radarCompatRoutes } from './modules/radar-compat/routes.js';
import { SessionRepository } from './modules/sessions/repository.js';
import { sessionRoutes } from './modules/sessions/routes.js';
import { SessionService } from './modules/sessions/service.js';
import { SettingsRepository } from './modules/settings/repository.js';
import { settingsRoutes } from './modules/settings/routes.js';
import { SettingsService } from './modules/settings/service.js';
import { SoftwareRepository } from './modules/software/repository.js';
import { softwareRoutes } from './modules/software/routes.js';
import { SoftwareService } from './modules/software/service.js';
import { statusRoutes } from './modules/status/routes.js';
import { TicketRepository } from './modules/tickets/repository.js';
import { ticketRoutes } from './modules/tickets/routes.js';
import { TicketService } from './modules/tickets/service.js';
import { UserRepository } from './modules/users/repository.js';
import { userRoutes } from './modules/users/routes.js';
import { UserService } from './modules/users/service.js';
import { VulnerabilityRepository } from './modules/vulnerabilities/repository.js';
import { vulnerabilityRoutes } from './modules/vulnerabilities/routes.js';
import { VulnerabilityService } from './modules/vulnerabilities/service.js';

export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

export interface AppOptions {
  config: Config;
  database: Database;
  /** Tests pass a movable clock. */
  clock?: Clock;
  /** The built web app (default dist/web); served when it exists. */
  webDir?: string;
  /** Mark imports a stopped process left unfinished as Failed at start (default true). */
  failInterruptedImports?: boolean;
  /** Defaults to JSON logs on stdout at config.logLevel; tests pass false. */
  logger?: false | FastifyServerOptions['loggerInstance'];
}

export interface Services {
  assets: AssetService;
  software: SoftwareService;
  tickets: TicketService;
  findings: FindingService;
  imports: ImportService;
  settings: SettingsService;
  vulnerabilities: VulnerabilityService;
  sessions: SessionService;
  organizations: OrganizationService;
  users: UserService;
  apiKeys: ApiKeyService;
  audit: AuditService;
  intel: IntelService;
  intelMatcher: IntelMatcher;
  /** The one source of time for every value the API returns or a rule compares. */
  clock: Clock;
}

export interface RegisteredRoute {
  method: string;
  url: string;
  access?: Access;
  channel?: string;
}

export interface RampartApp {
  app: FastifyInstance;
  services: Services;
  /** Every route, as registered (tests check them against the OpenAPI documents). */
  routes: RegisteredRoute[];
}

/** Builds the services on one database; shared by the HTTP app and the CLI. */
export function buildServices(
  database: Database,
  clock: Clock,
  bus: InvalidationBus,
  config: Pick<Config, 'authCacheSeconds' | 'sessionIdleMinutes' | 'sessionMaxHours'> &
    Partial<
      Pick<
        Config,
        | 'intelMaxBytes'
        | 'importDir'
        | 'parseMaxDepth'
        | 'parseMaxAttributes'
        | 'parseMaxTextBytes'
        | 'parseMaxElements'
      >
    >,
): Services {
  // Every reader of uploaded files takes these limits (process-wide: see parse-limits.ts).
  setParseLimits({
    ...(config.parseMaxDepth ? { maxDepth: config.parseMaxDepth } : {}),
    ...(config.parseMaxAttributes ? { maxAttributes: config.parseMaxAttributes } : {}),
    ...(config.parseMaxTextBytes ? { maxTextBytes: config.parseMaxTextBytes } : {}),
    ...(config.parseMaxElements ? { maxElements: config.parseMaxElements } : {}),
  });
  const audit = new AuditService(new AuditRepository(database.db), clock);
  const users = new UserService(new UserRepository(database.db), audit, clock);
  const sessions = new SessionService(new SessionRepository(database.db), users, audit, clock, {
    idleMinutes: config.sessionIdleMinutes,
    absoluteHours: config.sessionMaxHours,
  });
  const apiKeys = new ApiKeyService(
    new ApiKeyRepository(database.db),
    audit,
    bus,
    clock,
    config.authCacheSeconds,
  );
  users.onAccessChanged({
    accessChanged: async (organizationId, userId, { endSessions, keepSessionId }) => {
      if (endSessions) await sessions.endAllFor(organizationId, userId, keepSessionId);
      // Cached keys carry the role and the active flag: drop them on every instance.
      await apiKeys.invalidateUser(userId);
    },
  });
  const assets = new AssetService(new AssetRepository(database.db), users, audit, clock);
  const software = new SoftwareService(new SoftwareRepository(database.db), assets, clock);
  const settings = new SettingsService(new SettingsRepository(database.db), audit, clock);
  const vulnerabilities = new VulnerabilityService(new VulnerabilityRepository(database.db), clock);
  const findings = new FindingService(
    new FindingRepository(database.db),
    assets,
    vulnerabilities,
    settings,
    clock,
  );
  const tickets = new TicketService(new TicketRepository(database.db), users, findings, settings, clock);
  findings.onStateChanged((organizationId, ids) => tickets.findingsChanged(organizationId, ids));
  assets.onRiskContextChanged(async (organizationId, assetId) => {
    await findings.rescoreAsset(organizationId, assetId);
  });
  const imports = new ImportService(
    new ImportRepository(database.db),
    defaultRegistry(),
    assets,
    settings,
    vulnerabilities,
    audit,
    clock,
    (organizationId, ids) => tickets.findingsChanged(organizationId, ids),
  );
  const organizations = new OrganizationService(new OrganizationRepository(database.db), clock);
  const intel = new IntelService(
    new IntelRepository(database.db),
    vulnerabilities,
    findings,
    organizations,
    clock,
    {
      maxBytes: config.intelMaxBytes ?? 2 * 1024 ** 3,
      tempDir: importDirectory(config.importDir),
    },
  );
  return {
    audit,
    users,
    sessions,
    assets,
    software,
    settings,
    vulnerabilities,
    findings,
    imports,
    tickets,
    apiKeys,
    organizations,
    intel,
    intelMatcher: new IntelMatcher(intel),
    clock,
  };
}

async function connectRedis(url: string): Promise<Redis> {
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

/** The feed URLs of the scheduled sync (RAMPART_INTEL_SYNC_URLS, separated by spaces). */
export function syncUrlsOf(config: Pick<Config, 'intelSyncUrls'>): string[] {
  return config.intelSyncUrls?.split(/\s+/).filter(Boolean) ?? [];
}

/** The composition root: services, cross-cutting plugins, then every module's routes per channel. */
export async function buildApp(options: AppOptions): Promise<RampartApp> {
  const { config, database } = options;
  const clock = options.clock ?? systemClock;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  const bus: InvalidationBus = config.redisUrl
    ? new RedisInvalidationBus(config.redisUrl, config.redisPrefix)
    : new LocalInvalidationBus();
  const services = buildServices(database, clock, bus, config);
  const deprecations = new DeprecationRegistry([...DEPRECATIONS, ...config.deprecations]);

  const logger = options.logger === undefined ? createLogger(config) : options.logger;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    logController: new RequestLogController(),
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors met before a route (or before Fastify) are problem documents too.
    frameworkErrors,
    clientErrorHandler,
  });

  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      routes.push({ method, url: route.url, access: route.config?.access, channel: route.config?.channel });
    }
  });
  requireAccessDeclarations(app);
  registerValidators(app);
  app.addSchema(ProblemSchema);
  registerErrorHandler(app);
  registerJsonBodyParser(app);
  registerRequestGuards(app);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    const deprecation = request.routeOptions.config.deprecation;
    if (!deprecation) return done();
    try {
      reply.header('deprecated', checkDeprecation(deprecation, clock).header);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  await app.register(cookie);
  registerAuth(app, services.apiKeys, services.sessions);
  await registerThrottle(app, {
    limit: config.throttleLimit,
    windowSeconds: config.throttleWindowSeconds,
    redis,
    redisPrefix: config.redisPrefix,
  });
  registerNotFound(app, app.rateLimit(), await registerWebApp(app, options.webDir));

  const modules: ChannelRoutes[] = [
    statusRoutes({ version: VERSION, databaseKind: database.kind, clock, baseUrl: config.baseUrl }),
    authenticationRoutes(),
    accountRoutes(services.users, services.organizations),
    userRoutes(services.users),
    apiKeyRoutes(services.apiKeys),
    assetRoutes(services.assets),
    softwareRoutes(services.software),
    findingRoutes(services.findings, services.tickets),
    importRoutes(services.imports, { maxBytes: config.importMaxBytes, directory: config.importDir }),
    settingsRoutes(services.settings),
    ticketRoutes(services.tickets),
    vulnerabilityRoutes(services.vulnerabilities),
    intelRoutes(services.intel, services.intelMatcher, {
      syncUrls: syncUrlsOf(config),
      syncHours: config.intelSyncHours,
    }),
    radarCompatRoutes(services.assets, services.findings, services.software, services.vulnerabilities),
    demoRoutes(services),
    sessionRoutes({
      sessions: services.sessions,
      users: services.users,
      organizations: services.organizations,
      baseUrl: config.baseUrl,
      loginLimit: config.loginThrottleLimit,
      loginWindowSeconds: config.loginThrottleWindowSeconds,
    }),
  ];
  for (const channel of CHANNELS) {
    await app.register(async (scope) => {
      await registerChannelDocs(scope, { channel, baseUrl: config.baseUrl, version: VERSION });
      await scope.register(
        async (api) => {
          for (const register of modules)
            register(api as unknown as TypedApp, { channel, config, deprecations });
        },
        { prefix: `/api/${channel}` },
      );
    });
  }

  services.imports.onUnexpectedError((error, importId) =>
    app.log.error({ err: error, importId }, 'import failed unexpectedly'),
  );
  // Risk acceptances return to Open when their date passes; the update is idempotent, so every
  // instance may run it.
  const expiryTimer = setInterval(() => {
    services.findings
      .expireRiskAcceptances()
      .catch((error) => app.log.warn({ err: error }, 'could not expire risk acceptances'));
  }, 60_000);
  expiryTimer.unref();
  const flushTimer = setInterval(() => {
    services.apiKeys
      .flushLastUsed()
      .catch((error) => app.log.warn({ err: error }, 'could not record API key use'));
  }, config.lastUsedFlushSeconds * 1000);
  flushTimer.unref();
  // Imports whose process stopped: at once with the embedded database (only this process uses
  // it), else once their heartbeat is two minutes old; checked now and every minute.
  const failInterrupted = (staleSeconds: number) =>
    services.imports
      .failInterrupted(staleSeconds)
      .catch((error) => app.log.warn({ err: error }, 'could not end interrupted imports'));
  if (options.failInterruptedImports !== false) {
    await failInterrupted(database.kind === 'embedded' ? 0 : 120);
    await services.intel
      .failInterrupted(database.kind === 'embedded' ? 0 : 24 * 3600)
      .catch((error) => app.log.warn({ err: error }, 'could not end interrupted intelligence loads'));
  }
  const importTimer = setInterval(() => failInterrupted(120), 60_000);
  importTimer.unref();
  app.addHook('onClose', async () => {
    clearInterval(flushTimer);
    clearInterval(expiryTimer);
    clearInterval(importTimer);
    await services.imports.idle();
    await services.apiKeys
      .flushLastUsed()
      .catch((error) => app.log.warn({ err: error }, 'could not record API key use'));
    await bus.close();
    redis?.disconnect();
  });

  await app.ready();
  return { app, services, routes };
}
