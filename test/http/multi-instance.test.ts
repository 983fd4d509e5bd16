import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import {
  authHeaders,
  buildTestApp,
  type Credentials,
  composeTestApp,
  signInAs,
  type TestApp,
  TestClock,
  testConfig,
} from '../helpers/app.js';
import { createPostgresDatabase } from '../helpers/databases.js';

/**
 * Two instances of Rampart, each with its own connection pool on one PostgreSQL database, as two
 * servers behind a load balancer run: what one instance revokes, deactivates, demotes or signs
 * out, the other refuses; and one throttle limit holds across both. Invalidation travels through
 * Redis asynchronously, so the tests poll for the outcome (for at most a few seconds) instead of
 * sleeping a fixed time; they assert what happens, not how fast.
 */

const PASSWORD = 'one password, two instances';

/** Asks until `done` holds of the answer, for up to ~3 s; answers the last status seen. */
async function eventually(ask: () => Promise<number>, done: (status: number) => boolean): Promise<number> {
  let status = await ask();
  for (let i = 0; i < 150 && !done(status); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    status = await ask();
  }
  return status;
}

interface Pair {
  a: TestApp;
  b: FastifyInstance;
  close(): Promise<void>;
}

describe.runIf(process.env.DATABASE_URL)('two instances on one PostgreSQL database [postgres]', () => {
  let url: string;
  let drop: () => Promise<void>;
  const pools: Database[] = [];

  /** Instance A (the test app) and instance B, each on a pool of its own. */
  async function pair(env: Record<string, string>): Promise<Pair> {
    const clock = new TestClock();
    const first = await openPostgres(url, 3);
    const second = await openPostgres(url, 3);
    pools.push(first, second);
    const a = await buildTestApp(first, { env, clock });
    const b = await composeTestApp(second, { config: testConfig(env), clock: clock.fn });
    return {
      a,
      b: b.app,
      close: async () => {
        await a.close();
        await b.app.close();
      },
    };
  }

  const check = (app: FastifyInstance, who: Credentials) =>
    app
      .inject({ method: 'GET', url: '/api/integration/authenticationcheck', headers: authHeaders(who) })
      .then((res) => res.statusCode);

  beforeAll(async () => {
    ({ url, drop } = await createPostgresDatabase());
    const migrator = await openPostgres(url, 1);
    await migrateToLatest(migrator.db);
    await migrator.close();
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close().catch(() => {});
    await drop?.();
  });

  describe.runIf(process.env.REDIS_URL)('sharing one Redis [redis]', () => {
    // A prefix of this test's own, so that no other suite sharing the Redis counts or hears along.
    const redisEnv = () => ({
      REDIS_URL: process.env.REDIS_URL!,
      RAMPART_REDIS_PREFIX: `multi-${randomBytes(4).toString('hex')}:`,
      RAMPART_AUTH_CACHE_SECONDS: '3600',
    });

    it('a key revoked on one instance is refused by the other, which had it cached for an hour', async () => {
      const { a, b, close } = await pair(redisEnv());
      try {
        const user = await a.userWithKey('Analyst');
        const bystander = await a.userWithKey('Analyst');
        expect(await check(b, user)).toBe(200);
        expect(await check(b, bystander)).toBe(200);
        const revoke = await a.app.inject({
          method: 'DELETE',
          url: `/api/latest/apikeys/${user.apiKeyId}`,
          headers: authHeaders(user),
        });
        expect(revoke.statusCode).toBe(200);
        expect(
          await eventually(
            () => check(b, user),
            (s) => s !== 200,
          ),
        ).toBe(401);
        expect(await check(a.app, user)).toBe(401);
        expect(await check(b, bystander)).toBe(200);
      } finally {
        await close();
      }
    });

    it('a user deactivated or demoted on one instance loses it on the other', async () => {
      const { a, b, close } = await pair(redisEnv());
      try {
        const leaving = await a.userWithKey('Analyst');
        const demoted = await a.userWithKey('Admin');
        const adminRoute = () =>
          b
            .inject({ method: 'GET', url: '/api/latest/intel/feeds', headers: authHeaders(demoted) })
            .then((res) => res.statusCode);
        expect(await check(b, leaving)).toBe(200);
        expect(await adminRoute()).toBe(200);
        const change = (userId: string, body: unknown) =>
          a.app.inject({
            method: 'PATCH',
            url: `/api/latest/users/${userId}`,
            headers: { ...authHeaders(a.admin), 'content-type': 'application/json' },
            payload: JSON.stringify(body),
          });
        expect((await change(leaving.userId, { Active: false })).statusCode).toBe(200);
        expect((await change(demoted.userId, { Role: 'ReadOnly' })).statusCode).toBe(200);
        expect(
          await eventually(
            () => check(b, leaving),
            (s) => s !== 200,
          ),
        ).toBe(401);
        expect(await eventually(adminRoute, (s) => s !== 200)).toBe(403);
        // Demoted, not locked out: the key still reads what ReadOnly may read.
        expect(await check(b, demoted)).toBe(200);
      } finally {
        await close();
      }
    });

    it('holds one throttle limit for a client across both: 20 of 60 alternating requests pass', async () => {
      const env = { ...redisEnv(), RAMPART_THROTTLE_LIMIT: '20', RAMPART_THROTTLE_WINDOW: '60' };
      const { a, b, close } = await pair(env);
      try {
        const client = await a.userWithKey('ReadOnly');
        const statuses: number[] = [];
        for (let i = 0; i < 60; i++) statuses.push(await check(i % 2 === 0 ? a.app : b, client));
        expect(statuses.filter((s) => s === 200)).toHaveLength(20);
        expect(statuses.filter((s) => s === 429)).toHaveLength(40);
        expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
        // Another client's budget is its own, on either instance.
        const other = await a.userWithKey('ReadOnly');
        expect(await check(b, other)).toBe(200);
        expect(await check(a.app, other)).toBe(200);
      } finally {
        await close();
      }
    });

    it('holds the sign-in budgets across both: a name guessed on both is spent, the Admin behind the same address is not', async () => {
      const env = {
        ...redisEnv(),
        RAMPART_LOGIN_THROTTLE_LIMIT: '4',
        RAMPART_LOGIN_THROTTLE_ACCOUNT_LIMIT: '6',
        RAMPART_LOGIN_THROTTLE_ADDRESS_LIMIT: '8',
      };
      const { a, b, close } = await pair(env);
      try {
        await a.services.users.create(
          { organizationId: a.org.id, actor: { type: 'system', id: null } },
          { email: 'nat-admin@example.com', role: 'Admin', password: PASSWORD },
        );
        const signIn = (app: FastifyInstance, email: string, password: string, ip = '127.0.7.1') =>
          app
            .inject({
              method: 'POST',
              url: '/api/latest/session',
              remoteAddress: ip,
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify({ Email: email, Password: password }),
            })
            .then((res) => res.statusCode);
        const guesses: number[] = [];
        for (let i = 0; i < 10; i++)
          guesses.push(await signIn(i % 2 === 0 ? a.app : b, 'nobody@example.com', 'a wrong guess'));
        expect(guesses).toEqual([401, 401, 401, 401, 429, 429, 429, 429, 429, 429]);
        expect(await signIn(b, 'nat-admin@example.com', PASSWORD)).toBe(200);
        // The name, from two more addresses on either instance: its own budget of 6 is spent.
        for (let i = 0; i < 2; i++) await signIn(a.app, 'nobody@example.com', 'a wrong guess', '127.0.7.2');
        expect(await signIn(b, 'nobody@example.com', 'a wrong guess', '127.0.7.3')).toBe(429);
      } finally {
        await close();
      }
    });
  });

  it('a session signed out on one instance is refused by the other at once (sessions are not cached)', async () => {
    const { a, b, close } = await pair({});
    try {
      await a.services.users.create(
        { organizationId: a.org.id, actor: { type: 'system', id: null } },
        { email: 'two-tabs@example.com', role: 'Analyst', password: PASSWORD },
      );
      const browser = await signInAs(a.app, 'two-tabs@example.com', PASSWORD);
      const whoAmI = () =>
        b
          .inject({ method: 'GET', url: '/api/latest/session', headers: browser.headers })
          .then((r) => r.statusCode);
      expect(await whoAmI()).toBe(200);
      const out = await a.app.inject({
        method: 'DELETE',
        url: '/api/latest/session',
        headers: browser.headers,
      });
      expect(out.statusCode).toBe(204);
      expect(await whoAmI()).toBe(401);
    } finally {
      await close();
    }
  });

  it('without Redis and without a key cache, a key revoked on one instance is refused by the other at once', async () => {
    const { a, b, close } = await pair({ RAMPART_AUTH_CACHE_SECONDS: '0' });
    try {
      const user = await a.userWithKey('Analyst');
      expect(await check(b, user)).toBe(200);
      await a.services.apiKeys.revoke(
        { organizationId: a.org.id, actor: { type: 'system', id: null } },
        user.apiKeyId,
      );
      expect(await check(b, user)).toBe(401);
    } finally {
      await close();
    }
  });
});
