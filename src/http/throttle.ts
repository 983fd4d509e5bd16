import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { redisThrottleStore } from './throttle-store.js';

export interface ThrottleOptions {
  limit: number;
  windowSeconds: number;
  redis?: Redis;
  /** Starts every Redis key (RAMPART_REDIS_PREFIX), so that installations sharing a Redis stay apart. */
  redisPrefix: string;
}

/**
 * The web app's files and pages and the API documentation are not API requests: a cold page load
 * fetches dozens of files, which must not spend the budget of every client behind one address.
 * Requests to `/api` (a route's registered path, or the raw path when no route matched: probing
 * unknown API paths) and every other method stay counted.
 */
export function isExemptFromThrottle(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = request.routeOptions.url ?? request.url.split('?', 1)[0] ?? '/';
  return !/^\/+api(\/|$)/i.test(path);
}

/** A client is its API key, its signed-in user or its scan node, when authenticated; else its source address. */
export function throttleKey(request: FastifyRequest): string {
  if (request.scanNode) return `node:${request.scanNode.id}`;
  const auth = request.auth;
  if (auth?.kind === 'apiKey') return `key:${auth.accessKey}`;
  if (auth?.kind === 'session') return `user:${auth.userId}`;
  return `addr:${normalizeIP(request.ip)}`;
}

export async function registerThrottle(app: FastifyInstance, options: ThrottleOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: options.limit,
    timeWindow: options.windowSeconds * 1000,
    hook: 'onRequest',
    enableDraftSpec: true,
    keyGenerator: throttleKey,
    allowList: isExemptFromThrottle,
    ...(options.redis ? { store: redisThrottleStore(options.redis, options.redisPrefix) } : {}),
    // Redis down: serve rather than refuse every request; the error is logged by ioredis' handler.
    skipOnError: true,
    errorResponseBuilder: (request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      const routeLimit = (request.routeOptions.config as { rateLimit?: { timeWindow?: number } }).rateLimit;
      const windowSeconds = Math.round((routeLimit?.timeWindow ?? options.windowSeconds * 1000) / 1000);
      return AppError.of(
        Problems.RateLimited,
        `Too many requests: the limit is ${context.max} per ${windowSeconds} seconds for this client. ` +
          `Retry after ${seconds} seconds.`,
        { retryAfter: seconds },
      );
    },
  });
}

/**
 * A further budget on top of the global one (sign-in per account and per address). The plugin's
 * own route hooks run once per request, so this one counts through `createRateLimit`.
 */
export function extraLimit(
  app: FastifyInstance,
  options: { limit: number; windowSeconds: number; key: (request: FastifyRequest) => string; what: string },
): preHandlerAsyncHookHandler {
  const check = app.createRateLimit({
    max: options.limit,
    timeWindow: options.windowSeconds * 1000,
    keyGenerator: options.key,
  });
  return async (request, reply) => {
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return;
    const seconds = Math.max(1, result.ttlInSeconds);
    reply.header('ratelimit-limit', result.max);
    reply.header('ratelimit-remaining', 0);
    reply.header('ratelimit-reset', seconds);
    throw AppError.of(
      Problems.RateLimited,
      `Too many ${options.what}: the limit is ${options.limit} per ${options.windowSeconds} seconds. Retry after ${seconds} seconds.`,
      { retryAfter: seconds },
      { 'retry-after': String(seconds) },
    );
  };
}
