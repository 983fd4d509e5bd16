import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_FAILED } from '../../../src/modules/sessions/service.js';
import { authHeaders, buildTestApp, type TestApp, TestClock } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const PASSWORD = 'correct horse battery staple';

describe.each(DB_KINDS)('web sessions [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const clock = new TestClock();
  let n = 0;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      clock,
      env: {
        RAMPART_LOGIN_THROTTLE_LIMIT: '3',
        RAMPART_LOGIN_THROTTLE_ACCOUNT_LIMIT: '4',
        RAMPART_LOGIN_THROTTLE_ADDRESS_LIMIT: '6',
        RAMPART_LOGIN_THROTTLE_WINDOW: '300',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  /** A fresh user (own throttle budget) and a fresh source address for each test. */
  async function person(role: 'Admin' | 'Analyst' = 'Admin', password: string | null = PASSWORD) {
    n += 1;
    const email = `person${n}@example.com`;
    await t.services.users.create(
      { organizationId: t.org.id, actor: { type: 'system', id: null } },
      { email, role, password: password ?? undefined },
    );
    return { email, ip: `127.0.1.${n}` };
  }

  const signIn = (email: string, password: string, ip: string, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/latest/session',
      remoteAddress: ip,
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      payload: JSON.stringify({ Email: email, Password: password }),
    });

  const cookieOf = (res: { headers: Record<string, unknown> }) =>
    String(res.headers['set-cookie']).split(';')[0]!;
  const whoAmI = (cookie: string) =>
    t.app.inject({ method: 'GET', url: '/api/latest/session', headers: { cookie } });

  it('signs in with email and password, setting a safe cookie and returning the CSRF token', async () => {
    const p = await person();
    const res = await signIn(p.email.toUpperCase(), PASSWORD, p.ip);
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^rampart_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure');
    // The browser counts the lifetime from its own clock: an Expires date from the server's
    // (application) clock would end the session at once wherever the two clocks disagree.
    expect(setCookie).toContain(`Max-Age=${t.config.sessionMaxHours * 3600}`);
    expect(setCookie).not.toContain('Expires=');
    const body = res.json();
    expect(body.User.Email).toBe(p.email);
    expect(body.Organization.Id).toBe(t.org.id);
    expect(body.CsrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const me = await whoAmI(cookieOf(res));
    expect(me.statusCode).toBe(200);
    expect(me.json().CsrfToken).toBe(body.CsrfToken);
    const details = await t.app.inject({
      method: 'GET',
      url: '/api/latest/account/details',
      headers: { cookie: cookieOf(res) },
    });
    expect(details.json()).toMatchObject({ AuthenticatedWith: 'Session', AccessKey: null });
  });

  it('gives the same 401 for a wrong password, an unknown email and a user without a password', async () => {
    const p = await person();
    const noPassword = await person('Analyst', null);
    for (const res of [
      await signIn(p.email, 'wrong password!!', p.ip),
      await signIn('nobody@example.com', PASSWORD, p.ip),
      await signIn(noPassword.email, PASSWORD, noPassword.ip),
    ]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toBe(SIGN_IN_FAILED);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses bad input with a problem naming the field', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":"a@example.com","Password":"x"}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ path: '/email', suggestion: 'Email' });
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session',
      headers: { 'content-type': 'application/json' },
      payload: '{"Email":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().type).toContain('malformed-json');
  });

  it('requires the CSRF token for state-changing requests made with the cookie', async () => {
    const p = await person('Admin');
    const res = await signIn(p.email, PASSWORD, p.ip);
    const cookie = cookieOf(res);
    const create = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/latest/users',
        headers: { 'content-type': 'application/json', cookie, ...headers },
        payload: JSON.stringify({
          Email: `via-session-${n}-${Object.keys(headers).length}@example.com`,
          Role: 'ReadOnly',
        }),
      });
    const without = await create({});
    expect(without.statusCode).toBe(403);
    expect(without.json().type).toBe('https://rampart.dev/problems/csrf-token-invalid');
    expect((await create({ 'x-csrf-token': 'forged' })).statusCode).toBe(403);
    expect((await create({ 'x-csrf-token': res.json().CsrfToken })).statusCode).toBe(201);
  });

  it('sign-out makes the old cookie useless on every later request', async () => {
    const p = await person();
    const res = await signIn(p.email, PASSWORD, p.ip);
    const cookie = cookieOf(res);
    const out = await t.app.inject({
      method: 'DELETE',
      url: '/api/latest/session',
      headers: { cookie, 'x-csrf-token': res.json().CsrfToken },
    });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/rampart_session=;/);
    expect((await whoAmI(cookie)).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/latest/users', headers: { cookie } })).statusCode,
    ).toBe(401);
  });

  it('rotates the session at sign-in: the cookie held before stops working', async () => {
    const p = await person();
    const first = cookieOf(await signIn(p.email, PASSWORD, p.ip));
    const second = cookieOf(await signIn(p.email, PASSWORD, p.ip, first));
    expect(second).not.toBe(first);
    expect((await whoAmI(first)).statusCode).toBe(401);
    expect((await whoAmI(second)).statusCode).toBe(200);
  });

  it('ends a session after the idle time, and after the absolute lifetime however active', async () => {
    const p = await person();
    const start = clock.now;
    try {
      const idle = cookieOf(await signIn(p.email, PASSWORD, p.ip));
      clock.now = new Date(start.getTime() + 29 * 60_000);
      expect((await whoAmI(idle)).statusCode).toBe(200);
      clock.now = new Date(clock.now.getTime() + 31 * 60_000);
      expect((await whoAmI(idle)).statusCode).toBe(401);

      const busy = cookieOf(await signIn(p.email, PASSWORD, p.ip));
      const signedInAt = clock.now.getTime();
      for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
        clock.now = new Date(signedInAt + minutes * 60_000);
        expect((await whoAmI(busy)).statusCode).toBe(200);
      }
      clock.now = new Date(signedInAt + 12 * 3_600_000);
      expect((await whoAmI(busy)).statusCode).toBe(401);
    } finally {
      clock.now = start;
    }
  });

  it('keeps session-only routes away from API keys', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/latest/session',
      headers: authHeaders(t.admin),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toContain('web session');
  });

  it('ten failed sign-ins for an account that does not exist leave the real Admin at that address alone', async () => {
    // The defaults: 10 per account and address, 30 per account, 100 per address.
    const app2 = await buildTestApp(tdb.database, { clock });
    try {
      const admin = await person();
      const ip = '127.0.4.1';
      const attempt = (email: string, password: string) =>
        app2.app.inject({
          method: 'POST',
          url: '/api/latest/session',
          remoteAddress: ip,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ Email: email, Password: password }),
        });
      for (let i = 0; i < 10; i++)
        expect((await attempt('nobody@example.com', 'wrong password!!')).statusCode).toBe(401);
      // The real Admin behind the same address signs in…
      expect((await attempt(admin.email, PASSWORD)).statusCode).toBe(200);
      // …while the guessed name is spent at that address.
      const eleventh = await attempt('NOBODY@example.com', 'wrong password!!');
      expect(eleventh.statusCode).toBe(429);
      expect(eleventh.json().detail).toContain('for this account from this address');
    } finally {
      await app2.close();
    }
  });

  it('throttles sign-in attempts per account at one address', async () => {
    const p = await person();
    const ip = '127.0.2.1';
    for (let i = 0; i < 3; i++) expect((await signIn(p.email, 'wrong password!!', ip)).statusCode).toBe(401);
    const res = await signIn(p.email, PASSWORD, ip);
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.json()).toMatchObject({
      type: 'https://rampart.dev/problems/rate-limited',
      detail: expect.stringMatching(
        /^Too many sign-in attempts for this account from this address: the limit is 3 per 300 seconds\./,
      ),
    });
    // The same person from elsewhere is still welcome.
    expect((await signIn(p.email, PASSWORD, '127.0.2.2')).statusCode).toBe(200);
  });

  it('throttles sign-in attempts per account, whatever the address', async () => {
    const p = await person();
    for (let i = 0; i < 4; i++)
      expect((await signIn(p.email, 'wrong password!!', `127.0.3.${i}`)).statusCode).toBe(401);
    const res = await signIn(p.email.toUpperCase(), PASSWORD, '127.0.3.9');
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json().detail).toMatch(/^Too many sign-in attempts for this account: the limit is 4 per 300/);
    // Another account from the same address is not affected.
    const q = await person();
    expect((await signIn(q.email, PASSWORD, '127.0.3.9')).statusCode).toBe(200);
  });

  it('throttles sign-in attempts per address, whatever the accounts, with a larger budget', async () => {
    const ip = '127.0.5.1';
    for (let i = 0; i < 6; i++)
      expect((await signIn(`guess${i}@example.com`, 'wrong password!!', ip)).statusCode).toBe(401);
    const p = await person();
    const res = await signIn(p.email, PASSWORD, ip);
    expect(res.statusCode).toBe(429);
    expect(res.json().detail).toMatch(/^Too many sign-in attempts from this address: the limit is 6 per 300/);
    // The same person from elsewhere is still welcome.
    expect((await signIn(p.email, PASSWORD, '127.0.5.2')).statusCode).toBe(200);
  });

  it('does not count refused attempts for a spent name against the address', async () => {
    const ip = '127.0.6.1';
    for (let i = 0; i < 20; i++) await signIn('ghost@example.com', 'wrong password!!', ip);
    expect((await signIn('ghost@example.com', 'wrong password!!', ip)).statusCode).toBe(429);
    // Three counted against the address (of six), the rest refused before: the Admin still gets in.
    const admin = await person();
    expect((await signIn(admin.email, PASSWORD, ip)).statusCode).toBe(200);
  });

  it('marks the cookie Secure when served over https', async () => {
    const app2 = await buildTestApp(tdb.database, {
      env: { RAMPART_BASE_URL: 'https://rampart.example.com' },
    });
    try {
      const p = await person();
      const res = await app2.app.inject({
        method: 'POST',
        url: '/api/latest/session',
        remoteAddress: p.ip,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ Email: p.email, Password: PASSWORD }),
      });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['set-cookie'])).toContain('Secure');
    } finally {
      await app2.close();
    }
  });
});
