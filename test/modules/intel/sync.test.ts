import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildRunner } from '../../../src/background.js';
import { INTEL_SYNC_JOB, IntelSync } from '../../../src/modules/intel/sync.js';
import { authHeaders, buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const KB = new URL('../../../knowledge-base/', import.meta.url);

describe.each(DB_KINDS)('scheduled intelligence sync [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let server: Server;
  let base: string;
  let requests: string[] = [];

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    // A feed mirror on the loopback interface: the only network a test may use.
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url === '/kev.json.gz') {
        res.writeHead(200, { 'content-type': 'application/gzip' });
        res.end(readFileSync(new URL('kev-catalog.json.gz', KB)));
        return;
      }
      res.writeHead(404).end('not here');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
    await tdb?.drop();
  });

  const urls = () => [`${base}/kev.json.gz`, `${base}/missing.csv`];

  it('downloads and loads every URL, records the ones that fail, and says so in the feed status', async () => {
    const outcome = await new IntelSync(t.services.intel, { urls: urls(), clock: t.clock.fn }).run();
    expect(outcome.loads).toHaveLength(1);
    expect(outcome.loads[0]).toMatchObject({
      feed: 'kev',
      state: 'Completed',
      source: `${base}/kev.json.gz`,
    });
    expect(outcome.loads[0]!.added).toBe(1404);
    expect(outcome.errors).toEqual([{ url: `${base}/missing.csv`, error: expect.stringMatching(/404/) }]);
    const status = (
      await t.app.inject({ method: 'GET', url: '/api/latest/intel/feeds', headers: authHeaders(t.admin) })
    ).json();
    expect(status.LastSync.Errors).toEqual([
      { Url: `${base}/missing.csv`, Error: expect.stringMatching(/404/) },
    ]);
  });

  it('runs once per period across instances: another instance does not sync again until it is due', async () => {
    requests = [];
    // Two more instances on the same database, with the sync configured (the test app has none).
    const instance = () =>
      buildRunner({
        services: t.services,
        databaseKind: tdb.database.kind,
        exclusive: tdb.database.exclusive,
        log: { info: () => {}, warn: () => {}, error: () => {} },
        config: { lastUsedFlushSeconds: 60, intelSyncUrls: urls().join(' '), intelSyncHours: 24 },
      });
    const [a, b] = [instance(), instance()];
    const syncs = async (state: string) =>
      (await t.services.jobs.list({ kind: INTEL_SYNC_JOB, state, pageSize: 10 })).totalCount;
    try {
      await Promise.all([a.start(), b.start()]);
      await Promise.all([a.tick(), b.tick()]);
      await vi.waitFor(async () => expect(await syncs('Completed')).toBe(1), { timeout: 30_000 });
      expect(requests.sort()).toEqual(['/kev.json.gz', '/missing.csv']);
      // Not due again within the period, however often either instance looks.
      t.clock.now = new Date(t.clock.now.getTime() + 23 * 3_600_000);
      await Promise.all([a.tick(), b.tick(), a.tick()]);
      expect(await syncs('Queued')).toBe(0);
      expect(await syncs('Running')).toBe(0);
      t.clock.now = new Date(t.clock.now.getTime() + 3_600_000);
      await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      await vi.waitFor(async () => expect(await syncs('Completed')).toBe(2), { timeout: 30_000 });
      expect(requests).toHaveLength(4);
      const [latest] = (await t.services.intel.loads(10)).filter((l) => l.feed === 'kev');
      expect(latest).toMatchObject({ state: 'Completed', added: 0, updated: 0, unchanged: 1404 });
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
