import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body.status).toBe(status);
  expect(typeof body.type).toBe('string');
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(typeof body.instance).toBe('string');
  return body;
}

describe.each(DB_KINDS)('errors through the HTTP stack [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_BODY_LIMIT: '2048' } });
    analyst = await t.userWithKey('Analyst');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const postUser = (body: string, headers: Record<string, string> = {}, who: Credentials = t.admin) =>
    t.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { 'content-type': 'application/json', ...authHeaders(who), ...headers },
      payload: body,
    });

  it('404 on an unknown route, as a problem', async () => {
    const body = expectProblem(await t.app.inject({ method: 'GET', url: '/api/latest/nothing-here' }), 404);
    expect(body.type).toBe('https://rampart.dev/problems/not-found');
    expect(body.detail).toContain('/api/latest/nothing-here');
  });

  it('404 on an unknown channel', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/v9/status' }), 404);
  });

  it('405 with Allow on a known path with another method', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/latest/users',
      headers: authHeaders(t.admin),
    });
    expectProblem(res, 405);
    expect(String(res.headers.allow)).toContain('GET');
    expect(String(res.headers.allow)).toContain('POST');
  });

  it('matches paths case-insensitively', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/API/Integration/AuthenticationCheck',
      headers: authHeaders(t.admin),
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('Authenticated');
  });

  it('401 on a protected route without credentials', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/integration/account/details' }), 401);
    expectProblem(await t.app.inject({ method: 'GET', url: '/api/integration/users' }), 401);
  });

  it('401 before reading the body of an unauthenticated request', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { 'content-type': 'application/json' },
      payload: 'x'.repeat(10_000),
    });
    expectProblem(res, 401);
  });

  it('403 when the role is too low, naming the role needed', async () => {
    const body = expectProblem(
      await postUser('{"Email":"x@example.com","Role":"ReadOnly"}', {}, analyst),
      403,
    );
    expect(body.detail).toContain('Admin');
    expect(body.detail).toContain('Analyst');
  });

  it('400 on malformed JSON, with line, column and position', async () => {
    const body = expectProblem(await postUser('{\n  "Email": "a@example.com",\n  "Role": }'), 400);
    expect(body.type).toBe('https://rampart.dev/problems/malformed-json');
    expect(body.detail).toMatch(/line 3, column 11 \(position \d+\)/);
  });

  it('400 on an unknown property, suggesting the right spelling for a mis-cased one', async () => {
    const body = expectProblem(await postUser('{"email":"a@example.com","Role":"Analyst"}'), 400);
    expect(body.type).toBe('https://rampart.dev/problems/validation-failed');
    expect(body.errors).toEqual([
      expect.objectContaining({
        path: '/email',
        suggestion: 'Email',
        message: expect.stringContaining("'email'"),
      }),
    ]);
    expect(body.detail).toContain("did you mean 'Email'");
  });

  it('400 on an unknown property with no likely spelling lists the known ones', async () => {
    const body = expectProblem(
      await postUser('{"Email":"b@example.com","Role":"Analyst","Colour":"red"}'),
      400,
    );
    const errors = body.errors as { path: string; message: string; suggestion?: string }[];
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('/Colour');
    expect(errors[0]?.suggestion).toBeUndefined();
    expect(errors[0]?.message).toContain('Email');
  });

  it('400 on a wrong value, naming the field', async () => {
    const body = expectProblem(await postUser('{"Email":"c@example.com","Role":"Superuser"}'), 400);
    expect(JSON.stringify(body.errors)).toContain('/Role');
  });

  it('400 on a JSON value of the wrong type: bodies are never coerced', async () => {
    const body = expectProblem(await postUser('{"Email":"t@example.com","Role":"Analyst","Name":5}'), 400);
    expect(JSON.stringify(body.errors)).toContain('/Name');
    const asset = await t.app.inject({
      method: 'POST',
      url: '/api/latest/assets',
      headers: { 'content-type': 'application/json', ...authHeaders(t.admin) },
      payload: '{"Kind":"Host","IpAddresses":["10.7.7.7"],"Criticality":"5"}',
    });
    expect(expectProblem(asset, 400).detail).toContain('/Criticality');
  });

  it('400 from a service rule (password policy) in the same shape', async () => {
    const body = expectProblem(
      await postUser('{"Email":"d@example.com","Role":"Analyst","Password":"aaaaaaaaaaaa"}'),
      400,
    );
    expect(JSON.stringify(body.errors)).toContain('/Password');
  });

  it('409 on a duplicate email, and the first user is intact', async () => {
    expect((await postUser('{"Email":"dup@example.com","Role":"Analyst"}')).statusCode).toBe(201);
    const body = expectProblem(await postUser('{"Email":"DUP@example.com","Role":"Admin"}'), 409);
    expect(body.detail).toContain('already exists');
    const user = await t.services.users.findByEmail('dup@example.com');
    expect(user?.role).toBe('Analyst');
  });

  it('413 when the body is too large', async () => {
    const big = JSON.stringify({ Email: 'e@example.com', Role: 'Analyst', Name: 'x'.repeat(5000) });
    const body = expectProblem(await postUser(big), 413);
    expect(body.detail).toContain('2048');
  });

  it('415 on a body that is not JSON', async () => {
    const body = expectProblem(
      await postUser('Email=a@example.com', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
    );
    expect(body.detail).toContain('application/json');
  });

  it('400 on a bad query parameter', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/latest/users?PageSize=0',
      headers: authHeaders(t.admin),
    });
    expectProblem(res, 400);
    const res2 = await t.app.inject({
      method: 'GET',
      url: '/api/latest/users?pagesize=5',
      headers: authHeaders(t.admin),
    });
    const body = expectProblem(res2, 400);
    expect(JSON.stringify(body.errors)).toContain('PageSize');
  });

  it('400 on a cursor it did not make', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/latest/users?Cursor=bogus',
      headers: authHeaders(t.admin),
    });
    expect(expectProblem(res, 400).detail).toContain('Cursor');
  });

  it('404 on an id that is not there, 400 on one that is not a UUID', async () => {
    const missing = await t.app.inject({
      method: 'DELETE',
      url: '/api/latest/apikeys/01900000-0000-7000-8000-000000000000',
      headers: authHeaders(t.admin),
    });
    expectProblem(missing, 404);
    const bad = await t.app.inject({
      method: 'DELETE',
      url: '/api/latest/apikeys/xyz',
      headers: authHeaders(t.admin),
    });
    expectProblem(bad, 400);
  });

  it('500 with a correlation id and nothing else when the database fails', async () => {
    const admin2 = await t.userWithKey('Admin');
    // Break the organisations table under the running app: the request fails inside SQL.
    await sql`alter table organizations rename to organizations_moved`.execute(tdb.database.db);
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/latest/account/details',
        headers: authHeaders(admin2),
      });
      const body = expectProblem(res, 500);
      expect(Object.keys(body).sort()).toEqual([
        'correlationId',
        'detail',
        'instance',
        'status',
        'title',
        'type',
      ]);
      expect(body.correlationId).toBe(res.headers['x-request-id']);
      expect(res.body).not.toMatch(/organizations|relation "|select |\.ts:\d/i);
    } finally {
      await sql`alter table organizations_moved rename to organizations`.execute(tdb.database.db);
    }
  });

  it('lists users of the organisation: an array in integration, a page in latest', async () => {
    const integration = await t.app.inject({
      method: 'GET',
      url: '/api/integration/users',
      headers: authHeaders(t.admin),
    });
    expect(integration.statusCode).toBe(200);
    const array = integration.json() as { Id: string; Email: string; Role: string; Name: string }[];
    expect(Array.isArray(array)).toBe(true);
    expect(Object.keys(array[0] ?? {}).sort()).toEqual(['Email', 'Id', 'Name', 'Role']);

    const seen: string[] = [];
    let cursor: string | null = null;
    let total = 0;
    do {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/latest/users?PageSize=2${cursor ? `&Cursor=${cursor}` : ''}`,
        headers: authHeaders(t.admin),
      });
      const page = res.json() as { Items: { Id: string }[]; NextCursor: string | null; TotalCount: number };
      expect(page.Items.length).toBeLessThanOrEqual(2);
      seen.push(...page.Items.map((u) => u.Id));
      cursor = page.NextCursor;
      total = page.TotalCount;
    } while (cursor);
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen.sort()).toEqual(array.map((u) => u.Id).sort());
  });

  it('account details describe the caller', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/integration/account/details',
      headers: authHeaders(analyst),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.User.Id).toBe(analyst.userId);
    expect(body.User.Role).toBe('Analyst');
    expect(body.Organization.Id).toBe(t.org.id);
    expect(body.AccessKey).toBe(analyst.accessKey);
  });

  it('status is anonymous and holds no secrets', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/integration/status' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.Service).toBe('Rampart');
    expect(body.Database).toBe(kind === 'embedded' ? 'embedded' : 'postgresql');
    expect(res.body).not.toMatch(/postgres:\/\/|password|secret/i);
  });
});
