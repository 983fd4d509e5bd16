import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntelSync } from '../../../src/modules/intel/sync.js';
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
    t = await buildTestApp(tdb.database);
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

  const sync = () =>
    new IntelSync(t.services.intel, t.clock.fn, {
      urls: [`${base}/kev.json.gz`, `${base}/missing.csv`],
      hours: 24,
    });

  it('downloads and loads every URL, records the ones that fail, and says so in the feed status', async () => {
    const outcome = await sync().runOnce();
    expect(outcome.ran).toBe(true);
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
    expect((await sync().runOnce()).ran).toBe(false);
    expect(requests).toEqual([]);
    t.clock.advanceDays(1);
    const again = await sync().runOnce();
    expect(again.ran).toBe(true);
    expect(again.loads[0]).toMatchObject({ state: 'Completed', added: 0, updated: 0, unchanged: 1404 });
  });
});
