import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/http/channels.js';
import { ProblemSchema } from '../../src/http/problems/schema.js';
import { Problems } from '../../src/problems/catalogue.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

type Operation = {
  operationId: string;
  description: string;
  security?: unknown[];
  deprecated?: boolean;
  responses: Record<
    string,
    { content?: Record<string, { schema: unknown; example?: Record<string, unknown> }> }
  >;
};
type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
};

const DEPRECATIONS = JSON.stringify([
  {
    Method: 'GET',
    Path: '/users',
    Channel: 'integration',
    MarkedOn: '2026-11-01',
    Replacement: 'GET /api/latest/users',
  },
]);

describe('OpenAPI documents', () => {
  let tdb: TestDatabase;
  let t: TestApp;
  const docs: Record<string, Doc> = {};

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
    t = await buildTestApp(tdb.database, { env: { RAMPART_DEPRECATIONS: DEPRECATIONS } });
    for (const channel of CHANNELS) {
      const res = await t.app.inject({ method: 'GET', url: `/apidoc/${channel}/documentation.json` });
      expect(res.statusCode).toBe(200);
      docs[channel] = res.json() as Doc;
    }
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it.each(CHANNELS)('%s validates against the OpenAPI 3.1 schema', async (channel) => {
    const result = await new Validator().validate(docs[channel] as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(docs[channel]?.openapi).toBe('3.1.0');
  });

  it.each(CHANNELS)('%s lists every route of its channel and no other', (channel) => {
    const expected = t.routes
      .filter((r) => r.method !== 'HEAD' && r.url.startsWith(`/api/${channel}/`))
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(docs[channel]?.paths ?? {})
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(expected.length).toBeGreaterThan(3);
    expect(documented).toEqual(expected);
  });

  it.each(CHANNELS)('%s declares the API key schemes and each operation says who may call it', (channel) => {
    const doc = docs[channel]!;
    expect(doc.components.securitySchemes).toEqual({
      ApiAccessKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'ApiAccessKey' }),
      ApiSecretKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'ApiSecretKey' }),
      SessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'rampart_session' }),
      NodeKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const route = t.routes.find(
          (r) => r.method === method.toUpperCase() && r.url.replace(/:([A-Za-z]+)/g, '{$1}') === path,
        );
        const isPublic = route?.access && 'public' in route.access;
        // The scan node protocol: the node's own key, no user and so no role.
        const isNode = route?.access && 'scanNode' in route.access;
        expect(op.description, `${method} ${path}`).toMatch(
          isPublic
            ? /Anonymous/
            : isNode
              ? /Requires a scan node key/
              : /Requires (an API key|a web session)( or a web session)? of a user with role/,
        );
        const via =
          route?.access && 'role' in route.access ? (route.access.via ?? ['apiKey', 'session']) : [];
        expect(op.security).toEqual([
          ...(via.includes('apiKey') ? [{ ApiAccessKey: [], ApiSecretKey: [] }] : []),
          ...(via.includes('session') ? [{ SessionCookie: [] }] : []),
          ...(isNode ? [{ NodeKey: [] }] : []),
        ]);
        if (isNode) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429']));
        else if (!isPublic)
          expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) >= 400)
            expect(Object.keys(response.content ?? {})).toEqual(['application/problem+json']);
        }
      }
    }
  });

  it('marks deprecated operations, in their channel only', () => {
    expect(docs.integration?.paths['/api/integration/users']?.get?.deprecated).toBe(true);
    expect(docs.latest?.paths['/api/latest/users']?.get?.deprecated).toBeUndefined();
    expect(docs.integration?.paths['/api/integration/status']?.get?.deprecated).toBeUndefined();
  });

  it.each(CHANNELS)(
    '%s names a relative server, so that "Try it out" calls the origin the page came from',
    (channel) => {
      // The default base URL is http://localhost:<port>: naming it sends every call of a page
      // opened under any other name to another origin, which the browser refuses.
      expect(docs[channel]?.servers.map((s) => s.url)).toEqual(['/']);
      expect(JSON.stringify(docs[channel]?.servers)).not.toContain('localhost');
    },
  );

  it('keeps the path prefix of RAMPART_BASE_URL in the server, and only the path', async () => {
    const behindProxy = await buildTestApp(tdb.database, {
      env: { RAMPART_BASE_URL: 'https://vm.example.org/tools/rampart/' },
    });
    try {
      for (const channel of CHANNELS) {
        for (const url of [`/apidoc/${channel}/documentation.json`, `/apidoc/${channel}/json`]) {
          const doc = (await behindProxy.app.inject({ method: 'GET', url })).json() as Doc;
          expect(doc.servers.map((s) => s.url)).toEqual(['/tools/rampart']);
        }
      }
    } finally {
      await behindProxy.close();
    }
  });

  it.each(CHANNELS)(
    '%s shows each error response its own example, a valid problem of that status',
    (channel) => {
      const statuses = new Set<string>();
      for (const [path, ops] of Object.entries(docs[channel]?.paths ?? {})) {
        for (const [method, op] of Object.entries(ops)) {
          for (const [status, response] of Object.entries(op.responses)) {
            if (Number(status) < 400) continue;
            statuses.add(status);
            const example = response.content?.['application/problem+json']?.example;
            const where = `${method.toUpperCase()} ${path} ${status}`;
            expect(example?.status, where).toBe(Number(status));
            expect(Value.Check(ProblemSchema, example), where).toBe(true);
            const problem = Object.values(Problems).find(
              (p) => example?.type === `https://rampart.dev/problems/${p.slug}`,
            );
            expect(problem?.status, where).toBe(Number(status));
            expect(example?.title, where).toBe(problem?.title);
          }
        }
      }
      expect([...statuses]).toEqual(expect.arrayContaining(['400', '401', '403', '404', '429', '500']));
    },
  );

  it.each(CHANNELS)('%s says that header values are case-sensitive, not header names', async (channel) => {
    const res = await t.app.inject({ method: 'GET', url: `/apidoc/${channel}/documentation.json` });
    const description = (res.json() as { info: { description: string } }).info.description;
    expect(description).toContain('the values are case-sensitive');
    expect(description).not.toMatch(/names and values are case-sensitive/);
  });

  it('is titled and branded Rampart, not Swagger', async () => {
    for (const channel of CHANNELS) {
      const page = await t.app.inject({ method: 'GET', url: `/apidoc/${channel}/` });
      expect(page.body).toContain(`<title>Rampart API — ${channel}</title>`);
      const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(page.body)?.[1];
      expect(icon).toBeDefined();
      const served = await t.app.inject({
        method: 'GET',
        url: new URL(icon!, `http://x/apidoc/${channel}/`).pathname,
      });
      expect(served.statusCode).toBe(200);
      const favicon = fs.readFileSync(
        path.resolve(import.meta.dirname, '../../web/public/favicon.svg'),
        'utf8',
      );
      expect(served.body).toBe(favicon);
    }
    const init = await t.app.inject({
      method: 'GET',
      url: '/apidoc/integration/static/swagger-initializer.js',
    });
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body)?.[1];
    expect(logo).toBeDefined();
    const svg = Buffer.from(logo!, 'base64').toString('utf8');
    expect(svg).toContain('Rampart');
    expect(svg).not.toMatch(/swagger/i);
  });

  it('sends a content security policy the page can live with', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/apidoc/latest/' });
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/img-src [^;]*data:/);
    expect(csp).toContain("frame-ancestors 'none'");
    // Served over plain http (a lab, localhost), upgrading every request to https breaks the page.
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(csp).not.toContain('https:');
    expect(csp).not.toContain('validator.swagger.io');
  });

  it('serves a browsable page from local files', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/apidoc/integration/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
    const scripts = [...page.body.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src).not.toMatch(/^https?:/);
      const asset = await t.app.inject({
        method: 'GET',
        url: new URL(src, 'http://x/apidoc/integration/').pathname,
      });
      expect(asset.statusCode, src).toBe(200);
    }
  });
});
