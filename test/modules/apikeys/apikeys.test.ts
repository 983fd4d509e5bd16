import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, type Browser, buildTestApp, signInAs, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

describe.each(DB_KINDS)('API keys of the signed-in user [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    await t.services.users.create(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      { email: 'keys@example.com', role: 'ReadOnly', password: 'rotating secrets daily' },
    );
    browser = await signInAs(t.app, 'keys@example.com', 'rotating secrets daily');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const create = (body: string, headers: Record<string, string> = browser.headers) =>
    t.app.inject({
      method: 'POST',
      url: '/api/latest/apikeys',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: body,
    });

  it('creates a key whose secret is in the answer only, and which works at once', async () => {
    const res = await create('{"Name":"CI pipeline","ExpiresInDays":30}');
    expect(res.statusCode).toBe(201);
    const key = res.json();
    expect(key).toMatchObject({ Name: 'CI pipeline', Status: 'Active', LastUsedAt: null, RevokedAt: null });
    expect(key.SecretKey).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(new Date(key.ExpiresAt).getTime() - new Date(key.CreatedAt).getTime()).toBeGreaterThan(
      29 * 86_400_000,
    );
    const check = await t.app.inject({
      method: 'GET',
      url: '/api/integration/authenticationcheck',
      headers: authHeaders({ accessKey: key.AccessKey, secretKey: key.SecretKey }),
    });
    expect(check.body).toBe('Authenticated');
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/latest/apikeys',
      headers: { cookie: browser.cookie },
    });
    expect(list.json().Items.map((k: { Id: string }) => k.Id)).toContain(key.Id);
    expect(list.body).not.toContain(key.SecretKey);
  });

  it('refuses bad input', async () => {
    expect((await create('{"Name":""}')).statusCode).toBe(400);
    expect((await create('{"Name":"x","ExpiresInDays":0}')).statusCode).toBe(400);
    expect((await create('{"Name":"x","ExpiresInDays":99999}')).statusCode).toBe(400);
    const misspelt = await create('{"name":"x"}');
    expect(misspelt.json().errors[0].suggestion).toBe('Name');
    expect((await create('not json')).statusCode).toBe(400);
  });

  it('needs a web session and its CSRF token', async () => {
    expect((await create('{"Name":"x"}', { cookie: browser.cookie })).statusCode).toBe(403);
    const viaKey = await create('{"Name":"x"}', authHeaders(t.admin));
    expect(viaKey.statusCode).toBe(401);
  });

  it('lets the owner revoke with the session too', async () => {
    const key = (await create('{"Name":"short-lived"}')).json();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/latest/apikeys/${key.Id}`,
      headers: browser.headers,
    });
    expect(res.json().Status).toBe('Revoked');
    const check = await t.app.inject({
      method: 'GET',
      url: '/api/integration/authenticationcheck',
      headers: authHeaders({ accessKey: key.AccessKey, secretKey: key.SecretKey }),
    });
    expect(check.statusCode).toBe(401);
  });
});
