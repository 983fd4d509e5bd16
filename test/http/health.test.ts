import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/database.js';
import { KNOWN_MIGRATIONS, migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { composeTestApp, testConfig } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

const ready = (app: Awaited<ReturnType<typeof composeTestApp>>['app']) =>
  app.inject({ method: 'GET', url: '/health/ready' });

/** A 503 problem whose checks and detail say what is wrong, and nothing of the internals. */
function expectNotReady(
  res: Awaited<ReturnType<typeof ready>>,
  checks: { Database: string; Migrations: string },
  detail: RegExp,
): void {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.json()).toMatchObject({
    type: 'https://rampart.dev/problems/not-ready',
    title: 'The service is not ready',
    status: 503,
    instance: '/health/ready',
    checks,
  });
  expect(res.json().detail).toMatch(detail);
  // Neither addresses, SQL nor driver messages.
  expect(res.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres:|select |kysely|stack/i);
}

describe.each(DB_KINDS)('health endpoints [%s]', (kind) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind, false);
  });
  afterAll(() => tdb?.drop());

  it('is not ready on a database without migrations, nor while some are missing, then ready', async () => {
    const { app } = await composeTestApp(tdb.database, { config: testConfig() });
    try {
      const live = await app.inject({ method: 'GET', url: '/health/live' });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ Status: 'Live' });
      expect(live.headers['x-request-id']).toBeDefined();

      expectNotReady(
        await ready(app),
        { Database: 'Ok', Migrations: 'Behind' },
        new RegExp(`lacks ${KNOWN_MIGRATIONS.length} of this version's migrations: run \`rampart migrate\``),
      );
      await migrateTo(tdb.database.db, KNOWN_MIGRATIONS[4]!);
      expectNotReady(
        await ready(app),
        { Database: 'Ok', Migrations: 'Behind' },
        new RegExp(`lacks ${KNOWN_MIGRATIONS.length - 5} of this version's migrations`),
      );
      await migrateToLatest(tdb.database.db);
      const res = await ready(app);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ Status: 'Ready', Database: 'Ok', Migrations: 'Ok' });
      // HEAD too, as load balancers ask.
      expect((await app.inject({ method: 'HEAD', url: '/health/ready' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('answers every probe, however many, unthrottled and whatever credentials they carry', async () => {
    const { app } = await composeTestApp(tdb.database, {
      config: testConfig({ RAMPART_THROTTLE_LIMIT: '1' }),
    });
    try {
      for (let i = 0; i < 5; i++) {
        for (const url of ['/health/live', '/health/ready']) {
          const res = await app.inject({
            method: 'GET',
            url,
            remoteAddress: '127.0.4.4',
            headers: { apiaccesskey: 'NOPE', apisecretkey: 'wrong', cookie: 'rampart_session=forged' },
          });
          expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
          expect(res.headers['ratelimit-limit']).toBeUndefined();
        }
      }
      // Concurrent probes share one check of the database.
      const answers = await Promise.all(Array.from({ length: 20 }, () => ready(app)));
      expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      // Only GET and HEAD.
      expect((await app.inject({ method: 'POST', url: '/health/ready' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('is not ready, while still live, when the database stops answering', async () => {
    // A database of its own, stopped under the app: the embedded server stopped, or the
    // PostgreSQL database dropped with its connections.
    const own = await newTestDatabase(kind);
    const { app } = await composeTestApp(own.database, { config: testConfig() });
    try {
      expect((await ready(app)).statusCode).toBe(200);
      if (kind === 'embedded') await own.database.close();
      else {
        // Dropped under the app's pool, its connections ended by the server.
        const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await admin.connect();
        await admin.query(`drop database "${new URL(own.url!).pathname.slice(1)}" with (force)`);
        await admin.end();
      }
      expectNotReady(
        await ready(app),
        { Database: 'Unreachable', Migrations: 'Unknown' },
        /^The database does not answer\.$/,
      );
      expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    } finally {
      await app.close().catch(() => {});
      await own.drop().catch(() => {});
    }
  });
});

describe('health endpoints without a database', () => {
  it('is not ready when the database refuses connections', async () => {
    // A port nobody listens on: connection refused at once.
    const database = await openPostgres('postgres://postgres@127.0.0.1:9/none', 1);
    const { app } = await composeTestApp(database, { config: testConfig() });
    try {
      expectNotReady(await ready(app), { Database: 'Unreachable', Migrations: 'Unknown' }, /does not answer/);
    } finally {
      await app.close();
      await database.close();
    }
  });

  it('is not ready when the database does not answer in time', async () => {
    // A server that accepts the connection and then says nothing.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const database = await openPostgres(`postgres://postgres@127.0.0.1:${port}/none`, 1);
    const { app } = await composeTestApp(database, { config: testConfig() });
    try {
      const started = performance.now();
      expectNotReady(
        await ready(app),
        { Database: 'TimedOut', Migrations: 'Unknown' },
        /did not answer in time/,
      );
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
      await app.close();
      await database.close().catch(() => {});
    }
  });
});
