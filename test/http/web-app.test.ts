import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROUTES } from '../../src/http/web-app.js';
import { type ComposedApp, composeTestApp, testConfig } from '../helpers/app.js';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

describe('serving the web application', () => {
  let tdb: TestDatabase;
  let rampart: ComposedApp;
  const webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-web-'));

  beforeAll(async () => {
    fs.mkdirSync(path.join(webDir, 'assets'));
    fs.writeFileSync(
      path.join(webDir, 'index.html'),
      '<!doctype html><title>Rampart</title><div id="root"></div>',
    );
    fs.writeFileSync(path.join(webDir, 'assets', 'index-abc123.js'), 'console.log(1)');
    tdb = await newTestDatabase('embedded');
    rampart = await composeTestApp(tdb.database, { config: testConfig(), webDir });
  });
  afterAll(async () => {
    await rampart?.app.close();
    await tdb?.drop();
    fs.rmSync(webDir, { recursive: true, force: true });
  });

  it.each(['/', '/sign-in', '/profile', '/users/01900000-0000-7000-8000-000000000000?x=1'])(
    'answers the client-side route %s with index.html',
    async (url) => {
      const res = await rampart.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['cache-control']).toBe('no-cache');
    },
  );

  it('serves built assets with a long cache', async () => {
    const res = await rampart.app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it.each(['/api/latest/nothing', '/api', '/apidoc/nothing', '/API/Latest/nothing'])(
    'never answers %s with the app',
    async (url) => {
      const res = await rampart.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
    },
  );

  it.each(['/metrics', '/healthz', '/wp-login.php', '/.env', '/sign-in-now', '/findingsx', '/favicon.ico'])(
    'answers %s, which is no page of the app, with 404 instead of the app',
    async (url) => {
      const res = await rampart.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 404, instance: url });
      const head = await rampart.app.inject({ method: 'HEAD', url });
      expect(head.statusCode).toBe(404);
      // A browser following a stale link sees the app's own "Page not found", still with a 404.
      const browser = await rampart.app.inject({
        method: 'GET',
        url,
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      expect(browser.statusCode).toBe(404);
      expect(browser.body).toContain('<div id="root">');
    },
  );

  it('never answers the API with the app, even to a browser', async () => {
    const res = await rampart.app.inject({
      method: 'GET',
      url: '/api/latest/nothing',
      headers: { accept: 'text/html' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });

  it.each(['/findings/01900000-0000-7000-8000-000000000000', '/Scan-Groups/x', '/top-risks/', '/feeds'])(
    'answers %s, a page of the app or under one, with index.html',
    async (url) => {
      const res = await rampart.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<div id="root">');
    },
  );

  it("knows exactly the web app's routes (web/src/routes.tsx)", () => {
    const source = fs.readFileSync(path.resolve('web/src/routes.tsx'), 'utf8');
    const declared = [...source.matchAll(/path: '([^']+)'/g)].map((m) => m[1]!);
    const firstSegments = new Set(
      declared.filter((p) => p !== '*').map((p) => p.replace(/^\//, '').split('/')[0]!),
    );
    expect(declared.length).toBeGreaterThan(10);
    expect([...APP_ROUTES].sort()).toEqual([...firstSegments].sort());
  });

  it('answers other methods on app paths with a problem', async () => {
    const res = await rampart.app.inject({ method: 'POST', url: '/profile' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });
});
