import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedServer {
  /** Directory holding the Unix socket `.s.PGSQL.5432`, as `pg` expects in `host`. */
  socketDir: string;
  port: number;
  /** The database thread's own figures (the process-wide RSS includes them). */
  memory(): Promise<EmbeddedMemory>;
  stop(): Promise<void>;
}

export interface EmbeddedMemory {
  /** Bytes of the worker thread's JavaScript heap in use, and reserved. */
  heapUsed: number;
  heapTotal: number;
  /** Memory outside that heap: ArrayBuffers (PGlite's in-memory files) and the WebAssembly memory. */
  external: number;
  arrayBuffers: number;
  /** Bytes of PGlite's WebAssembly memory: PostgreSQL's whole address space; it only grows. */
  wasm: number;
}

const STARTUP_TIMEOUT_MS = 120_000;

// The database thread's young generation. V8's default (up to 48 MB) sat mostly empty here: the
// thread allocates little besides the socket's messages, so a smaller one costs a few more
// scavenges and gives the process its memory back.
const WORKER_YOUNG_GENERATION_MB = 8;

/** Starts a database thread and waits until it says it is ready. */
async function startWorker(data: {
  dataDir: string;
  socketPath?: string;
  initOnly?: boolean;
}): Promise<Worker> {
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
    workerData: data,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('The embedded database did not start in time')),
      STARTUP_TIMEOUT_MS,
    );
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    worker.once('message', (message: { type: string; message?: string }) => {
      clearTimeout(timer);
      if (message.type === 'ready') resolve();
      else reject(new Error(`The embedded database could not start: ${message.message}`));
    });
  }).catch(async (error) => {
    await worker.terminate();
    throw error;
  });
  return worker;
}

/**
 * Starts PGlite on a worker thread, listening on a private Unix socket. `dataDir` is a folder,
 * or `memory://` for a throwaway database (tests).
 */
export async function startEmbeddedServer(dataDir: string): Promise<EmbeddedServer> {
  // PGlite makes a new data directory with a second PostgreSQL instance (initdb), whose
  // WebAssembly memory and compiled code the serving thread would keep until a full collection
  // (about 250 MB more RSS before the first request). A thread of its own that ends takes them
  // with it; an existing directory, and a throwaway database, skip this.
  if (dataDir !== 'memory://' && !fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    const init = await startWorker({ dataDir, initOnly: true });
    await init.terminate();
  }
  // A private 0700 folder: only this user can reach the socket, which has no password.
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-pg-'));
  const port = 5432;
  const socketPath = path.join(socketDir, `.s.PGSQL.${port}`);
  const cleanup = () => fs.rmSync(socketDir, { recursive: true, force: true });
  const worker = await startWorker({ dataDir, socketPath }).catch((error) => {
    cleanup();
    throw error;
  });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        const onMessage = (message: { type: string }) => {
          if (message.type !== 'stopped') return;
          worker.off('message', onMessage);
          clearTimeout(timer);
          resolve();
        };
        worker.on('message', onMessage);
        worker.postMessage({ type: 'stop' });
      });
      await worker.terminate();
      cleanup();
    })();
    return stopped;
  };
  const memory = () =>
    new Promise<EmbeddedMemory>((resolve) => {
      const onMessage = (message: { type: string } & EmbeddedMemory) => {
        if (message.type !== 'memory') return;
        worker.off('message', onMessage);
        const { type: _, ...figures } = message;
        resolve(figures);
      };
      worker.on('message', onMessage);
      worker.postMessage({ type: 'memory' });
    });
  return { socketDir, port, memory, stop };
}
