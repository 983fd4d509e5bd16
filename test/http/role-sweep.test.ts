import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../src/app.js';
import { ROLES, type Role } from '../../src/db/schema.js';
import type { AuthMethod } from '../../src/http/access.js';
import type { ServiceContext } from '../../src/modules/context.js';
import {
  authHeaders,
  type Browser,
  buildTestApp,
  type Credentials,
  signInAs,
  type TestApp,
} from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import {
  callFor,
  type Estate,
  expectProblem,
  fingerprint,
  populate,
  requestFingerprint,
  requestFor,
  routeKey,
  type SweepCall,
  sweepCalls,
} from '../helpers/sweep.js';

/**
 * Every route that needs more than ReadOnly, called by each lower role — with an API key and with
 * a signed-in browser carrying its CSRF token, in both channels, with a body the route would
 * accept — answers 403 and changes nothing; the same calls succeed for the role the route names.
 * Then the escalations a user would try by hand.
 */

const PASSWORD = 'a sweep of every route';

interface Person {
  role: Role;
  key: Credentials;
  browser: Browser;
}

const required = (r: RegisteredRoute): Role | undefined =>
  r.access && 'role' in r.access ? r.access.role : undefined;

describe.each(DB_KINDS)('no role does more than its role allows [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let estate: Estate;
  let calls: Record<string, () => SweepCall>;
  const people = {} as Record<Role, Person>;
  let ctx: ServiceContext;

  const person = async (role: Role, n: number): Promise<Person> => {
    const email = `sweep-${role.toLowerCase()}@example.com`;
    const user = await t.services.users.create(ctx, { email, role, password: PASSWORD });
    const { key, secretKey } = await t.services.apiKeys.create(ctx, { userId: user.id, name: role });
    const browser = await signInAs(t.app, email, PASSWORD, `127.0.8.${n}`);
    return { role, key: { accessKey: key.accessKey, secretKey, userId: user.id, apiKeyId: key.id }, browser };
  };

  const headersOf = (p: Person, via: AuthMethod) =>
    via === 'apiKey' ? authHeaders(p.key) : p.browser.headers;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    // Notification endpoints of the estates point at a closed loopback port.
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_NOTIFY_ALLOW_LOOPBACK: 'true' },
    });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    for (const [i, role] of ROLES.entries()) people[role] = await person(role, i + 1);
    estate = await populate(t, people.Admin.key);
    calls = sweepCalls(estate);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('answers 403 to every lower role on every route above it, by key and by session, and changes nothing', async () => {
    const before = await fingerprint(tdb.database);
    const unswept: string[] = [];
    const swept = new Set<string>();
    let requests = 0;
    for (const r of t.routes) {
      const needed = required(r);
      if (!r.channel || !needed || needed === 'ReadOnly') continue;
      for (const role of ROLES.slice(0, ROLES.indexOf(needed))) {
        for (const via of r.access && 'role' in r.access && r.access.via
          ? r.access.via
          : (['apiKey', 'session'] as const)) {
          const call = callFor(calls, r);
          if (!call) {
            unswept.push(routeKey(r));
            continue;
          }
          const res = await t.app.inject(requestFor(r, call, headersOf(people[role], via)));
          const what = `${role} by ${via}: ${r.method} ${r.url}`;
          expectProblem(res, 403, 'forbidden', what);
          if (r.method !== 'HEAD') expect(res.json().detail, what).toContain(`requires the ${needed} role`);
          swept.add(`${r.channel} ${routeKey(r)}`);
          requests += 1;
        }
      }
    }
    expect([...new Set(unswept)], 'routes above ReadOnly without a call in sweepCalls').toEqual([]);
    // 58 routes (HEAD included) and 204 requests when this was written: a floor against a sweep
    // that quietly stops sweeping.
    expect(swept.size).toBeGreaterThanOrEqual(55);
    expect(requests).toBeGreaterThanOrEqual(200);
    expect(await fingerprint(tdb.database)).toEqual(before);
  });

  it('lets the role each route names make the same calls (the sweep’s calls are valid)', async () => {
    const done = new Set<string>();
    for (const r of t.routes) {
      const needed = required(r);
      if (!r.channel || !needed || needed === 'ReadOnly' || done.has(routeKey(r))) continue;
      done.add(routeKey(r));
      const call = callFor(calls, r)!;
      const res = await t.app.inject(requestFor(r, call, authHeaders(people[needed].key)));
      expect(res.statusCode, `${needed}: ${r.method} ${r.url}: ${res.body}`).toBeLessThan(300);
    }
    expect(done.size).toBeGreaterThanOrEqual(29);
  });

  it('gives a person the role of the organisation their session is in, not their highest', async () => {
    // Admin of Bravo, ReadOnly here: signed in to Bravo first, then switched here.
    const bravo = await t.services.organizations.create('Bravo');
    const email = 'sweep-two-organisations@example.com';
    const system = { type: 'system', id: null } as const;
    await t.services.users.create(
      { organizationId: bravo.id, actor: system },
      { email, role: 'Admin', password: PASSWORD },
    );
    await t.services.users.create(ctx, { email, role: 'ReadOnly' });
    const inBravo = await signInAs(t.app, email, PASSWORD, '127.0.8.20');
    const switched = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session/organization',
      headers: { ...inBravo.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ OrganizationId: t.org.id }),
    });
    expect(switched.statusCode, switched.body).toBe(200);
    const cookie = String(switched.headers['set-cookie']).split(';')[0]!;
    const here = { cookie, 'x-csrf-token': switched.json().CsrfToken as string };
    // The background work still delivers the estate's events: compared without its tables.
    const before = await requestFingerprint(tdb.database);
    let requests = 0;
    for (const r of t.routes) {
      const needed = required(r);
      if (!r.channel || !needed || needed === 'ReadOnly') continue;
      if (r.access && 'role' in r.access && r.access.via && !r.access.via.includes('session')) continue;
      const call = callFor(calls, r);
      if (!call) continue;
      const res = await t.app.inject(requestFor(r, call, here));
      expectProblem(res, 403, 'forbidden', `ReadOnly here, Admin in Bravo: ${r.method} ${r.url}`);
      requests += 1;
    }
    expect(requests).toBeGreaterThanOrEqual(100);
    expect(await requestFingerprint(tdb.database)).toEqual(before);
  });

  it('lets no organisation role reach the installation’s routes, and an installation Admin whatever their role', async () => {
    const installationRoutes = t.routes.filter(
      (r) => r.channel && r.access && 'role' in r.access && r.access.installation && r.method !== 'HEAD',
    );
    expect(installationRoutes.map(routeKey).sort()).toEqual([
      'GET /installation/organizations',
      'PATCH /installation/organizations/:Id',
      'POST /installation/organizations',
    ]);
    const target = await t.services.organizations.create('Sweep target');
    const bodyOf = (r: RegisteredRoute) =>
      r.method === 'POST'
        ? { Name: `Made by ${r.method}` }
        : r.method === 'PATCH'
          ? { Name: 'Renamed' }
          : undefined;
    const urlOf = (r: RegisteredRoute) => r.url.replace(':Id', target.id);
    const send = (r: RegisteredRoute, headers: Record<string, string>) =>
      t.app.inject({
        method: r.method as 'GET',
        url: urlOf(r),
        headers: { ...headers, ...(bodyOf(r) ? { 'content-type': 'application/json' } : {}) },
        ...(bodyOf(r) ? { payload: JSON.stringify(bodyOf(r)) } : {}),
      });
    const before = await requestFingerprint(tdb.database);
    for (const r of installationRoutes)
      for (const role of ROLES) {
        const what = `${role}: ${r.method} ${r.url}`;
        const bySession = await send(r, people[role].browser.headers);
        expectProblem(bySession, 403, 'forbidden', `${what} by session`);
        expect(bySession.json().detail).toContain('installation Admin');
        expectProblem(await send(r, authHeaders(people[role].key)), 401, 'unauthenticated', `${what} by key`);
      }
    expect(await requestFingerprint(tdb.database)).toEqual(before);

    // A ReadOnly user of this organisation who is an installation Admin reaches them all.
    await t.services.users.setInstallationAdmin('sweep-readonly@example.com', true);
    for (const r of installationRoutes) {
      const res = await send(r, people.ReadOnly.browser.headers);
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBeLessThan(300);
    }
    expect((await t.services.organizations.get(target.id)).name).toBe('Renamed');
    await t.services.users.setInstallationAdmin('sweep-readonly@example.com', false).catch(() => undefined);
  });

  describe('escalations tried by hand', () => {
    const send = (headers: Record<string, string>, method: 'POST' | 'PATCH', url: string, body: unknown) =>
      t.app.inject({
        method,
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const roleOf = async (userId: string) => (await t.services.users.get(ctx, userId)).role;

    it('an Analyst cannot make themselves Admin, by key or by session, in either channel', async () => {
      const analyst = people.Analyst;
      for (const headers of [authHeaders(analyst.key), analyst.browser.headers]) {
        for (const channel of ['latest', 'integration']) {
          const res = await send(headers, 'PATCH', `/api/${channel}/users/${analyst.key.userId}`, {
            Role: 'Admin',
          });
          // The integration channel has no such route: 404 there is as good as 403.
          expect([403, 404], res.body).toContain(res.statusCode);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        }
      }
      expect(await roleOf(analyst.key.userId)).toBe('Analyst');
      const details = await t.app.inject({
        method: 'GET',
        url: '/api/latest/account/details',
        headers: authHeaders(analyst.key),
      });
      expect(details.body).not.toContain('"Admin"');
    });

    it('a Manager can neither create an Admin nor take over an Admin’s account', async () => {
      const manager = people.Manager;
      const before = (await t.services.users.listAll(ctx)).length;
      for (const headers of [authHeaders(manager.key), manager.browser.headers]) {
        const created = await send(headers, 'POST', '/api/latest/users', {
          Email: 'manager-made-admin@example.com',
          Role: 'Admin',
          Password: 'chosen by the manager',
        });
        expectProblem(created, 403, 'forbidden', 'Manager creating an Admin');
        const reset = await send(
          headers,
          'POST',
          `/api/latest/users/${people.Admin.key.userId}/password`,
          {},
        );
        expectProblem(reset, 403, 'forbidden', 'Manager resetting an Admin’s password');
        const demoted = await send(headers, 'PATCH', `/api/latest/users/${people.Admin.key.userId}`, {
          Active: false,
        });
        expectProblem(demoted, 403, 'forbidden', 'Manager deactivating an Admin');
      }
      expect(await t.services.users.findByEmail('manager-made-admin@example.com')).toBeFalsy();
      expect((await t.services.users.listAll(ctx)).length).toBe(before);
      // The Admin still signs in with their own password.
      await signInAs(t.app, 'sweep-admin@example.com', PASSWORD, '127.0.8.20');
    });

    it('nobody creates an API key for another user, not even an Admin', async () => {
      const victim = people.ReadOnly.key.userId;
      const keysBefore = (await t.services.apiKeys.listForUser(ctx, victim)).map((k) => k.id);
      for (const p of [people.Analyst, people.Admin]) {
        for (const body of [
          { Name: 'for someone else', UserId: victim },
          { Name: 'for someone else', User: victim },
        ]) {
          const res = await send(p.browser.headers, 'POST', '/api/latest/apikeys', body);
          expectProblem(res, 400, 'validation-failed', `${p.role} naming another user`);
        }
        // By API key the route is closed altogether: keys make no keys.
        const viaKey = await send(authHeaders(p.key), 'POST', '/api/latest/apikeys', { Name: 'key-made' });
        expectProblem(viaKey, 401, 'unauthenticated', `${p.role} by API key`);
      }
      expect((await t.services.apiKeys.listForUser(ctx, victim)).map((k) => k.id)).toEqual(keysBefore);
      // What a browser creates is its own user's key.
      const own = await send(people.Analyst.browser.headers, 'POST', '/api/latest/apikeys', { Name: 'mine' });
      expect(own.statusCode).toBe(201);
      const mine = await t.services.apiKeys.listForUser(ctx, people.Analyst.key.userId);
      expect(mine.map((k) => k.id)).toContain(own.json().Id);
    });

    it('an Admin cannot change, reset or promote a user of another organisation', async () => {
      const other = await t.services.organizations.create('Elsewhere');
      const otherCtx: ServiceContext = { organizationId: other.id, actor: { type: 'system', id: null } };
      const stranger = await t.services.users.create(otherCtx, {
        email: 'stranger@elsewhere.example',
        role: 'ReadOnly',
        password: PASSWORD,
      });
      const admin = people.Admin;
      for (const headers of [authHeaders(admin.key), admin.browser.headers]) {
        for (const body of [{ Role: 'Admin' }, { Active: false }, { Name: 'renamed' }]) {
          const res = await send(headers, 'PATCH', `/api/latest/users/${stranger.id}`, body);
          expectProblem(res, 404, 'not-found', `PATCH of a stranger with ${JSON.stringify(body)}`);
        }
        const reset = await send(headers, 'POST', `/api/latest/users/${stranger.id}/password`, {});
        expectProblem(reset, 404, 'not-found', 'password reset of a stranger');
      }
      const after = await t.services.users.get(otherCtx, stranger.id);
      expect(after).toMatchObject({ role: 'ReadOnly', active: true, organizationId: other.id });
      await signInAs(t.app, 'stranger@elsewhere.example', PASSWORD, '127.0.8.21');
      // And the other organisation's Admin cannot reach into this one either.
      const otherAdmin = await t.userWithKey('Admin', other);
      const reach = await send(
        authHeaders(otherAdmin),
        'PATCH',
        `/api/latest/users/${people.Analyst.key.userId}`,
        {
          Role: 'Admin',
        },
      );
      expectProblem(reach, 404, 'not-found', 'PATCH across organisations');
      expect(await roleOf(people.Analyst.key.userId)).toBe('Analyst');
    });

    it('refuses a role that does not exist, however it is spelt', async () => {
      for (const Role of ['SuperAdmin', 'admin', 'ADMIN', 'Owner', '', 3]) {
        const res = await send(authHeaders(people.Admin.key), 'POST', '/api/latest/users', {
          Email: `odd-role-${String(Role)}@example.com`,
          Role,
        });
        expectProblem(res, 400, 'validation-failed', `Role ${JSON.stringify(Role)}`);
      }
    });
  });
});
