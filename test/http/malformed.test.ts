import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/http/channels.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { authHeaders, type Browser, buildTestApp, signInAs, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

type Res = { statusCode: number; headers: Record<string, unknown>; body: string; json(): unknown };

/** A 4xx that is one of ours: a problem document whose status is the answer's. */
function expectProblem(res: Res, status: number, slug?: string): Record<string, unknown> {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body.status).toBe(status);
  expect(typeof body.detail).toBe('string');
  expect(typeof body.instance).toBe('string');
  if (slug) expect(body.type).toBe(`https://rampart.dev/problems/${slug}`);
  return body;
}

/** Never a 5xx; every 4xx a problem document. */
function expectHandled(res: Res, what: string): void {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/);
    expect((res.json() as { status: number }).status, what).toBe(res.statusCode);
  }
}

const DEEP = 500_000;
const deepInvalid = '['.repeat(DEEP);
const deepValid = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;

describe.each(DB_KINDS)('malformed requests are 4xx problems, never 500 [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    const ctx: ServiceContext = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    await t.services.users.create(ctx, {
      email: 'fuzz-admin@example.com',
      role: 'Admin',
      password: 'long enough passphrase 1',
    });
    browser = await signInAs(t.app, 'fuzz-admin@example.com', 'long enough passphrase 1');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const json = (method: 'POST' | 'PATCH', url: string, payload: string) =>
    t.app.inject({
      method,
      url,
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload,
    });

  it('a JSON body nested 500,000 deep, broken or whole, is a 400 that says how deep is allowed', async () => {
    for (const payload of [
      deepInvalid,
      deepValid,
      `{"Email":${deepValid}}`,
      `{"Name":"${'x'.repeat(10)}",${deepInvalid}`,
    ]) {
      const body = expectProblem(await json('POST', '/api/latest/users', payload), 400, 'malformed-json');
      expect(body.detail).toMatch(/nest deeper than 64 levels at line \d+, column \d+/);
    }
    // 64 levels are fine (and then simply not a user).
    const fine = `${'['.repeat(64)}${']'.repeat(64)}`;
    expectProblem(await json('POST', '/api/latest/users', fine), 400, 'validation-failed');
  });

  it('a NUL character in a body field is a 400 naming the field, and nothing is stored', async () => {
    const before = (await t.services.users.findByEmail('nul@example.com')) ?? null;
    const body = expectProblem(
      await json(
        'POST',
        '/api/latest/users',
        '{"Email":"nul@example.com","Role":"Analyst","Name":"a\\u0000b"}',
      ),
      400,
      'validation-failed',
    );
    expect(body.errors).toEqual([expect.objectContaining({ path: '/Name' })]);
    expect(body.detail).toContain('\\u0000');
    expect((await t.services.users.findByEmail('nul@example.com')) ?? null).toEqual(before);
    const nested = expectProblem(
      await json(
        'POST',
        '/api/latest/assets',
        '{"Kind":"Host","IpAddresses":["10.0.0.1"],"Tags":["ok","x\\u0000"]}',
      ),
      400,
      'validation-failed',
    );
    expect(JSON.stringify(nested.errors)).toContain('/Tags/1');
    // A NUL in a property name is refused the same way.
    const key = expectProblem(await json('POST', '/api/latest/users', '{"Em\\u0000ail":"x"}'), 400);
    expect(key.type).toBe('https://rampart.dev/problems/validation-failed');
  });

  it('a NUL character in a query parameter or a path parameter is a 400 naming it', async () => {
    const query = expectProblem(
      await t.app.inject({
        method: 'GET',
        url: '/api/latest/findings?Search=a%00b',
        headers: authHeaders(t.admin),
      }),
      400,
      'validation-failed',
    );
    expect(query.errors).toEqual([expect.objectContaining({ path: '/Search' })]);
    const path = expectProblem(
      await t.app.inject({
        method: 'GET',
        url: '/api/integration/vulnerabilities/systemscan/%00/detailed',
        headers: authHeaders(t.admin),
      }),
      400,
      'validation-failed',
    );
    expect(path.errors).toEqual([expect.objectContaining({ path: '/PluginGuidId' })]);
  });

  // Intelligence loads read the body itself as the feed (no forms); a broken boundary is refused
  // there from the header alone, the rest is what the feed detector says of the bytes.
  const IMPORTS = ['/api/latest/imports', '/api/integration/imports'];
  const UPLOADS = [...IMPORTS, '/api/latest/intel/loads', '/api/integration/intel/loads'];
  it.each([
    ['no boundary', 'multipart/form-data', 'hello', UPLOADS],
    ['an empty boundary', 'multipart/form-data; boundary=', 'hello', UPLOADS],
    [
      'a boundary longer than 70 characters',
      `multipart/form-data; boundary=${'b'.repeat(300)}`,
      'hello',
      UPLOADS,
    ],
    ['a boundary the body never uses', 'multipart/form-data; boundary=abc', '--xyz\r\nfoo\r\n', IMPORTS],
    [
      'a form cut short',
      'multipart/form-data; boundary=abc',
      '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.xml"\r\n\r\n<xml',
      IMPORTS,
    ],
  ])('a multipart upload with %s is a 400 saying so', async (_what, contentType, payload, urls) => {
    for (const url of urls) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { ...authHeaders(t.admin), 'content-type': contentType },
        payload,
      });
      const body = expectProblem(res, 400, 'malformed-request');
      expect(body.detail).toMatch(/multipart/i);
    }
  });

  it('a NUL character in the file name of an uploaded form is a 400, and no import is made', async () => {
    const before = await t.services.imports.list(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      100,
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/imports',
      headers: { ...authHeaders(t.admin), 'content-type': 'multipart/form-data; boundary=abc' },
      payload:
        '--abc\r\nContent-Disposition: form-data; name="file"; filename="scan\u0000.csv"\r\n\r\n' +
        'Plugin ID,Host,Risk\r\n\r\n--abc--\r\n',
    });
    expect(expectProblem(res, 400, 'validation-failed').detail).toContain('\\u0000');
    const after = await t.services.imports.list(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      100,
    );
    expect(after.items.length).toBe(before.items.length);
  });

  it('an invalid percent-encoding in a path is a 400 problem', async () => {
    for (const url of ['/api/latest/assets/%E0%A4%A', '/api/latest/%zz', '/api/integration/intel/cves/%']) {
      const res = await t.app.inject({ method: 'GET', url, headers: authHeaders(t.admin) });
      const body = expectProblem(res, 400, 'malformed-request');
      expect(body.detail).toContain('percent-encoding');
      expect(res.headers['x-request-id']).toBeDefined();
    }
  });

  it('an over-long path parameter is a 414 problem', async () => {
    for (const url of [
      `/api/latest/assets/${'a'.repeat(200)}`,
      `/api/integration/intel/cves/${'9'.repeat(5000)}`,
    ]) {
      const body = expectProblem(
        await t.app.inject({ method: 'GET', url, headers: authHeaders(t.admin) }),
        414,
        'uri-too-long',
      );
      expect(body.detail).toMatch(/longer than 100 characters/);
    }
  });

  // Every operation of both documents, with the values a fuzzer sends.
  it('every route answers hostile paths, queries and bodies without a 5xx', async () => {
    const docs = await Promise.all(
      CHANNELS.map(async (channel) => {
        const res = await t.app.inject({ method: 'GET', url: `/apidoc/${channel}/documentation.json` });
        return res.json() as {
          paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
        };
      }),
    );
    const queryOf = (url: string, method: string) => {
      const path = url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = docs.map((d) => d.paths[path]?.[method.toLowerCase()]).find(Boolean);
      return (op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    };
    const routes = t.routes.filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(100);
    let requests = 0;
    for (const route of routes) {
      const bySession =
        route.access && 'role' in route.access && !(route.access.via ?? ['apiKey']).includes('apiKey');
      const headers = bySession ? browser.headers : authHeaders(t.admin);
      const send = async (
        url: string,
        extra: { headers?: Record<string, string>; payload?: string } = {},
      ) => {
        requests += 1;
        const res = await t.app.inject({
          method: route.method as 'GET',
          url,
          headers: { ...headers, ...extra.headers },
          ...(extra.payload === undefined ? {} : { payload: extra.payload }),
        });
        expectHandled(res, `${route.method} ${url} ${extra.headers?.['content-type'] ?? ''}`);
        return res;
      };
      const sample = route.url.replace(/:([A-Za-z]+)/g, '0190f3c2-0000-7000-8000-000000000001');
      // %00 in each path parameter, alone and around text.
      for (const param of route.url.match(/:[A-Za-z]+/g) ?? []) {
        for (const value of ['%00', 'a%00b']) {
          await send(
            route.url.replace(param, value).replace(/:([A-Za-z]+)/g, '0190f3c2-0000-7000-8000-000000000001'),
          );
        }
      }
      for (const name of queryOf(route.url, route.method)) await send(`${sample}?${name}=x%00y`);
      if (route.method === 'GET' || route.method === 'DELETE') continue;
      const withBody = (contentType: string, payload: string) =>
        send(sample, { headers: { 'content-type': contentType }, payload });
      await withBody('application/json', deepInvalid);
      await withBody(
        'application/json',
        '{"Name":"a\\u0000b","Email":"\\u0000","Title":"\\u0000","Body":"\\u0000"}',
      );
      await withBody('multipart/form-data', 'x');
      await withBody('multipart/form-data; boundary=zz', '--yy\r\n');
    }
    expect(requests).toBeGreaterThan(300);
  }, 600_000);
});

/** What a real client meets on a listening server: answers Node's HTTP parser gives before Fastify. */
describe('errors from the HTTP parser are problems too', () => {
  let tdb: TestDatabase;
  let t: TestApp;
  let port = 0;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    t = await buildTestApp(tdb.database, { background: true });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  /** Sends raw bytes and reads the whole answer until the server closes the connection. */
  function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      // The server closes right after answering; a reset then may not lose what was read.
      socket.on('error', (error) => {
        if (chunks.length === 0) reject(error);
      });
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head = '', body = ''] = text.split('\r\n\r\n', 2);
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
      });
      socket.end(request);
    });
  }

  it('oversized headers are a 431 problem', async () => {
    const res = await raw(
      `GET /api/latest/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      type: 'https://rampart.dev/problems/headers-too-large',
      status: 431,
      instance: '/api/latest/status',
    });
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  });

  it('a request the HTTP parser cannot read is a 400 problem', async () => {
    for (const request of [
      'GARBAGE\r\n\r\n',
      'GET /api/latest/status HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n',
      'GET /api/latest/status HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
    ]) {
      const res = await raw(request);
      expect(res.status, request).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = JSON.parse(res.body) as Record<string, unknown>;
      expect(body.type).toBe('https://rampart.dev/problems/malformed-request');
      expect(body.status).toBe(400);
    }
  });

  it('still serves well-formed requests on the same server', async () => {
    const res = await raw('GET /api/latest/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
  });
});
