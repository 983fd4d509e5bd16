import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../src/app.js';
import { DEFAULT_AUTH_METHODS } from '../../src/http/access.js';
import type { ServiceContext } from '../../src/modules/context.js';
import { totpCode } from '../../src/modules/mfa/totp.js';
import { type Browser, buildTestApp, signInAs, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import {
  callFor,
  type Estate,
  expectProblem,
  fingerprint,
  isStateChanging,
  populate,
  requestFor,
  routeKey,
  type SweepCall,
  sweepCalls,
} from '../helpers/sweep.js';

/**
 * Every route that changes something and accepts a web session, called with an Admin's session
 * cookie but without its CSRF token — no header, a forged or empty one, another session's token,
 * or as a cross-site form would send it — answers 403 and changes nothing. The same calls with the
 * right token succeed, so that the refusals are the token's doing.
 */

const PASSWORD = 'forms from elsewhere';
const NEW_PASSWORD = 'forms from elsewhere, changed';

const acceptsSessions = (r: RegisteredRoute) =>
  !!r.access && 'role' in r.access && (r.access.via ?? DEFAULT_AUTH_METHODS).includes('session');

describe.each(DB_KINDS)('CSRF on every state-changing route [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let estate: Estate;
  let calls: Record<string, () => SweepCall>;
  let browser: Browser;
  let secondSession: Browser;
  let colleague: Browser;
  let ownKeyId: string;
  let elsewhereId: string;

  const targets = () => t.routes.filter((r) => r.channel && isStateChanging(r.method) && acceptsSessions(r));

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    // Notification endpoints of the estates point at a closed loopback port.
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_NOTIFY_ALLOW_LOOPBACK: 'true' },
    });
    const ctx: ServiceContext = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const admin = await t.services.users.create(ctx, {
      email: 'csrf-admin@example.com',
      role: 'Admin',
      password: PASSWORD,
    });
    await t.services.users.create(ctx, {
      email: 'csrf-analyst@example.com',
      role: 'Analyst',
      password: PASSWORD,
    });
    // An installation Admin who also belongs to another organisation: the switch and the
    // installation's routes are swept too.
    const elsewhere = await t.services.organizations.create('Elsewhere');
    await t.services.users.create(
      { organizationId: elsewhere.id, actor: { type: 'system', id: null } },
      { email: 'csrf-admin@example.com', role: 'Analyst' },
    );
    await t.services.users.setInstallationAdmin('csrf-admin@example.com', true);
    elsewhereId = elsewhere.id;
    const { key } = await t.services.apiKeys.create(ctx, { userId: admin.id, name: 'own key' });
    ownKeyId = key.id;
    browser = await signInAs(t.app, 'csrf-admin@example.com', PASSWORD, '127.0.7.1');
    secondSession = await signInAs(t.app, 'csrf-admin@example.com', PASSWORD, '127.0.7.2');
    colleague = await signInAs(t.app, 'csrf-analyst@example.com', PASSWORD, '127.0.7.3');
    estate = await populate(t, t.admin);
    // A second factor set up and waiting for its code (before the fingerprint): the confirmation,
    // registered before the start of a new set-up, then new recovery codes and turning it off
    // (after the password change above them) succeed with the right token.
    const adminCtx: ServiceContext = { ...ctx, actor: { type: 'user', id: admin.id }, userId: admin.id };
    const { secret } = await t.services.mfa.startEnrolment(adminCtx, admin.id);
    calls = {
      ...sweepCalls(estate),
      'DELETE /apikeys/:Id': () => ({ path: `/apikeys/${ownKeyId}` }),
      'POST /account/password': () => ({
        path: '/account/password',
        body: { CurrentPassword: PASSWORD, NewPassword: NEW_PASSWORD },
      }),
      'POST /account/mfa/enrolment/confirm': () => ({
        path: '/account/mfa/enrolment/confirm',
        body: { Code: totpCode(secret, t.clock.now) },
      }),
      'POST /account/mfa/recoverycodes': () => ({
        path: '/account/mfa/recoverycodes',
        body: { Password: NEW_PASSWORD },
      }),
      'POST /account/mfa/disable': () => ({ path: '/account/mfa/disable', body: { Password: NEW_PASSWORD } }),
      'POST /session/organization': () => ({
        path: '/session/organization',
        body: { OrganizationId: elsewhereId },
      }),
      'POST /installation/organizations': () => ({
        path: '/installation/organizations',
        body: { Name: 'Made in a session' },
      }),
      'PATCH /installation/organizations/:Id': () => ({
        path: `/installation/organizations/${elsewhereId}`,
        body: { Name: 'Elsewhere, renamed' },
      }),
    };
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('answers 403 without the session’s own token, on every route, and changes nothing', async () => {
    const cookie = { cookie: browser.cookie };
    const attempts: [string, Record<string, string>, string?][] = [
      ['no token', cookie],
      ['no token, sent as a cross-site form', cookie, 'application/x-www-form-urlencoded'],
      ['no token, sent as plain text', cookie, 'text/plain'],
      ['a forged token', { ...cookie, 'x-csrf-token': 'forged' }],
      ['an empty token', { ...cookie, 'x-csrf-token': '' }],
      ['the same user’s other session’s token', { ...cookie, 'x-csrf-token': secondSession.csrf }],
      ['a colleague’s token', { ...cookie, 'x-csrf-token': colleague.csrf }],
      ['the session cookie as token', { ...cookie, 'x-csrf-token': browser.cookie.split('=')[1]! }],
    ];
    const before = await fingerprint(tdb.database);
    const unswept: string[] = [];
    const swept = new Set<string>();
    let requests = 0;
    for (const r of targets()) {
      for (const [name, headers, contentType] of attempts) {
        const call = callFor(calls, r);
        if (!call) {
          unswept.push(routeKey(r));
          break;
        }
        const request = requestFor(r, call, headers);
        if (contentType) request.headers = { ...request.headers, 'content-type': contentType };
        const res = await t.app.inject(request);
        expectProblem(res, 403, 'csrf-token-invalid', `${name}: ${r.method} ${r.url}`);
        swept.add(`${r.channel} ${routeKey(r)}`);
        requests += 1;
      }
    }
    expect(unswept, 'state-changing routes without a call in sweepCalls').toEqual([]);
    // 55 routes and 440 requests when this was written: a floor against a sweep that quietly
    // stops sweeping.
    expect(swept.size).toBeGreaterThanOrEqual(50);
    expect(requests).toBeGreaterThanOrEqual(400);
    expect(await fingerprint(tdb.database)).toEqual(before);
    // Still signed in: not even DELETE /session went through.
    const session = await t.app.inject({
      method: 'GET',
      url: '/api/latest/session',
      headers: browser.headers,
    });
    expect(session.statusCode).toBe(200);
  });

  it('grants no other origin cross-origin access', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/latest/users',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-csrf-token',
      },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/latest/session',
      headers: { ...browser.headers, origin: 'https://evil.example' },
    });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('accepts the same calls with the session’s own token (the refusals were the token’s doing)', async () => {
    const done = new Set<string>();
    for (const r of targets()) {
      const key = routeKey(r);
      // Switching and signing out last: each ends the session, which is needed until then.
      if (done.has(key) || key === 'DELETE /session' || key === 'POST /session/organization') continue;
      done.add(key);
      const res = await t.app.inject(requestFor(r, callFor(calls, r)!, browser.headers));
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBeLessThan(300);
    }
    expect(done.size).toBeGreaterThanOrEqual(30);
    const switched = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session/organization',
      headers: { ...browser.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ OrganizationId: elsewhereId }),
    });
    expect(switched.statusCode, switched.body).toBe(200);
    const cookie = String(switched.headers['set-cookie']).split(';')[0]!;
    const out = await t.app.inject({
      method: 'DELETE',
      url: '/api/latest/session',
      headers: { cookie, 'x-csrf-token': switched.json().CsrfToken },
    });
    expect(out.statusCode).toBe(204);
  });
});
