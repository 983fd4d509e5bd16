import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/intel/sync/http.js';

describe('the sliding-window rate limit', () => {
  // The application's clock, moved by the waits: no test sleeps.
  const rig = () => {
    let now = Date.parse('2026-11-21T12:00:00Z');
    const waits: number[] = [];
    const limiter = new RateLimiter(
      5,
      30_000,
      () => new Date(now),
      async (ms) => {
        waits.push(ms);
        now += ms;
      },
    );
    return { limiter, waits, advance: (ms: number) => (now += ms), now: () => now };
  };

  it('lets five requests through at once, then waits until the oldest leaves the 30 s window', async () => {
    const { limiter, waits, advance, now } = rig();
    const start = now();
    for (let i = 0; i < 5; i += 1) {
      await limiter.take();
      advance(1000);
    }
    expect(waits).toEqual([]);
    await limiter.take();
    expect(waits).toEqual([25_000]);
    expect(now() - start).toBe(30_000);
  });

  it('does not wait when the requests are spread out, and stops waiting when aborted', async () => {
    const { limiter, waits, advance } = rig();
    for (let i = 0; i < 12; i += 1) {
      await limiter.take();
      advance(6_000);
    }
    expect(waits).toEqual([]);
    const stop = new AbortController();
    stop.abort();
    await expect(limiter.take(stop.signal)).rejects.toThrow(/abort/i);
  });
});
