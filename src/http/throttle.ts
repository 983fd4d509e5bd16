import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from './problems/app-error.js';
import { Problems } from './problems/types.js';

export interface ThrottleOptions {
  limit: number;
  windowSeconds: number;
  redis?: Redis;
}

/** A client is its API key when it authenticated, else its source address. */
export function throttleKey(request: FastifyRequest): string {
  return request.auth ? `key:${request.auth.accessKey}` : `addr:${normalizeIP(request.ip)}`;
}

export async function registerThrottle(app: FastifyInstance, options: ThrottleOptions): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: options.limit,
    timeWindow: options.windowSeconds * 1000,
    hook: 'onRequest',
    enableDraftSpec: true,
    keyGenerator: throttleKey,
    ...(options.redis ? { redis: options.redis, nameSpace: 'rampart:throttle:' } : {}),
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
