import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/db/schema.js';
import { authHeaders, buildTestApp, type Credentials, signInAs, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const PASSWORD = 'a perfectly fine passphrase';

describe.each(DB_KINDS)('managing users [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  async function member(role: Role) {
    n += 1;
    const email = `member${n}@example.com`;
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    const user = await t.services.users.create(ctx, { email, role, password: PASSWORD });
    const { key, secretKey } = await t.services.apiKeys.create(ctx, { userId: user.id, name: 'k' });
    const creds: Credentials = { accessKey: key.accessKey, secretKey, userId: user.id, apiKeyId: key.id };
    return { email, id: user.id, creds };
  }

  const patch = (id: string, body: unknown, who: Credentials = t.admin) =>
    t.app.inject({
      method: 'PATCH',
      url: `/api/latest/users/${id}`,
      headers: { ...authHeaders(who), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const check = (c: Credentials) =>
    t.app.inject({ method: 'GET', url: '/api/integration/authenticationcheck', headers: authHeaders(c) });

  it('changes a role, and the cached key of that user carries the new role at once', async () => {
    const m = await member('Analyst');
    const before = await t.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { ...authHeaders(m.creds), 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: `made-by-${n}@example.com`, Role: 'ReadOnly' }),
    });
    expect(before.statusCode).toBe(403);
    const res = await patch(m.id, { Role: 'Admin', Name: 'Promoted' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Role: 'Admin', Name: 'Promoted', Active: true });
    const after = await t.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { ...authHeaders(m.creds), 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: `made-by-${n}@example.com`, Role: 'ReadOnly' }),
    });
    expect(after.statusCode).toBe(201);
  });

  it('deactivating a user stops their API keys and sessions at once; reactivating restores keys', async () => {
    const m = await member('Analyst');
    const browser = await signInAs(t.app, m.email, PASSWORD);
    expect((await check(m.creds)).statusCode).toBe(200);
    expect((await patch(m.id, { Active: false })).json().Active).toBe(false);
    expect((await check(m.creds)).statusCode).toBe(401);
    const session = await t.app.inject({
      method: 'GET',
      url: '/api/latest/session',
      headers: { cookie: browser.cookie },
    });
    expect(session.statusCode).toBe(401);
    await expect(signInAs(t.app, m.email, PASSWORD)).rejects.toThrow(/401/);
    expect((await patch(m.id, { Active: true })).statusCode).toBe(200);
    expect((await check(m.creds)).statusCode).toBe(200);
  });

  it('never leaves the organisation without an active Admin', async () => {
    const solo = await buildTestApp(tdb.database);
    // This database's first organisation has several Admins by now; use a fresh one.
    const org = await solo.services.organizations.create('Solo');
    const onlyAdmin = await solo.userWithKey('Admin', org);
    for (const body of [{ Role: 'Manager' }, { Active: false }]) {
      const res = await solo.app.inject({
        method: 'PATCH',
        url: `/api/latest/users/${onlyAdmin.userId}`,
        headers: { ...authHeaders(onlyAdmin), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toContain('without an active Admin');
    }
    expect((await check(onlyAdmin)).statusCode).toBe(200);
    await solo.close();
  });

  it('refuses bad input, other roles and unknown users', async () => {
    const m = await member('Analyst');
    expect((await patch(m.id, {})).statusCode).toBe(400);
    const misspelt = await patch(m.id, { role: 'Admin' });
    expect(misspelt.statusCode).toBe(400);
    expect(misspelt.json().errors[0].suggestion).toBe('Role');
    expect((await patch(m.id, { Role: 'Owner' })).statusCode).toBe(400);
    expect((await patch(m.id, { Active: 'no' })).statusCode).toBe(400);
    expect((await patch(m.id, { Name: '' })).statusCode).toBe(400);
    expect((await patch('01900000-0000-7000-8000-000000000000', { Role: 'Admin' })).statusCode).toBe(404);
    expect((await patch('not-a-uuid', { Role: 'Admin' })).statusCode).toBe(400);
    const manager = await member('Manager');
    expect((await patch(m.id, { Role: 'Admin' }, manager.creds)).statusCode).toBe(403);
    const unchanged = await t.services.users.get(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      m.id,
    );
    expect(unchanged.role).toBe('Analyst');
  });

  it('resets a password: a generated one, shown once, that works; old sessions end', async () => {
    const m = await member('Analyst');
    const browser = await signInAs(t.app, m.email, PASSWORD);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/latest/users/${m.id}/password`,
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(200);
    const { Password } = res.json();
    expect(Password).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: { cookie: browser.cookie } }))
        .statusCode,
    ).toBe(401);
    await expect(signInAs(t.app, m.email, PASSWORD)).rejects.toThrow(/401/);
    await signInAs(t.app, m.email, Password);
    const bad = await t.app.inject({
      method: 'POST',
      url: `/api/latest/users/${m.id}/password`,
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: '{"Password":"mine"}',
    });
    expect(bad.statusCode).toBe(400);
  });

  it('lets a signed-in user change their own password; other sessions end, this one stays', async () => {
    const m = await member('ReadOnly');
    const here = await signInAs(t.app, m.email, PASSWORD, '127.0.9.2');
    const elsewhere = await signInAs(t.app, m.email, PASSWORD, '127.0.9.3');
    const change = (body: unknown, headers = here.headers) =>
      t.app.inject({
        method: 'POST',
        url: '/api/latest/account/password',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const wrong = await change({ CurrentPassword: 'not it at all', NewPassword: 'a brand new passphrase' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors).toEqual([expect.objectContaining({ path: '/CurrentPassword' })]);
    const weak = await change({ CurrentPassword: PASSWORD, NewPassword: 'short' });
    expect(weak.json().errors[0].path).toBe('/NewPassword');
    expect(
      (
        await change(
          { CurrentPassword: PASSWORD, NewPassword: 'a brand new passphrase' },
          { cookie: here.cookie },
        )
      ).statusCode,
    ).toBe(403);
    const viaKey = await t.app.inject({
      method: 'POST',
      url: '/api/latest/account/password',
      headers: { ...authHeaders(m.creds), 'content-type': 'application/json' },
      payload: JSON.stringify({ CurrentPassword: PASSWORD, NewPassword: 'a brand new passphrase' }),
    });
    expect(viaKey.statusCode).toBe(401);
    expect(
      (await change({ CurrentPassword: PASSWORD, NewPassword: 'a brand new passphrase' })).statusCode,
    ).toBe(204);
    const session = (cookie: string) =>
      t.app.inject({ method: 'GET', url: '/api/latest/session', headers: { cookie } });
    expect((await session(here.cookie)).statusCode).toBe(200);
    expect((await session(elsewhere.cookie)).statusCode).toBe(401);
    await signInAs(t.app, m.email, 'a brand new passphrase', '127.0.9.4');
  });
});
