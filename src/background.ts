import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { DatabaseKind } from './db/database.js';
import { type InvalidationBus, LocalInvalidationBus, RedisInvalidationBus } from './lib/invalidation-bus.js';
import type { ScanNodeAgent } from './scanning/node/agent.js';
import { createLocalNode } from './scanning/node/local.js';
import type { RunExecutor, ScanKind } from './scanning/types.js';
import type { Services } from './services.js';
import { VERSION } from './version.js';

// What runs beside the requests of a server, in one place until the jobs layer (issue 14)
// replaces it: its Redis connections, the timers, and the clean-up of work a stopped process left.

/** Tells every instance to drop cached API keys: through Redis when configured, else this one. */
export function openInvalidationBus(config: Pick<Config, 'redisUrl' | 'redisPrefix'>): InvalidationBus {
  return config.redisUrl
    ? new RedisInvalidationBus(config.redisUrl, config.redisPrefix)
    : new LocalInvalidationBus();
}

/** The throttle's connection; fails at start when Redis is configured but unreachable. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Cannot reach Redis at REDIS_URL: ${(error as Error).message}`);
  }
  return redis;
}

export interface BackgroundOptions {
  services: Services;
  databaseKind: DatabaseKind;
  /** Closed by `stop`, after the last use of the services. */
  bus: InvalidationBus;
  redis: Redis | undefined;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  lastUsedFlushSeconds: number;
  /** Mark imports and intelligence loads a stopped process left unfinished as Failed at start. */
  failInterrupted: boolean;
  /** The scan node inside the server and its engines (RAMPART_LOCAL_SCAN_NODE), or none. */
  localScanNode?: { executors: ReadonlyMap<ScanKind, RunExecutor> } | false;
}

export interface Background {
  /** Stops the timers, waits for running imports, records the last API key use, disconnects. */
  stop(): Promise<void>;
}

export async function startBackground(options: BackgroundOptions): Promise<Background> {
  const { services, log } = options;
  const embedded = options.databaseKind === 'embedded';
  services.importFailedUnexpectedly.subscribe(async (error, importId) =>
    log.error({ err: error, importId }, 'import failed unexpectedly'),
  );
  // Risk acceptances return to Open when their date passes; the update is idempotent, so every
  // instance may run it.
  const expiryTimer = every(60_000, () =>
    services.findings
      .expireRiskAcceptances()
      .catch((error) => log.warn({ err: error }, 'could not expire risk acceptances')),
  );
  const flushLastUsed = () =>
    services.apiKeys
      .flushLastUsed()
      .catch((error) => log.warn({ err: error }, 'could not record API key use'));
  const flushTimer = every(options.lastUsedFlushSeconds * 1000, flushLastUsed);
  // Imports whose process stopped: at once with the embedded database (only this process uses
  // it), else once their heartbeat is two minutes old; checked now and every minute.
  const failInterruptedImports = (staleSeconds: number) =>
    services.imports
      .failInterrupted(staleSeconds)
      .catch((error) => log.warn({ err: error }, 'could not end interrupted imports'));
  if (options.failInterrupted) {
    await failInterruptedImports(embedded ? 0 : 120);
    await services.intel
      .failInterrupted(embedded ? 0 : 24 * 3600)
      .catch((error) => log.warn({ err: error }, 'could not end interrupted intelligence loads'));
  }
  const importTimer = every(60_000, () => failInterruptedImports(120));
  // Scan runs whose node fell silent are queued again (or failed); the scheduler takes this over.
  const scanLeaseTimer = every(15_000, () =>
    services.scanRuns
      .requeueSilent()
      .catch((error) => log.warn({ err: error }, 'could not requeue scan runs')),
  );
  // The scan node inside the server; a failure to start it leaves the rest of the server serving.
  let localNode: ScanNodeAgent | undefined;
  if (options.localScanNode) {
    localNode = await createLocalNode({
      scanNodes: services.scanNodes,
      scanRuns: services.scanRuns,
      clock: services.clock,
      executors: options.localScanNode.executors,
      version: VERSION,
      log: (message, details) => log.info({ scanNode: 'local', ...details }, message),
    }).catch((error) => {
      log.warn({ err: error }, 'could not start the local scan node');
      return undefined;
    });
    localNode?.start();
  }
  return {
    stop: async () => {
      clearInterval(scanLeaseTimer);
      await localNode?.stop();
      clearInterval(flushTimer);
      clearInterval(expiryTimer);
      clearInterval(importTimer);
      await services.imports.idle();
      await flushLastUsed();
      await options.bus.close();
      options.redis?.disconnect();
    },
  };
}

/** A timer that does not keep the process alive. */
function every(milliseconds: number, work: () => Promise<unknown>): NodeJS.Timeout {
  const timer = setInterval(() => void work(), milliseconds);
  timer.unref();
  return timer;
}
