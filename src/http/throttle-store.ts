import type { Redis } from 'ioredis';

/** The count of a client's requests in its current window, and the milliseconds left of it. */
export interface ThrottleCount {
  current: number;
  ttl: number;
}

/** The route a budget of its own belongs to; none for a budget counted by key alone. */
export interface ThrottleScope {
  method?: string | string[];
  url?: string;
}

/**
 * Fixed-window counters: `incr` counts one request of `key` and starts its window (`windowMs`) on
 * the first. `child` gives the counters of another budget (a route's own, a sign-in budget).
 * The same interface as @fastify/rate-limit's stores (which this replaced: its per-request
 * promises cost more than the rest of a cached API key check).
 */
export interface ThrottleStore {
  incr(key: string, callback: (error: Error | null, result?: ThrottleCount) => void, windowMs: number): void;
  child(scope: ThrottleScope): ThrottleStore;
}

interface Window {
  count: number;
  /** Date.now() at which the window ends. */
  endsAt: number;
}

/** Keys a store holds before it drops the expired ones (and then the oldest, under a flood of clients). */
export const MEMORY_THROTTLE_KEYS = 100_000;

/**
 * Counters in this process's memory, answering at once (the callback runs before `incr` returns).
 * Bounded: past `maxKeys` clients the expired windows are dropped, and if a flood of live ones
 * remains, the oldest tenth of them (a dropped client starts a new window).
 */
export class MemoryThrottleStore implements ThrottleStore {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly maxKeys = MEMORY_THROTTLE_KEYS) {}

  incr(key: string, callback: (error: Error | null, result?: ThrottleCount) => void, windowMs: number): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (window === undefined) {
      if (this.windows.size >= this.maxKeys) this.prune(now);
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    } else if (window.endsAt <= now) {
      window.count = 0;
      window.endsAt = now + windowMs;
    }
    window.count += 1;
    callback(null, { current: window.count, ttl: window.endsAt - now });
  }

  /** A budget's own counters; in memory the scope needs no naming. */
  child(_scope: ThrottleScope): ThrottleStore {
    return new MemoryThrottleStore(this.maxKeys);
  }

  /** How many clients are counted (for tests). */
  get size(): number {
    return this.windows.size;
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    if (this.windows.size < this.maxKeys) return;
    // Map keeps insertion order: the first keys are the clients counted longest ago.
    let drop = Math.ceil(this.maxKeys / 10);
    for (const key of this.windows.keys()) {
      if (drop-- <= 0) break;
      this.windows.delete(key);
    }
  }
}

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

/**
 * Throttle counters in Redis under `<prefix>throttle:`, shared by every instance: a route's own
 * budget is `<prefix>throttle:<METHOD><url>:<client>` and every other counter
 * `<prefix>throttle:<client>` (the client key says which budget it is).
 */
export function redisThrottleStore(redis: Redis, prefix: string): ThrottleStore {
  if (!('rampartThrottle' in redis))
    redis.defineCommand('rampartThrottle', { numberOfKeys: 1, lua: INCREMENT });
  const client = redis as RedisWithThrottle;

  class RedisThrottleStore implements ThrottleStore {
    constructor(private readonly namespace: string) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: ThrottleCount) => void,
      windowMs: number,
    ): void {
      client.rampartThrottle(`${this.namespace}${key}`, windowMs, (error, result) => {
        if (error || !result) callback(error ?? new Error('no answer from Redis'));
        else callback(null, { current: Number(result[0]), ttl: Number(result[1]) });
      });
    }

    child(scope: ThrottleScope): ThrottleStore {
      const method = [scope.method ?? ''].flat().join(',');
      return new RedisThrottleStore(`${this.namespace}${scope.url ? `${method}${scope.url}:` : ''}`);
    }
  }
  return new RedisThrottleStore(`${prefix}throttle:`);
}
