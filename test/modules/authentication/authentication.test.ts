import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNAUTHENTICATED_DETAIL } from '../../../src/http/auth.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp, TestClock } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('authentication check [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const clock = new TestClock();

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { clock });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const check = (headers: Record<string, string>, channel = 'integration') =>
    t.app.inject({ method: 'GET', url: `/api/${channel}/authenticationcheck`, headers });

  it.each(['integration', 'latest'])(
    'answers exactly "Authenticated" as text/plain in %s',
    async (channel) => {
      const res = await check({ ...authHeaders(t.admin), 'content-type': 'application/json' }, channel);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toBe('Authenticated');
    },
  );

  it('works for every role, ReadOnly included', async () => {
    const readOnly = await t.userWithKey('ReadOnly');
    expect((await check(authHeaders(readOnly))).body).toBe('Authenticated');
  });

  async function expectSame401(headers: Record<string, string>) {
    const res = await check(headers);
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toEqual({
      type: 'https://rampart.dev/problems/unauthenticated',
      title: 'Authentication required',
      status: 401,
      detail: UNAUTHENTICATED_DETAIL,
      instance: '/api/integration/authenticationcheck',
    });
    return res;
  }

  it('gives one and the same 401 for every kind of failure', async () => {
    const { accessKey, secretKey } = t.admin;
    await expectSame401({});
    await expectSame401({ ApiAccessKey: accessKey });
    await expectSame401({ ApiSecretKey: secretKey });
    await expectSame401({ ApiAccessKey: 'not-a-key', ApiSecretKey: secretKey });
    await expectSame401({ ApiAccessKey: accessKey, ApiSecretKey: 'short' });
    await expectSame401({ ApiAccessKey: 'ZZZZZZZZZZZZZZZZZZZZ', ApiSecretKey: secretKey });
    await expectSame401({
      ApiAccessKey: accessKey,
      ApiSecretKey: `${secretKey.slice(0, -1)}${secretKey.endsWith('a') ? 'b' : 'a'}`,
    });
    await expectSame401({ ApiAccessKey: secretKey, ApiSecretKey: accessKey });
  });

  it('compares header values case-sensitively', async () => {
    const { accessKey, secretKey } = t.admin;
    await expectSame401({ ApiAccessKey: accessKey.toLowerCase(), ApiSecretKey: secretKey });
    const flipped = secretKey.replace(/[a-z]/, (c) => c.toUpperCase());
    if (flipped !== secretKey) await expectSame401({ ApiAccessKey: accessKey, ApiSecretKey: flipped });
  });

  it('refuses a revoked key at once on this instance', async () => {
    const user = await t.userWithKey('Analyst');
    expect((await check(authHeaders(user))).statusCode).toBe(200);
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/latest/apikeys/${user.apiKeyId}`,
      headers: authHeaders(user),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().Status).toBe('Revoked');
    await expectSame401(authHeaders(user));
  });

  it('refuses an expired key when the clock passes its expiry', async () => {
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    const user = await t.services.users.create(ctx, { email: `exp-${kind}@example.com`, role: 'Analyst' });
    const { key, secretKey } = await t.services.apiKeys.create(ctx, {
      userId: user.id,
      name: 'short',
      expiresInDays: 1,
    });
    const creds: Credentials = { accessKey: key.accessKey, secretKey, userId: user.id, apiKeyId: key.id };
    expect((await check(authHeaders(creds))).statusCode).toBe(200);
    clock.advanceDays(2);
    try {
      await expectSame401(authHeaders(creds));
    } finally {
      clock.advanceDays(-2);
    }
  });

  it('records last use in batches, not per request', async () => {
    const user = await t.userWithKey('Analyst');
    await check(authHeaders(user));
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    const before = await t.services.apiKeys.listForUser(ctx, user.userId);
    // In memory until the flush; the API shows it already.
    expect(before[0]?.lastUsedAt).not.toBeNull();
    expect(await t.services.apiKeys.flushLastUsed()).toBeGreaterThan(0);
    const row = await tdb.database.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', user.apiKeyId)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).toBeInstanceOf(Date);
  });

  it('stores only a hash of the secret', async () => {
    const rows = await tdb.database.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(
      rows.map((r) => ({
        ...r,
        secret_hash: r.secret_hash.toString('hex'),
        secret_salt: r.secret_salt.toString('hex'),
      })),
    );
    expect(dump).not.toContain(t.admin.secretKey);
    expect(dump).not.toContain(Buffer.from(t.admin.secretKey).toString('hex'));
  });
});
