import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Organization } from '../../src/modules/organizations/service.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

describe.each(DB_KINDS)('tenant isolation [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let other: Organization;
  let otherAdmin: Credentials;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    other = await t.services.organizations.create('Other Corp');
    otherAdmin = await t.userWithKey('Admin', other);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('lists only the users of the caller’s organisation, in both channels', async () => {
    for (const [who, mine, theirs] of [
      [t.admin, t.admin, otherAdmin],
      [otherAdmin, otherAdmin, t.admin],
    ] as const) {
      const array = (
        await t.app.inject({ method: 'GET', url: '/api/integration/users', headers: authHeaders(who) })
      ).json();
      const ids = (array as { Id: string }[]).map((u) => u.Id);
      expect(ids).toContain(mine.userId);
      expect(ids).not.toContain(theirs.userId);
      const page = (
        await t.app.inject({ method: 'GET', url: '/api/latest/users', headers: authHeaders(who) })
      ).json();
      expect(page.Items.map((u: { Id: string }) => u.Id)).not.toContain(theirs.userId);
      expect(page.TotalCount).toBe(ids.length);
    }
  });

  it('creates users in the caller’s organisation only', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/integration/users',
      headers: { ...authHeaders(otherAdmin), 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: 'new@other.example', Role: 'ReadOnly' }),
    });
    expect(res.statusCode).toBe(201);
    const created = await t.services.users.findByEmail('new@other.example');
    expect(created?.organizationId).toBe(other.id);
  });

  it('cannot see or revoke another organisation’s API key', async () => {
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/latest/apikeys',
      headers: authHeaders(t.admin),
    });
    expect(list.json().Items.map((k: { Id: string }) => k.Id)).not.toContain(otherAdmin.apiKeyId);
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/api/latest/apikeys/${otherAdmin.apiKeyId}`,
      headers: authHeaders(t.admin),
    });
    expect(revoke.statusCode).toBe(404);
    const still = await t.app.inject({
      method: 'GET',
      url: '/api/integration/authenticationcheck',
      headers: authHeaders(otherAdmin),
    });
    expect(still.body).toBe('Authenticated');
  });

  it('cannot revoke another user’s key of the same organisation through the API', async () => {
    const colleague = await t.userWithKey('Analyst');
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/latest/apikeys/${colleague.apiKeyId}`,
      headers: authHeaders(t.admin),
    });
    expect(res.statusCode).toBe(404);
  });

  it('describes the caller’s own organisation', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/integration/account/details',
      headers: authHeaders(otherAdmin),
    });
    expect(res.json().Organization).toEqual({ Id: other.id, Name: 'Other Corp' });
  });
});
