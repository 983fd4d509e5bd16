import type { FastifyRateLimitOptions, FastifyRateLimitStore } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

// One round trip: count the request and start the window on the first one (or on a counter that
// somehow lost its expiry, so that it can never block a client for good).
const INCREMENT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

type RedisWithThrottle = Redis & {
  rampartThrottle(
    key: string,
    windowMs: number,
    callback: (error: Error | null, result?: number[]) => void,
  ): void;
};

type RouteInfo = { routeInfo?: { method?: string | string[]; url?: string } };

/**
 * Throttle counters in Redis under `<prefix>throttle:`. The plugin's own Redis store names the
 * counters of `createRateLimit` budgets after a route they do not have (`undefinedundefined-`) and
 * takes one fixed namespace; here a route's own budget is `<prefix>throttle:<METHOD><url>:<client>`
 * and every other counter `<prefix>throttle:<client>` (the client key says which budget it is).
 */
export function redisThrottleStore(redis: Redis, prefix: string) {
  if (!('rampartThrottle' in redis))
    redis.defineCommand('rampartThrottle', { numberOfKeys: 1, lua: INCREMENT });
  const client = redis as RedisWithThrottle;

  class RedisThrottleStore implements FastifyRateLimitStore {
    constructor(
      _options?: FastifyRateLimitOptions,
      private readonly namespace = `${prefix}throttle:`,
    ) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      client.rampartThrottle(`${this.namespace}${key}`, timeWindow, (error, result) => {
        if (error || !result) callback(error ?? new Error('no answer from Redis'));
        else callback(null, { current: Number(result[0]), ttl: Number(result[1]) });
      });
    }

    child(options: object): FastifyRateLimitStore {
      const route = (options as RouteInfo).routeInfo;
      const method = [route?.method ?? ''].flat().join(',');
      const scope = route?.url ? `${method}${route.url}:` : '';
      return new RedisThrottleStore(undefined, `${this.namespace}${scope}`);
    }
  }
  return RedisThrottleStore;
}
