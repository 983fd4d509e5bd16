import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/http/channels.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

type Operation = {
  operationId: string;
  description: string;
  security?: unknown[];
  deprecated?: boolean;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};
type Doc = {
  openapi: string;
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
    tdb = await newTestDatabase('pglite');
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
    });
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const route = t.routes.find(
          (r) => r.method === method.toUpperCase() && r.url.replace(/:([A-Za-z]+)/g, '{$1}') === path,
        );
        const isPublic = route?.access && 'public' in route.access;
        expect(op.description, `${method} ${path}`).toMatch(
          isPublic
            ? /Anonymous/
            : /Requires (an API key|a web session)( or a web session)? of a user with role/,
        );
        const via =
          route?.access && 'role' in route.access ? (route.access.via ?? ['apiKey', 'session']) : [];
        expect(op.security).toEqual([
          ...(via.includes('apiKey') ? [{ ApiAccessKey: [], ApiSecretKey: [] }] : []),
          ...(via.includes('session') ? [{ SessionCookie: [] }] : []),
        ]);
        if (!isPublic)
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
