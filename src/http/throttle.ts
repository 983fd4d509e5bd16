import { normalizeIP } from '@fastify/rate-limit';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import type { Redis } from 'ioredis';
import type { ThrottleBudget } from '../metrics/registry.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import { MemoryThrottleStore, redisThrottleStore, type ThrottleStore } from './throttle-store.js';

export interface ThrottleOptions {
  limit: number;
  windowSeconds: number;
  redis?: Redis;
  /** Starts every Redis key (RAMPART_REDIS_PREFIX), so that installations sharing a Redis stay apart. */
  redisPrefix: string;
  /** Told of each request refused with 429, by the budget that refused it (the metrics). */
  onThrottled?: (budget: ThrottleBudget) => void;
}

/** A route's own budget, instead of the global one (RouteDefinition.throttle, RAMPART_THROTTLE_ROUTES). */
export interface RouteThrottle {
  limit: number;
  windowSeconds: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    throttle?: RouteThrottle;
  }
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
  return !API_PATH.test(path);
}

const API_PATH = /^\/+api(\/|$)/i;

/** A client is its API key, its signed-in user or its scan node, when authenticated; else its source address. */
export function throttleKey(request: FastifyRequest): string {
  if (request.scanNode) return `node:${request.scanNode.id}`;
  const auth = request.auth;
  if (auth?.kind === 'apiKey') return `key:${auth.accessKey}`;
  if (auth?.kind === 'session') return `user:${auth.userId}`;
  return `addr:${normalizeIP(request.ip)}`;
}

/** A request is counted once, by the first budget that sees it (a route's hook or the 404 handler's). */
const COUNTED = Symbol('rampart.throttleCounted');

/** A limit over a window with its counters. */
interface Budget {
  name: ThrottleBudget;
  limit: number;
  windowSeconds: number;
  store: ThrottleStore;
  onThrottled: ((budget: ThrottleBudget) => void) | undefined;
}

/** The RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) of an answer. */
function setRateHeaders(reply: FastifyReply, limit: number, remaining: number, resetSeconds: number): void {
  reply
    .header('ratelimit-limit', limit)
    .header('ratelimit-remaining', remaining)
    .header('ratelimit-reset', resetSeconds);
}

function tooMany(budget: Budget, ttlMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return AppError.of(
    Problems.RateLimited,
    `Too many requests: the limit is ${budget.limit} per ${budget.windowSeconds} seconds for this client. ` +
      `Retry after ${seconds} seconds.`,
    { retryAfter: seconds },
    {
      'ratelimit-limit': String(budget.limit),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(seconds),
      'retry-after': String(seconds),
    },
  );
}

/**
 * Counts the request against `budget`, with the RateLimit headers on the answer; a 429 problem
 * when over. Callback style: with the counters in memory this needs no promise at all. Should the
 * store fail (Redis down), the request is served rather than refused.
 */
function countRequest(
  budget: Budget,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const counted = request as unknown as Record<symbol, boolean>;
  if (counted[COUNTED]) {
    done();
    return;
  }
  counted[COUNTED] = true;
  budget.store.incr(
    throttleKey(request),
    (error, result) => {
      if (error || !result) {
        setRateHeaders(reply, budget.limit, budget.limit, 0);
        done();
      } else if (result.current > budget.limit) {
        budget.onThrottled?.(budget.name);
        done(tooMany(budget, result.ttl));
      } else {
        setRateHeaders(reply, budget.limit, budget.limit - result.current, Math.ceil(result.ttl / 1000));
        done();
      }
    },
    budget.windowSeconds * 1000,
  );
}

/**
 * Every route that is not exempt (isExemptFromThrottle) is counted against the global budget, or
 * against its own (`config.throttle`) with counters of its own. The hook is added to each route, after the global onRequest hooks, so that
 * authentication has named the client. Returns the global budget's handler for the 404 handler,
 * which no route hook reaches.
 */
export function registerThrottle(app: FastifyInstance, options: ThrottleOptions): preHandlerHookHandler {
  const store: ThrottleStore = options.redis
    ? redisThrottleStore(options.redis, options.redisPrefix)
    : new MemoryThrottleStore();
  const onThrottled = options.onThrottled;
  const global: Budget = {
    name: 'global',
    limit: options.limit,
    windowSeconds: options.windowSeconds,
    store,
    onThrottled,
  };
  const hookFor = (budget: Budget): onRequestHookHandler =>
    function throttle(request, reply, done) {
      countRequest(budget, request, reply, done);
    };
  const globalHook = hookFor(global);
  app.addHook('onRoute', (route) => {
    // Whether a route is exempt depends on its methods and path only: such a route gets no hook.
    const methods = [route.method].flat();
    if (methods.every((m) => m === 'GET' || m === 'HEAD') && !API_PATH.test(route.url)) return;
    const own = route.config?.throttle;
    const hook = own
      ? hookFor({
          name: 'route',
          onThrottled,
          limit: own.limit,
          windowSeconds: own.windowSeconds,
          store: store.child({ method: route.method, url: route.url }),
        })
      : globalHook;
    route.onRequest = [route.onRequest ?? []].flat().concat(hook);
  });
  decorateExtraLimitStore(app, { store, onThrottled });
  // The 404 handler: here the exemption depends on the raw path of each request.
  return function throttleUnmatched(request, reply, done) {
    if (isExemptFromThrottle(request)) return done();
    countRequest(global, request, reply, done);
  };
}

const EXTRA_STORE = Symbol('rampart.throttleStore');

interface ExtraLimitBase {
  store: ThrottleStore;
  onThrottled: ((budget: ThrottleBudget) => void) | undefined;
}

function decorateExtraLimitStore(app: FastifyInstance, base: ExtraLimitBase): void {
  (app as unknown as Record<symbol, ExtraLimitBase>)[EXTRA_STORE] = base;
}

/**
 * A further budget on top of the global one (sign-in per account and per address), counted in a
 * preHandler (the body names the account) with counters of its own, by `key`.
 */
export function extraLimit(
  app: FastifyInstance,
  options: {
    limit: number;
    windowSeconds: number;
    key: (request: FastifyRequest) => string;
    what: string;
    /** The budget the metrics count its refusals under. */
    budget: ThrottleBudget;
  },
): preHandlerHookHandler {
  const base = (app as unknown as Record<symbol, ExtraLimitBase | undefined>)[EXTRA_STORE];
  if (!base) throw new Error('extraLimit needs registerThrottle first');
  const store = base.store.child({});
  return function extraLimitCheck(request, reply, done) {
    store.incr(
      options.key(request),
      (error, result) => {
        if (error || !result || result.current <= options.limit) return done();
        const seconds = Math.max(1, Math.ceil(result.ttl / 1000));
        base.onThrottled?.(options.budget);
        setRateHeaders(reply, options.limit, 0, seconds);
        done(
          AppError.of(
            Problems.RateLimited,
            `Too many ${options.what}: the limit is ${options.limit} per ${options.windowSeconds} seconds. Retry after ${seconds} seconds.`,
            { retryAfter: seconds },
            { 'retry-after': String(seconds) },
          ),
        );
      },
      options.windowSeconds * 1000,
    );
  };
}
