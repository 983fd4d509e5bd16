import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authHeaders,
  buildTestApp,
  type ComposedApp,
  composeTestApp,
  type TestApp,
  testConfig,
} from '../helpers/app.js';
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

describe('the web app and the API documentation are not API requests', () => {
  let tdb: TestDatabase;
  let rampart: ComposedApp;
  const webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-web-'));

  beforeAll(async () => {
    fs.mkdirSync(path.join(webDir, 'assets'));
    fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    for (let i = 0; i < 8; i++) fs.writeFileSync(path.join(webDir, 'assets', `chunk-${i}.js`), `//${i}`);
    tdb = await newTestDatabase('embedded');
    rampart = await composeTestApp(tdb.database, {
      config: testConfig({ RAMPART_THROTTLE_LIMIT: '5', RAMPART_THROTTLE_WINDOW: '60' }),
      webDir,
    });
  });
  afterAll(async () => {
    await rampart?.app.close();
    await tdb?.drop();
    fs.rmSync(webDir, { recursive: true, force: true });
  });

  it('serves 40 files and pages to one address under a limit of 5, then still counts its API calls', async () => {
    const from = '127.0.0.40';
    const files = [
      '/',
      '/findings',
      '/assets/42',
      '/favicon.svg',
      ...Array.from({ length: 8 }, (_, i) => `/assets/chunk-${i}.js`),
      '/apidoc/integration/',
      '/apidoc/latest/static/swagger-ui.css',
      '/apidoc/latest/static/swagger-ui-bundle.js',
      '/apidoc/integration/static/swagger-initializer.js',
      '/apidoc/integration/json',
      '/apidoc/latest/documentation.json',
    ];
    const statuses: string[] = [];
    for (let i = 0; i < 40; i++) {
      const url = files[i % files.length]!;
      const method = i % 7 === 6 ? 'HEAD' : 'GET';
      const res = await rampart.app.inject({ method, url, remoteAddress: from });
      statuses.push(`${method} ${url} ${res.statusCode}`);
    }
    expect(statuses.filter((s) => !s.endsWith(' 200'))).toEqual([]);

    const api = (url: string) => rampart.app.inject({ method: 'GET', url, remoteAddress: from });
    for (let i = 0; i < 5; i++) expect((await api('/api/latest/status')).statusCode).toBe(200);
    expect429(await api('/api/latest/status'));
    // Probing unknown API paths stays throttled, and so does a page asked with another method.
    expect429(await api('/api/latest/nothing-here'));
    expect429(await api('/API/Latest/Nothing'));
    const post = await rampart.app.inject({ method: 'POST', url: '/findings', remoteAddress: from });
    expect429(post);
  });
});

describe.runIf(process.env.REDIS_URL)('throttling across instances with Redis [redis]', () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
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
    const b = await composeTestApp(tdb.database, { config: testConfig(env) });
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
    const b = await composeTestApp(tdb.database, { config: testConfig(env) });
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

describe.runIf(process.env.REDIS_URL)('Redis keys and channels [redis]', () => {
  let tdb: TestDatabase;
  let redis: Redis;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await tdb?.drop();
  });

  async function keysContaining(marker: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${marker}*`, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  it('names every key and channel under the configured prefix, with no undefined part', async () => {
    const run = randomBytes(4).toString('hex');
    const prefix = `rt-${run}:`;
    const address = `127.${[1, 2, 3].map(() => 1 + Math.floor(Math.random() * 250)).join('.')}`;
    const t = await buildTestApp(tdb.database, {
      env: {
        REDIS_URL: process.env.REDIS_URL!,
        RAMPART_REDIS_PREFIX: prefix,
        RAMPART_THROTTLE_LIMIT: '50',
        RAMPART_THROTTLE_ROUTES: JSON.stringify({ getAccountDetails: { Limit: 5, Window: 30 } }),
      },
    });
    try {
      const user = await t.userWithKey('ReadOnly');
      await t.app.inject({ method: 'GET', url: '/api/latest/status', remoteAddress: address });
      await t.app.inject({ method: 'GET', url: '/api/latest/nothing', remoteAddress: address });
      await t.app.inject({
        method: 'GET',
        url: '/api/latest/account/details',
        headers: authHeaders(user),
        remoteAddress: address,
      });
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/api/latest/session',
        remoteAddress: address,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ Email: `nobody-${run}@example.com`, Password: 'wrong password 123' }),
      });
      expect(signIn.statusCode).toBe(401);

      // A sign-in's account-at-address key names both: found by either search, counted once.
      const keys = [
        ...new Set([
          ...(await keysContaining(address)),
          ...(await keysContaining(user.accessKey)),
          ...(await keysContaining(`nobody-${run}`)),
        ]),
      ];
      // The global budget by address, a route's own budget by key, sign-in by address, by account
      // and by the account at that address.
      expect(keys.sort()).toEqual(
        [
          `${prefix}throttle:addr:${address}`,
          `${prefix}throttle:GET/api/latest/account/details:key:${user.accessKey}`,
          `${prefix}throttle:login-addr:${address}`,
          `${prefix}throttle:login-account:nobody-${run}@example.com`,
          `${prefix}throttle:login-pair:${address}:nobody-${run}@example.com`,
        ].sort(),
      );
      for (const key of keys) {
        expect(key.startsWith(prefix), key).toBe(true);
        expect(key, key).not.toContain('undefined');
      }
      const channels = (await redis.pubsub('CHANNELS', `*${run}*`)) as string[];
      expect(channels).toEqual([`${prefix}invalidate`]);
    } finally {
      await t.close();
    }
  });

  it('keeps the counters of two installations sharing one Redis apart', async () => {
    const run = randomBytes(4).toString('hex');
    const address = `127.${[1, 2, 3].map(() => 1 + Math.floor(Math.random() * 250)).join('.')}`;
    const env = (prefix: string) => ({
      REDIS_URL: process.env.REDIS_URL!,
      RAMPART_REDIS_PREFIX: prefix,
      RAMPART_THROTTLE_LIMIT: '3',
      RAMPART_THROTTLE_WINDOW: '60',
    });
    const a = await composeTestApp(tdb.database, { config: testConfig(env(`a-${run}:`)) });
    const b = await composeTestApp(tdb.database, { config: testConfig(env(`b-${run}:`)) });
    try {
      const status = (app: ComposedApp) =>
        app.app.inject({ method: 'GET', url: '/api/latest/status', remoteAddress: address });
      for (let i = 0; i < 3; i++) expect((await status(a)).statusCode).toBe(200);
      expect429(await status(a));
      expect((await status(b)).statusCode).toBe(200);
      expect((await status(b)).headers['ratelimit-remaining']).toBe('1');
    } finally {
      await a.app.close();
      await b.app.close();
    }
  });
});

describe('RAMPART_REDIS_PREFIX', () => {
  it('defaults to rampart: and refuses a prefix that would not make a clean key', () => {
    expect(testConfig().redisPrefix).toBe('rampart:');
    expect(testConfig({ RAMPART_REDIS_PREFIX: 'site-2:' }).redisPrefix).toBe('site-2:');
    expect(() => testConfig({ RAMPART_REDIS_PREFIX: 'has space:' })).toThrow(/RAMPART_REDIS_PREFIX/);
    expect(() => testConfig({ RAMPART_REDIS_PREFIX: 'x'.repeat(200) })).toThrow(/RAMPART_REDIS_PREFIX/);
  });
});
