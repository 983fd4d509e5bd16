import { Redis } from 'ioredis';

/**
 * Tells every instance to drop cached entries (revoked API keys, deactivated users). Without
 * Redis only this instance hears it; others expire their entries after the cache TTL.
 */
export interface InvalidationBus {
  publish(message: string): Promise<void>;
  subscribe(listener: (message: string) => void): void;
  close(): Promise<void>;
}

export class LocalInvalidationBus implements InvalidationBus {
  private readonly listeners: ((message: string) => void)[] = [];
  async publish(message: string): Promise<void> {
    for (const l of this.listeners) l(message);
  }
  subscribe(listener: (message: string) => void): void {
    this.listeners.push(listener);
  }
  async close(): Promise<void> {}
}

/** The prefix of every Redis key and channel unless RAMPART_REDIS_PREFIX says otherwise. */
export const DEFAULT_REDIS_PREFIX = 'rampart:';

export class RedisInvalidationBus implements InvalidationBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly listeners: ((message: string) => void)[] = [];
  /** `<prefix>invalidate`: installations sharing one Redis with other prefixes do not hear each other. */
  readonly channel: string;

  constructor(url: string, prefix = DEFAULT_REDIS_PREFIX) {
    this.channel = `${prefix}invalidate`;
    const options = { lazyConnect: false, maxRetriesPerRequest: 2, connectTimeout: 2000 };
    this.publisher = new Redis(url, options);
    this.subscriber = new Redis(url, options);
    // Connection problems are retried by ioredis; do not crash the process on them.
    this.publisher.on('error', () => {});
    this.subscriber.on('error', () => {});
    void this.subscriber.subscribe(this.channel).catch(() => {});
    this.subscriber.on('message', (_channel: string, message: string) => {
      for (const l of this.listeners) l(message);
    });
  }

  async publish(message: string): Promise<void> {
    // Deliver locally at once even if Redis is slow; remote instances get it through Redis.
    for (const l of this.listeners) l(message);
    await this.publisher.publish(this.channel, message).catch(() => 0);
  }

  subscribe(listener: (message: string) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
