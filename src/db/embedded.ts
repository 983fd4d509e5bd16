import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedServer {
  /** Directory holding the Unix socket `.s.PGSQL.5432`, as `pg` expects in `host`. */
  socketDir: string;
  port: number;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 120_000;

/**
 * Starts PGlite on a worker thread, listening on a private Unix socket. `dataDir` is a folder,
 * or `memory://` for a throwaway database (tests).
 */
export async function startEmbeddedServer(dataDir: string): Promise<EmbeddedServer> {
  // A private 0700 folder: only this user can reach the socket, which has no password.
  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-pg-'));
  const port = 5432;
  const socketPath = path.join(socketDir, `.s.PGSQL.${port}`);
  const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
    workerData: { dataDir, socketPath },
  });
  const cleanup = () => fs.rmSync(socketDir, { recursive: true, force: true });

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
    cleanup();
    throw error;
  });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        worker.once('message', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage({ type: 'stop' });
      });
      await worker.terminate();
      cleanup();
    })();
    return stopped;
  };
  return { socketDir, port, stop };
}
