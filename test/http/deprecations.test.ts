import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { DeprecationRegistry } from '../../src/http/deprecations.js';
import { authHeaders, buildTestApp, type TestApp, TestClock, testConfig } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

const HEADER =
  "This endpoint is deprecated and will be removed on 2026-12-01. Please see the 'latest' channel of the API " +
  'documentation to find the endpoint replacement.';

describe.each(DB_KINDS)('deprecations [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const clock = new TestClock(new Date('2026-11-21T12:00:00Z'));

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      clock,
      env: {
        RAMPART_DEPRECATIONS: JSON.stringify([
          // Removal date by default: 30 days after marking.
          {
            Method: 'GET',
            Path: '/users',
            Channel: 'integration',
            MarkedOn: '2026-11-01',
            Replacement: 'GET /api/latest/users',
          },
          {
            Method: 'DELETE',
            Path: '/apikeys/{Id}',
            Channel: 'latest',
            MarkedOn: '2026-11-01',
            RemovalOn: '2027-03-01',
            Replacement: 'DELETE /api/latest/apikeys/{Id}/v2',
          },
        ]),
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const getUsers = (channel: string) =>
    t.app.inject({ method: 'GET', url: `/api/${channel}/users`, headers: authHeaders(t.admin) });

  it('answers normally with the deprecated header before the removal date', async () => {
    const res = await getUsers('integration');
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecated).toBe(HEADER);
  });

  it('leaves the same path in the other channel alone', async () => {
    const res = await getUsers('latest');
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecated).toBeUndefined();
  });

  it('answers 410 naming the replacement from the removal date on', async () => {
    clock.now = new Date('2026-11-30T23:59:59Z');
    expect((await getUsers('integration')).statusCode).toBe(200);
    clock.now = new Date('2026-12-01T00:00:00Z');
    try {
      const res = await getUsers('integration');
      expect(res.statusCode).toBe(410);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      const body = res.json();
      expect(body.replacement).toBe('GET /api/latest/users');
      expect(body.detail).toContain('GET /api/latest/users');
      expect(body.detail).toContain('2026-12-01');
    } finally {
      clock.now = new Date('2026-11-21T12:00:00Z');
    }
  });

  it('honours an explicit removal date and path parameters', async () => {
    const user = await t.userWithKey('Analyst');
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/latest/apikeys/${user.apiKeyId}`,
      headers: authHeaders(user),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecated).toContain('2027-03-01');
  });
});

describe('deprecation configuration', () => {
  it('matches paths whatever the parameter names or case', () => {
    const registry = new DeprecationRegistry([
      {
        Method: 'GET',
        Path: '/Assets/{AssetId}',
        Channel: 'integration',
        MarkedOn: '2026-01-01',
        Replacement: 'x',
      },
    ]);
    expect(registry.find('integration', 'GET', '/assets/:id')?.removalOn).toBe('2026-01-31');
    expect(registry.find('latest', 'GET', '/assets/:id')).toBeUndefined();
    expect(registry.find('integration', 'POST', '/assets/:id')).toBeUndefined();
  });

  it('refuses a malformed entry with a clear message', () => {
    expect(() =>
      testConfig({
        RAMPART_DEPRECATIONS: '[{"Method":"GET","Path":"/x","Channel":"beta","MarkedOn":"soon"}]',
      }),
    ).toThrow(ConfigError);
    expect(() => testConfig({ RAMPART_DEPRECATIONS: '[{"Method":"GET"' })).toThrow(
      /RAMPART_DEPRECATIONS is not valid JSON/,
    );
    expect(() =>
      testConfig({
        RAMPART_DEPRECATIONS: '[{"Method":"GET","Path":"/x","Channel":"beta","MarkedOn":"soon"}]',
      }),
    ).toThrow(/RAMPART_DEPRECATIONS \(0\/Channel\)/);
  });
});
