/**
 * Downloads for the scheduled sync: a sliding-window rate limit (NVD allows 5 requests in 30 s
 * without an API key, 50 with one) and bounded retries with back-off on the answers a busy or
 * rate-limiting server gives (403 and 503 from NVD; 429, 502 and 504 elsewhere); a server that
 * cannot be reached at all is tried once more.
 * Time comes from the application's clock and waits from `sleep`, so tests move time instead of
 * waiting.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../lib/clock.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : {});
};

/** At most `limit` requests in any `windowMs`. */
export class RateLimiter {
  private readonly sent: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly sleep: Sleep,
  ) {}

  /** Waits until one more request fits in the window, and counts it. */
  async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock().getTime();
      while (this.sent.length > 0 && (this.sent[0] as number) <= now - this.windowMs) this.sent.shift();
      if (this.sent.length < this.limit) {
        this.sent.push(now);
        return;
      }
      await this.sleep((this.sent[0] as number) + this.windowMs - now, signal);
    }
  }
}

/** A download that failed for good: the last answer's status (0 when the server was not reached). */
export class FeedDownloadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'FeedDownloadError';
  }
}

/** Answers worth asking again after a pause: NVD says 403 and 503 when it is rate limiting or busy. */
const RETRIED = new Set([403, 429, 502, 503, 504]);
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 10 * 60_000;
const TIMEOUT_MS = 15 * 60_000;
const NETWORK_RETRIES = 1;

export interface DownloadOptions {
  fetch: typeof fetch;
  sleep: Sleep;
  /** How many times a retried answer is asked again before the download fails. */
  retries: number;
  limiter?: RateLimiter | undefined;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** GETs `url`, answering the response once it is 2xx with a body; retries what is worth it, then fails clearly. */
export async function download(url: string, options: DownloadOptions): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    options.signal?.throwIfAborted();
    await options.limiter?.take(options.signal);
    const signal = options.signal
      ? AbortSignal.any([options.signal, AbortSignal.timeout(TIMEOUT_MS)])
      : AbortSignal.timeout(TIMEOUT_MS);
    let response: Response;
    try {
      response = await options.fetch(url, { headers: options.headers ?? {}, redirect: 'follow', signal });
    } catch (error) {
      options.signal?.throwIfAborted();
      // A server not reached at all (no network, a name that does not resolve) is asked once
      // more, not five times: an installation without internet access must not spend its sync
      // waiting on every source.
      if (attempt >= Math.min(options.retries, NETWORK_RETRIES))
        throw new FeedDownloadError(
          `GET ${url} failed after ${attempt + 1} attempts: ${(error as Error).message}`,
          0,
        );
      await options.sleep(backoff(attempt), options.signal);
      continue;
    }
    if (response.ok && response.body) return response;
    await response.body?.cancel().catch(() => {});
    if (!RETRIED.has(response.status) || attempt >= options.retries)
      throw new FeedDownloadError(
        `GET ${url} answered ${response.status} ${response.statusText}`.trim() +
          (attempt > 0 ? ` after ${attempt + 1} attempts` : ''),
        response.status,
      );
    await options.sleep(retryAfter(response) ?? backoff(attempt), options.signal);
  }
}

/** 30 s, 60 s, 120 s… at most 10 minutes. */
function backoff(attempt: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS);
}

/** A Retry-After in seconds, within the longest back-off; dates and nonsense are ignored. */
function retryAfter(response: Response): number | undefined {
  const text = response.headers.get('retry-after')?.trim();
  if (!text || !/^\d{1,6}$/.test(text)) return undefined;
  return Math.min(Number(text) * 1000, MAX_BACKOFF_MS);
}
