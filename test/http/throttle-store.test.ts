import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerThrottle } from '../../src/http/throttle.js';
import { MemoryThrottleStore, type ThrottleCount } from '../../src/http/throttle-store.js';

function count(store: MemoryThrottleStore, key: string, windowMs = 60_000): ThrottleCount {
  let answer: ThrottleCount | undefined;
  store.incr(
    key,
    (error, result) => {
      expect(error).toBeNull();
      answer = result;
    },
    windowMs,
  );
  // The memory store answers before incr returns: no promise on the request's path.
  expect(answer).toBeDefined();
  return answer!;
}

describe('the in-memory throttle counters', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('count per key in a fixed window that starts with the first request', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const store = new MemoryThrottleStore();
    expect(count(store, 'a')).toEqual({ current: 1, ttl: 60_000 });
    vi.advanceTimersByTime(10_000);
    expect(count(store, 'a')).toEqual({ current: 2, ttl: 50_000 });
    expect(count(store, 'b')).toEqual({ current: 1, ttl: 60_000 });
    vi.advanceTimersByTime(50_000);
    expect(count(store, 'a')).toEqual({ current: 1, ttl: 60_000 });
  });

  it('keep a child budget apart', () => {
    const store = new MemoryThrottleStore();
    count(store, 'a');
    expect(count(store.child({ method: 'GET', url: '/x' }) as MemoryThrottleStore, 'a').current).toBe(1);
    expect(count(store, 'a').current).toBe(2);
  });

  it('hold a bounded number of clients: expired ones go first, then the oldest under a flood', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const store = new MemoryThrottleStore(100);
    for (let i = 0; i < 100; i++) count(store, `old-${i}`, 1_000);
    vi.advanceTimersByTime(2_000);
    for (let i = 0; i < 100; i++) count(store, `live-${i}`);
    expect(store.size).toBe(100);
    count(store, 'new');
    expect(store.size).toBe(91); // 100 live: the 10 counted longest ago were dropped
    expect(count(store, 'live-99').current).toBe(2);
    expect(count(store, 'live-0').current).toBe(1);
  });
});

describe('the throttle with Redis down', () => {
  it('serves requests rather than refusing them all', async () => {
    // Never connected, and no offline queue: every command fails at once, as with Redis down.
    const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
    const app = Fastify();
    const throttle = registerThrottle(app, { limit: 1, windowSeconds: 60, redis, redisPrefix: 'test:' });
    app.get('/api/x', async () => 'ok');
    app.setNotFoundHandler({ preHandler: throttle }, (_request, reply) => reply.code(404).send());
    try {
      for (let i = 0; i < 3; i++) {
        const res = await app.inject({ method: 'GET', url: '/api/x' });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-remaining']).toBe('1');
      }
      expect((await app.inject({ method: 'GET', url: '/api/nothing' })).statusCode).toBe(404);
    } finally {
      await app.close();
      redis.disconnect();
    }
  });
});
