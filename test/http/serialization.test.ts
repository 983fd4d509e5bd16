import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUnbuiltSerializers, lazySerializerFactory } from '../../src/http/serialization.js';
import { authHeaders, buildTestApp, type TestApp } from '../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

describe('every response schema of the app [embedded]', () => {
  let tdb: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    t = await buildTestApp(tdb.database);
    await t.app.ready();
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('builds into a serializer', () => {
    // Every route's answers of every status, in both channels: one failure throws here.
    expect(buildUnbuiltSerializers()).toBeGreaterThan(500);
    expect(buildUnbuiltSerializers()).toBe(0);
  });

  it('serves answers through them', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/latest/users',
      headers: authHeaders(t.admin),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().Items.length).toBeGreaterThan(0);
    expect(res.body).not.toContain('PasswordHash');
  });
});

describe('response serializers built on first use', () => {
  it('answer only what the schema names, as Fastify’s own serializer does', () => {
    const compile = lazySerializerFactory({});
    const serialize = compile({
      schema: { type: 'object', properties: { Id: { type: 'string' }, Count: { type: 'integer' } } },
    });
    expect(JSON.parse(serialize({ Id: 'a', Count: 3, PasswordHash: 'secret' }))).toEqual({
      Id: 'a',
      Count: 3,
    });
  });

  it('resolve a shared schema they refer to', () => {
    const compile = lazySerializerFactory({
      Shared: { $id: 'Shared', type: 'object', properties: { Name: { type: 'string' } } },
    });
    const serialize = compile({ schema: { type: 'array', items: { $ref: 'Shared#' } } });
    expect(serialize([{ Name: 'x', Other: 1 }])).toBe('[{"Name":"x"}]');
  });

  it('fail on a schema they cannot serialize when built, not when handed out', () => {
    const compile = lazySerializerFactory({});
    const serialize = compile({ schema: { $ref: 'Missing#' } });
    expect(() => serialize({})).toThrow(/Missing/);
    // And a test that builds every serializer is told.
    expect(() => buildUnbuiltSerializers()).toThrow(/Missing/);
  });
});
