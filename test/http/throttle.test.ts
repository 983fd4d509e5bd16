import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { authHeaders, buildTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

function expect429(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): Record<string, unknown>;
}) {
  expect(res.statusCode).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const retryAfter = String(res.headers['retry-after']);
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-limit']).toBeDefined();
  expect(res.headers['ratelimit-reset']).toBeDefined();
  const body = res.json();
  expect(body.type).toBe('https://rampart.dev/problems/rate-limited');
  expect(body.retryAfter).toBe(Number(retryAfter));
  return body;
}

describe.each(DB_KINDS)('throttling in memory [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      env: {
        RAMPART_THROTTLE_LIMIT: '3',
        RAMPART_THROTTLE_WINDOW: '60',
        RAMPART_THROTTLE_ROUTES: JSON.stringify({ getAccountDetails: { Limit: 1, Window: 30 } }),
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('limits an anonymous client by its address, with RateLimit-* headers on the way', async () => {
    const from = (ip: string) =>
      t.app.inject({ method: 'GET', url: '/api/latest/status', remoteAddress: ip });
    const first = await from('127.0.0.10');
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect(first.headers['ratelimit-remaining']).toBe('2');
    await from('127.0.0.10');
    await from('127.0.0.10');
    const body = expect429(await from('127.0.0.10'));
    expect(body.detail).toContain('3 per 60 seconds');
    // Another address has its own budget.
    expect((await from('127.0.0.11')).statusCode).toBe(200);
  });

  it('limits an API key client by its key, whatever its address', async () => {
    const user = await t.userWithKey('ReadOnly');
    const call = (ip: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/integration/authenticationcheck',
        headers: authHeaders(user),
        remoteAddress: ip,
      });
    expect((await call('127.0.0.20')).statusCode).toBe(200);
    expect((await call('127.0.0.21')).statusCode).toBe(200);
    expect((await call('127.0.0.22')).statusCode).toBe(200);
    expect429(await call('127.0.0.23'));
    // Anonymous traffic from one of those addresses is counted apart.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/latest/status', remoteAddress: '127.0.0.20' }))
        .statusCode,
    ).toBe(200);
    // And another key is not affected.
    const other = await t.userWithKey('ReadOnly');
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/integration/authenticationcheck',
      headers: authHeaders(other),
    });
    expect(res.statusCode).toBe(200);
  });

  it('applies per-route overrides from configuration', async () => {
    const user = await t.userWithKey('ReadOnly');
    const details = () =>
      t.app.inject({ method: 'GET', url: '/api/latest/account/details', headers: authHeaders(user) });
    expect((await details()).statusCode).toBe(200);
    const body = expect429(await details());
    expect(body.detail).toContain('1 per 30 seconds');
  });

  it('throttles unknown routes too', async () => {
    const probe = () => t.app.inject({ method: 'GET', url: '/api/latest/nope', remoteAddress: '127.0.0.30' });
    for (let i = 0; i < 3; i++) expect((await probe()).statusCode).toBe(404);
    expect429(await probe());
  });
});

describe.runIf(process.env.REDIS_URL)('throttling across instances with Redis [redis]', () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await newTestDatabase('pglite');
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it('holds one limit for a client across two app instances', async () => {
    const env = {
      REDIS_URL: process.env.REDIS_URL!,
      RAMPART_THROTTLE_LIMIT: '4',
      RAMPART_THROTTLE_WINDOW: '60',
    };
    const a = await buildTestApp(tdb.database, { env });
    const b = await buildApp({ config: testConfig(env), database: tdb.database, logger: false });
    try {
      const user = await a.userWithKey('ReadOnly');
      const statuses: number[] = [];
      for (const app of [a.app, b.app, a.app, b.app, a.app, b.app]) {
        const res = await app.inject({
          method: 'GET',
          url: '/api/integration/authenticationcheck',
          headers: authHeaders(user),
        });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) expect429(res);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await a.close();
      await b.app.close();
    }
  });

  it('drops a revoked key from the other instance at once', async () => {
    const env = { REDIS_URL: process.env.REDIS_URL!, RAMPART_AUTH_CACHE_SECONDS: '3600' };
    const a = await buildTestApp(tdb.database, { env });
    const b = await buildApp({ config: testConfig(env), database: tdb.database, logger: false });
    try {
      const user = await a.userWithKey('Analyst');
      const check = () =>
        b.app.inject({
          method: 'GET',
          url: '/api/integration/authenticationcheck',
          headers: authHeaders(user),
        });
      expect((await check()).statusCode).toBe(200); // now cached on b for an hour
      const revoke = await a.app.inject({
        method: 'DELETE',
        url: `/api/latest/apikeys/${user.apiKeyId}`,
        headers: authHeaders(user),
      });
      expect(revoke.statusCode).toBe(200);
      // Pub/sub delivery is asynchronous: poll briefly rather than sleep a fixed time.
      let status = 200;
      for (let i = 0; i < 50 && status === 200; i++) {
        status = (await check()).statusCode;
        if (status === 200) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(401);
    } finally {
      await a.close();
      await b.app.close();
    }
  });
});
