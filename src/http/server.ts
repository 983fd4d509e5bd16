import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../metrics/registry.js';
import type { ApiKeyService } from '../modules/apikeys/service.js';
import type { IdempotencyService } from '../modules/idempotency/service.js';
import type { SessionService } from '../modules/sessions/service.js';
import type { Access } from './access.js';
import { type NodeAuthenticator, registerAuth, registerAuthorisation } from './auth.js';
import { CHANNELS, type ChannelRoutes, requireAccessDeclarations } from './channels.js';
import { checkDeprecation, type DeprecationRegistry } from './deprecations.js';
import { type ReadinessCheck, registerHealth } from './health.js';
import { type IdempotencyMode, registerIdempotency } from './idempotency.js';
import { registerJsonBodyParser } from './json-body.js';
import { lazyChildLogger, RequestLogController } from './logging.js';
import { registerMetrics } from './metrics.js';
import { registerChannelDocs } from './openapi.js';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './problems/framework.js';
import { registerErrorHandler } from './problems/handlers.js';
import { registerNotFound } from './problems/not-found.js';
import { ProblemSchema } from './problems/schema.js';
import { registerRequestGuards } from './request-guards.js';
import { lazySerializerFactory } from './serialization.js';
import { registerThrottle } from './throttle.js';
import type { TypedApp } from './types.js';
import { registerValidators } from './validation.js';
import { registerWebApp } from './web-app.js';

export interface RegisteredRoute {
  method: string;
  url: string;
  access?: Access;
  channel?: string;
  /** How the route takes Idempotency-Key, when it does. */
  idempotency?: IdempotencyMode;
}

/** A Fastify instance with Rampart's options; `routes` lists every route as it is registered. */
export function createServer(
  config: Config,
  logger: false | FastifyServerOptions['loggerInstance'],
): { app: FastifyInstance; routes: RegisteredRoute[] } {
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    logController: new RequestLogController(),
    childLoggerFactory: lazyChildLogger,
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors met before a route (or before Fastify) are problem documents too.
    frameworkErrors,
    clientErrorHandler,
    // Response serializers are built on first use: see src/http/serialization.ts.
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
  });
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      routes.push({
        method,
        url: route.url,
        access: route.config?.access,
        channel: route.config?.channel,
        idempotency: route.config?.idempotency,
      });
    }
  });
  return { app, routes };
}

export interface PluginOptions {
  config: Config;
  clock: Clock;
  apiKeys: ApiKeyService;
  sessions: SessionService;
  /** Keeps the keys and answers of Idempotency-Key. */
  idempotency: IdempotencyService;
  /** Verifies the node keys of the scan node protocol. */
  scanNodes?: NodeAuthenticator;
  /** Shared throttle counters; in memory without it. */
  redis: Redis | undefined;
  /** The built web app; served when it exists. */
  webDir: string | undefined;
  /** This process's metrics: GET /metrics with RAMPART_METRICS_TOKEN, and the counters of every answer. */
  metrics?: Metrics;
  /** The readiness probe's check (GET /health/ready); without it, no health endpoints. */
  readiness?: ReadinessCheck;
}

/** The cross-cutting plugins every route runs behind, in the order they must be registered. */
export async function registerPlugins(app: FastifyInstance, options: PluginOptions): Promise<void> {
  const { config, clock } = options;
  requireAccessDeclarations(app);
  registerValidators(app);
  app.addSchema(ProblemSchema);
  registerErrorHandler(app);
  registerJsonBodyParser(app);
  registerRequestGuards(app);
  // Before the authentication's and the throttle's onRoute hooks: the probes and the scraper are
  // neither authenticated as clients nor counted against a budget.
  if (options.readiness) registerHealth(app, options.readiness);
  if (options.metrics) registerMetrics(app, options.metrics, config);

  // The same three headers on every answer; the deprecation header only on the routes that are
  // deprecated, decided when each is registered rather than looked up on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply
      .header('x-request-id', request.id)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    done();
  });
  app.addHook('onRoute', (route) => {
    const deprecation = route.config?.deprecation;
    if (!deprecation) return;
    const announce: onRequestHookHandler = (_request, reply, done) => {
      try {
        reply.header('deprecated', checkDeprecation(deprecation, clock).header);
        done();
      } catch (error) {
        done(error as Error);
      }
    };
    route.onRequest = [announce, ...[route.onRequest ?? []].flat()];
  });
  // Without its onRequest hook, which made a cookie object and a Map for every request: the
  // authentication hook parses the Cookie header when there is one.
  await app.register(cookie, { hook: false });
  const authenticate = registerAuth(app, options.apiKeys, options.sessions, options.scanNodes);
  const throttle = registerThrottle(app, {
    limit: config.throttleLimit,
    windowSeconds: config.throttleWindowSeconds,
    redis: options.redis,
    redisPrefix: config.redisPrefix,
    ...(options.metrics ? { onThrottled: options.metrics.throttledRequest.bind(options.metrics) } : {}),
  });
  registerAuthorisation(app, options.sessions);
  // After authentication (a key belongs to its principal) and, being a preHandler, after the
  // throttle and validation: a refused request takes no key.
  registerIdempotency(app, options.idempotency);
  registerNotFound(app, [authenticate, throttle], await registerWebApp(app, options.webDir));
}

/** Every module's routes under /api/<channel>, beside that channel's OpenAPI document. */
export async function registerChannels(
  app: FastifyInstance,
  modules: readonly ChannelRoutes[],
  options: { config: Config; deprecations: DeprecationRegistry; version: string },
): Promise<void> {
  const { config, deprecations, version } = options;
  for (const channel of CHANNELS) {
    await app.register(async (scope) => {
      await registerChannelDocs(scope, { channel, baseUrl: config.baseUrl, version });
      await scope.register(
        async (api) => {
          for (const register of modules)
            register(api as unknown as TypedApp, { channel, config, deprecations });
        },
        { prefix: `/api/${channel}` },
      );
    });
  }
}
