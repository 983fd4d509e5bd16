import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbedded } from '../../src/db/database.js';
import { serveEmbedded, stopServe } from '../helpers/serve-embedded.js';

// `rampart serve` stopped while a long job runs: an intelligence sync waiting on a source that
// does not answer (here a server on 127.0.0.1 that takes requests and never replies). The stop
// must not wait out the shutdown timeout and exit 1, and the job must not lose an attempt: each
// Ctrl-C used to spend one, and the third made that day's sync Failed.
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A source that accepts every request and answers none; how many it has been sent. */
async function silentSource(): Promise<{ base: string; requests: () => number }> {
  let requests = 0;
  const server = http.createServer(() => {
    requests++;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe('`rampart serve` stopped during a long job [embedded]', () => {
  it('stops within its timeout with status 0, and the job is queued again with its attempt not spent', async () => {
    const source = await silentSource();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-stop-'));
    // The embedded server's account (when run as root) passes through to the data folder.
    fs.chmodSync(dir, 0o755);
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const data = path.join(dir, 'data');
    const s = serveEmbedded(data, (fn) => cleanups.push(fn), {
      RAMPART_INTEL_SYNC: 'on',
      RAMPART_INTEL_KEV_URL: `${source.base}/kev.json`,
      RAMPART_INTEL_NVD_URL: `${source.base}/nvd`,
      RAMPART_INTEL_EPSS_URL: `${source.base}/epss.csv.gz`,
      RAMPART_INTEL_OSV_URL: `${source.base}/osv`,
      RAMPART_INTEL_OSV_ECOSYSTEMS: 'npm',
      // Half of it for running jobs to finish before they are told to stop.
      RAMPART_SHUTDOWN_TIMEOUT: '20',
    });
    const up = await s.started;
    if (!up.ok) throw new Error(up.stderr);
    // The sync has started and waits on the source.
    await expect.poll(source.requests, { timeout: 30_000 }).toBeGreaterThan(0);

    expect(await stopServe(s)).toBe(0);
    expect(s.stderr()).toMatch(/SIGTERM received: shutting down/);
    expect(s.stderr()).not.toMatch(/timed out/);

    const database = await openEmbedded(data, 'test', { log: () => {} });
    try {
      const jobs = await sql<{ state: string; attempts: number; last_error: string | null }>`
        select state, attempts, last_error from jobs where kind = 'intel-sync'`.execute(database.db);
      expect(jobs.rows).toEqual([{ state: 'Queued', attempts: 0, last_error: null }]);
      // The source it waited on is recorded as stopped, not failed; the next sync resumes it.
      const sources = await sql<{ source: string; last_error: string | null }>`
        select source, last_error from intel_sync_sources where last_error is not null`.execute(database.db);
      expect(sources.rows).toEqual([
        { source: 'kev', last_error: expect.stringMatching(/^The sync stopped before this source was done/) },
      ]);
    } finally {
      await database.close();
    }
  }, 120_000);
});
