import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SSO_REQUIRED } from '../../../src/modules/sessions/service.js';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  openTestProvider,
  ProviderVisitor,
  type TestProvider,
} from '../../helpers/oidc-provider.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Single sign-on's configuration (providers, "single sign-on only") through the API, with bad
 * input of every kind, the secret never given back, and the first and last steps of the flow
 * against a real OpenID provider (oidc-provider) on loopback: the redirect with state, nonce and
 * PKCE, a provider that is down, a callback this browser did not start. The whole journey in a
 * browser is test/e2e/sso.test.ts.
 */
describe.each(DB_KINDS)('single sign-on [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let idp: TestProvider;
  let admin: Credentials;
  let manager: Credentials;
  let outsider: Credentials;
  /** The provider of the flow's tests: Rampart's client at the test provider. */
  let flow: { Id: string; RedirectUri: string };
  const BASE = 'http://rampart.test:8080';

  const call = (who: Credentials | null, method: Method, url: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `/api/latest${url}`,
      headers: {
        ...(who ? authHeaders(who) : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const expectProblem = (
    res: Awaited<ReturnType<typeof call>>,
    status: number,
    slug: string,
    path?: string,
  ) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = res.json();
    expect(problem.type).toMatch(new RegExp(`/problems/${slug}$`));
    expect(problem.detail.length).toBeGreaterThan(10);
    if (path) expect(problem.errors.map((e: { path: string }) => e.path)).toContain(path);
    return problem;
  };
  let n = 0;
  const provider = (extra: Record<string, unknown> = {}) => {
    n += 1;
    return {
      Name: `Provider ${n}`,
      IssuerUrl: idp.issuer,
      ClientId: `client-${n}`,
      ClientSecret: CLIENT_SECRET,
      ...extra,
    };
  };

  beforeAll(async () => {
    idp = await openTestProvider();
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      env: { RAMPART_SSO_ALLOW_LOOPBACK: 'true', RAMPART_BASE_URL: BASE },
    });
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    outsider = await t.userWithKey('Admin', await t.services.organizations.create('Other'));
    const created = await call(admin, 'POST', '/ssoproviders', {
      Name: 'Test provider',
      IssuerUrl: idp.issuer,
      ClientId: CLIENT_ID,
      ClientSecret: CLIENT_SECRET,
      Scopes: ['openid', 'email', 'profile', 'groups'],
      RoleMappings: [
        { Group: 'rampart-admins', Role: 'Admin' },
        { Group: 'rampart-analysts', Role: 'Analyst' },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    flow = created.json();
    idp.serve([flow.RedirectUri]);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    await idp?.close();
  });

  it('adds a provider with defaults, gives its redirect URI and never its secret', async () => {
    const res = await call(admin, 'POST', '/ssoproviders', {
      ...provider(),
      RoleMappings: [{ Group: 'rampart-admins', Role: 'Admin' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      IssuerUrl: idp.issuer,
      HasClientSecret: true,
      Scopes: ['openid', 'email', 'profile'],
      GroupsClaim: 'groups',
      DefaultRole: 'ReadOnly',
      RoleMappings: [{ Group: 'rampart-admins', Role: 'Admin' }],
      Enabled: true,
      RedirectUri: `${BASE}/api/latest/auth/oidc/${body.Id}/callback`,
    });
    expect(res.body).not.toContain(CLIENT_SECRET);
    const list = await call(admin, 'GET', '/ssoproviders');
    expect(list.json().Items.map((p: { Id: string }) => p.Id)).toContain(body.Id);
    expect(list.body).not.toContain(CLIENT_SECRET);
    expect((await call(admin, 'GET', `/ssoproviders/${body.Id}`)).body).not.toContain(CLIENT_SECRET);
    const audit = await t.services.audit.listRecent(t.org.id);
    const created = audit.find((e) => e.action === 'ssoprovider.created' && e.target_id === body.Id);
    expect(created?.details).toMatchObject({ issuer: idp.issuer });
    expect(JSON.stringify(audit)).not.toContain(CLIENT_SECRET);
  });

  it('changes only what is sent, keeps the secret when left out and removes it when null', async () => {
    const created = (await call(admin, 'POST', '/ssoproviders', provider())).json();
    const renamed = await call(admin, 'PATCH', `/ssoproviders/${created.Id}`, {
      Name: `${created.Name} renamed`,
      DefaultRole: null,
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({
      HasClientSecret: true,
      DefaultRole: null,
      ClientId: created.ClientId,
    });
    const publicClient = await call(admin, 'PATCH', `/ssoproviders/${created.Id}`, { ClientSecret: null });
    expect(publicClient.json().HasClientSecret).toBe(false);
    expect((await call(admin, 'DELETE', `/ssoproviders/${created.Id}`)).statusCode).toBe(204);
    expectProblem(await call(admin, 'GET', `/ssoproviders/${created.Id}`), 404, 'not-found');
  });

  it('refuses bad input with a problem naming the field', async () => {
    const bad = async (extra: Record<string, unknown>, path: string, words: string) => {
      const problem = expectProblem(
        await call(admin, 'POST', '/ssoproviders', provider(extra)),
        400,
        'validation-failed',
        path,
      );
      expect(problem.detail).toContain(words);
    };
    await bad({ IssuerUrl: 'http://login.example.com/realms/acme' }, '/IssuerUrl', 'must be an https URL');
    await bad({ IssuerUrl: 'not a url' }, '/IssuerUrl', 'is not a URL');
    await bad({ IssuerUrl: 'https://login.example.com/?tenant=1' }, '/IssuerUrl', 'no query');
    await bad({ IssuerUrl: 'https://user:pw@login.example.com' }, '/IssuerUrl', 'user name or password');
    await bad({ IssuerUrl: 'https://169.254.169.254/' }, '/IssuerUrl', 'metadata');
    await bad({ Scopes: ['email', 'profile'] }, '/Scopes', 'must include openid');
    await bad({ GroupsClaim: 'groups claim' }, '/GroupsClaim', 'claim name');
    await bad(
      {
        RoleMappings: [
          { Group: 'ops', Role: 'Analyst' },
          { Group: 'ops', Role: 'Admin' },
        ],
      },
      '/RoleMappings/1/Group',
      'second time',
    );
    // Roles, types and unknown properties are the schema's: 400 too, naming them.
    expectProblem(
      await call(admin, 'POST', '/ssoproviders', provider({ DefaultRole: 'Owner' })),
      400,
      'validation-failed',
      '/DefaultRole',
    );
    expectProblem(
      await call(
        admin,
        'POST',
        '/ssoproviders',
        provider({ RoleMappings: [{ Group: 'ops', Role: 'Root' }] }),
      ),
      400,
      'validation-failed',
    );
    expectProblem(
      await call(admin, 'POST', '/ssoproviders', provider({ clientSecret: 'x' })),
      400,
      'validation-failed',
    );
    expectProblem(
      await call(admin, 'PATCH', `/ssoproviders/${crypto.randomUUID()}`, {}),
      400,
      'validation-failed',
    );
  });

  it('refuses a loopback issuer unless the server allows it', async () => {
    const strictDb = await newTestDatabase(kind);
    const strict = await buildTestApp(strictDb.database);
    try {
      const res = await strict.app.inject({
        method: 'POST',
        url: '/api/latest/ssoproviders',
        headers: { ...authHeaders(strict.admin), 'content-type': 'application/json' },
        payload: JSON.stringify(provider()),
      });
      const problem = expectProblem(res, 400, 'validation-failed', '/IssuerUrl');
      expect(problem.detail).toContain('RAMPART_SSO_ALLOW_LOOPBACK=true');
    } finally {
      await strict.close();
      await strictDb.drop();
    }
  });

  it('refuses a duplicate name or issuer and client id (409)', async () => {
    const first = provider();
    expect((await call(admin, 'POST', '/ssoproviders', first)).statusCode).toBe(201);
    const sameName = expectProblem(
      await call(admin, 'POST', '/ssoproviders', { ...provider(), Name: first.Name.toUpperCase() }),
      409,
      'conflict',
    );
    expect(sameName.detail).toContain('already exists');
    const sameClient = expectProblem(
      await call(admin, 'POST', '/ssoproviders', { ...provider(), ClientId: first.ClientId }),
      409,
      'conflict',
    );
    expect(sameClient.detail).toContain(first.ClientId);
    // Another organisation may have the same.
    expect((await call(outsider, 'POST', '/ssoproviders', first)).statusCode).toBe(201);
  });

  it('is for Admins of the organisation only', async () => {
    const created = (await call(admin, 'POST', '/ssoproviders', provider())).json();
    expectProblem(await call(manager, 'GET', '/ssoproviders'), 403, 'forbidden');
    expectProblem(await call(manager, 'POST', '/ssoproviders', provider()), 403, 'forbidden');
    expectProblem(await call(null, 'GET', '/ssoproviders'), 401, 'unauthenticated');
    expectProblem(await call(outsider, 'GET', `/ssoproviders/${created.Id}`), 404, 'not-found');
    expectProblem(
      await call(outsider, 'PATCH', `/ssoproviders/${created.Id}`, { Enabled: false }),
      404,
      'not-found',
    );
    expectProblem(await call(outsider, 'DELETE', `/ssoproviders/${created.Id}`), 404, 'not-found');
    const theirs = (await call(outsider, 'GET', '/ssoproviders')).json().Items as { Id: string }[];
    expect(theirs.map((p) => p.Id)).not.toContain(created.Id);
  });

  it('lists enabled providers for the sign-in page, anonymously', async () => {
    const on = (await call(admin, 'POST', '/ssoproviders', provider())).json();
    const off = (await call(admin, 'POST', '/ssoproviders', provider({ Enabled: false }))).json();
    const res = await call(null, 'GET', '/auth/oidc/providers');
    expect(res.statusCode).toBe(200);
    const items = res.json().Items as { Id: string; Name: string; StartUrl: string }[];
    expect(items).toContainEqual({
      Id: on.Id,
      Name: on.Name,
      StartUrl: `${BASE}/api/latest/auth/oidc/${on.Id}/start`,
    });
    expect(items.map((p) => p.Id)).not.toContain(off.Id);
  });

  it('refuses password sign-in when the organisation signs in with single sign-on only; API keys still work', async () => {
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    const password = 'a long enough passphrase of hers';
    await t.services.users.create(ctx, { email: 'ada@example.com', role: 'Analyst', password });
    const signIn = (pw: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/latest/session',
        remoteAddress: '127.0.3.1',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ Email: 'ada@example.com', Password: pw }),
      });
    expect((await signIn(password)).statusCode).toBe(200);

    // Not without an enabled provider: nobody could sign in.
    const newcomer = await t.userWithKey('Admin', await t.services.organizations.create('Newcomer'));
    const otherOrgOn = expectProblem(
      await call(newcomer, 'PUT', '/ssosettings', { SsoOnly: true }),
      400,
      'validation-failed',
      '/SsoOnly',
    );
    expect(otherOrgOn.detail).toContain('enabled provider');
    expectProblem(await call(admin, 'PUT', '/ssosettings', { SsoOnly: 'yes' }), 400, 'validation-failed');
    expectProblem(await call(manager, 'PUT', '/ssosettings', { SsoOnly: true }), 403, 'forbidden');

    await call(admin, 'POST', '/ssoproviders', provider());
    const on = await call(admin, 'PUT', '/ssosettings', { SsoOnly: true });
    expect(on.json()).toEqual({ SsoOnly: true });
    expect((await call(admin, 'GET', '/ssosettings')).json()).toEqual({ SsoOnly: true });
    expect((await call(outsider, 'GET', '/ssosettings')).json()).toEqual({ SsoOnly: false });

    const refused = expectProblem(await signIn(password), 403, 'sso-required');
    expect(refused.detail).toBe(SSO_REQUIRED);
    expect((await signIn(password)).headers['set-cookie']).toBeUndefined();
    // A wrong password is told nothing more than any wrong password.
    expectProblem(await signIn('not the password at all'), 401, 'unauthenticated');
    // API keys keep working.
    expect((await call(admin, 'GET', '/authenticationcheck')).body).toBe('Authenticated');
    const audit = await t.services.audit.listRecent(t.org.id);
    expect(audit.find((e) => e.action === 'settings.sso_only_changed')?.details).toEqual({
      from: false,
      to: true,
    });
    expect(
      audit.some(
        (e) =>
          e.action === 'session.sign_in_failed' && (e.details as { reason?: string }).reason === 'sso-only',
      ),
    ).toBe(true);

    expect((await call(admin, 'PUT', '/ssosettings', { SsoOnly: false })).json()).toEqual({ SsoOnly: false });
    expect((await signIn(password)).statusCode).toBe(200);
  });

  it('starts the code flow at the provider with state, nonce and PKCE (S256), the attempt tied to the browser', async () => {
    const created = flow;
    const res = await call(null, 'GET', `/auth/oidc/${created.Id}/start`);
    expect(res.statusCode, res.body).toBe(302);
    const location = new URL(String(res.headers.location));
    expect(location.origin).toBe(idp.issuer);
    const q = location.searchParams;
    expect(q.get('client_id')).toBe(CLIENT_ID);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('redirect_uri')).toBe(created.RedirectUri);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('scope')).toBe('openid email profile groups');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^rampart_sso_attempt=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Max-Age=600');

    // The same answer without the browser's cookie: refused, and recorded.
    const callback = await call(
      null,
      'GET',
      `/auth/oidc/${created.Id}/callback?code=abc&state=${q.get('state')}`,
    );
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe(`${BASE}/sign-in?sso_error=attempt-unknown`);
    const audit = await t.services.audit.listRecent(t.org.id);
    expect(
      audit.find((e) => e.action === 'session.sso_sign_in_failed' && e.target_id === created.Id)?.details,
    ).toMatchObject({
      reason: 'attempt-unknown',
    });
  });

  it('sends the browser back to the sign-in page when the provider is down or unknown', async () => {
    const down = (
      await call(admin, 'POST', '/ssoproviders', provider({ IssuerUrl: 'http://127.0.0.1:9/realms/down' }))
    ).json();
    const res = await call(null, 'GET', `/auth/oidc/${down.Id}/start`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${BASE}/sign-in?sso_error=unreachable`);
    const audit = await t.services.audit.listRecent(t.org.id);
    expect(
      audit.find((e) => e.action === 'session.sso_sign_in_failed' && e.target_id === down.Id)?.details,
    ).toMatchObject({
      reason: 'unreachable',
    });
    const unknown = await call(null, 'GET', `/auth/oidc/${crypto.randomUUID()}/start`);
    expect(unknown.headers.location).toBe(`${BASE}/sign-in?sso_error=unknown-provider`);
    expectProblem(await call(null, 'GET', '/auth/oidc/not-an-id/start'), 400, 'validation-failed');
  });
  /** A whole sign-in: start, the provider, the callback; the callback's answer and the session's cookie. */
  async function signInThrough(visitor: ProviderVisitor, login: string, tamper?: (callback: URL) => void) {
    const start = await call(null, 'GET', `/auth/oidc/${flow.Id}/start`);
    const attempt = String(start.headers['set-cookie']).split(';')[0]!;
    const callback = new URL(await visitor.signIn(String(start.headers.location), login));
    tamper?.(callback);
    const res = await t.app.inject({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      remoteAddress: '127.0.4.1',
      headers: { cookie: attempt },
    });
    expect(res.statusCode, res.body).toBe(302);
    const session = [res.headers['set-cookie']]
      .flat()
      .map((c) => String(c).split(';')[0]!)
      .find((c) => c.startsWith('rampart_session='));
    return { res, session, callback };
  }
  const whoIs = async (cookie: string | undefined) =>
    (
      await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: { cookie: cookie ?? '' } })
    ).json();
  const lastFailure = async () =>
    (await t.services.audit.listRecent(t.org.id)).find((e) => e.action === 'session.sso_sign_in_failed')
      ?.details as { reason: string; message: string } | undefined;

  it('creates a person at their first sign-in with the role their groups map to, and applies new groups at the next', async () => {
    idp.accounts.set('lin', { email: 'lin@example.com', name: 'Lin Analyst', groups: ['rampart-analysts'] });
    const visitor = new ProviderVisitor(idp.issuer);
    const first = await signInThrough(visitor, 'lin');
    expect(first.res.headers.location).toBe(`${BASE}/`);
    expect(first.session).toMatch(/^rampart_session=[A-Za-z0-9_-]{43}$/);
    const me = await whoIs(first.session);
    expect(me.User).toMatchObject({ Email: 'lin@example.com', Name: 'Lin Analyst', Role: 'Analyst' });
    const user = (await t.services.users.findByEmail('lin@example.com'))!;
    expect(user.organizationId).toBe(t.org.id);

    idp.accounts.get('lin')!.groups = ['rampart-analysts', 'rampart-admins'];
    const second = await signInThrough(visitor, 'lin');
    expect((await whoIs(second.session)).User).toMatchObject({ Id: user.id, Role: 'Admin' });
    idp.accounts.get('lin')!.groups = [];
    const third = await signInThrough(visitor, 'lin');
    // No mapped group: the default role (ReadOnly).
    expect((await whoIs(third.session)).User.Role).toBe('ReadOnly');
    // One user all along, linked by (provider, subject).
    expect(
      (await call(admin, 'GET', '/users?PageSize=500'))
        .json()
        .Items.filter((u: { Email: string }) => u.Email === 'lin@example.com'),
    ).toHaveLength(1);
    const signedIn = (await t.services.audit.listRecent(t.org.id)).filter(
      (e) => e.action === 'session.signed_in' && e.actor_id === user.id,
    );
    expect(signedIn).toHaveLength(3);
    expect(signedIn[0]!.details).toEqual({ method: 'sso', provider: flow.Id });
  });

  it('links an existing user by email, refuses an email of another organisation, and refuses when no group maps and there is no default', async () => {
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    const existing = await t.services.users.create(ctx, { email: 'mo@example.com', role: 'Manager' });
    idp.accounts.set('mo', { email: 'MO@example.com', name: 'Mo', groups: ['rampart-analysts'] });
    const linked = await signInThrough(new ProviderVisitor(idp.issuer), 'mo');
    expect((await whoIs(linked.session)).User).toMatchObject({ Id: existing.id, Role: 'Analyst' });

    const otherCtx = {
      organizationId: (await t.services.organizations.create('Elsewhere')).id,
      actor: ctx.actor,
    };
    await t.services.users.create(otherCtx, { email: 'kim@example.com', role: 'Admin' });
    idp.accounts.set('kim', { email: 'kim@example.com', name: 'Kim', groups: ['rampart-admins'] });
    const elsewhere = await signInThrough(new ProviderVisitor(idp.issuer), 'kim');
    expect(elsewhere.res.headers.location).toBe(`${BASE}/sign-in?sso_error=email-elsewhere`);
    expect(elsewhere.session).toBeUndefined();

    await call(admin, 'PATCH', `/ssoproviders/${flow.Id}`, { DefaultRole: null });
    try {
      idp.accounts.set('nogroup', { email: 'nogroup@example.com', name: 'No Group', groups: ['canteen'] });
      const refused = await signInThrough(new ProviderVisitor(idp.issuer), 'nogroup');
      expect(refused.res.headers.location).toBe(`${BASE}/sign-in?sso_error=no-role`);
      expect(await t.services.users.findByEmail('nogroup@example.com')).toBeUndefined();
      expect((await lastFailure())?.reason).toBe('no-role');
    } finally {
      await call(admin, 'PATCH', `/ssoproviders/${flow.Id}`, { DefaultRole: 'ReadOnly' });
    }
  });

  it('refuses a wrong state, a replayed code and an ID token for another client', async () => {
    idp.accounts.set('eve', { email: 'eve@example.com', name: 'Eve', groups: [] });
    const visitor = new ProviderVisitor(idp.issuer);
    const wrongState = await signInThrough(visitor, 'eve', (cb) =>
      cb.searchParams.set('state', 'not-the-state'),
    );
    expect(wrongState.res.headers.location).toBe(`${BASE}/sign-in?sso_error=state`);
    expect(wrongState.session).toBeUndefined();
    expect((await lastFailure())?.message).toMatch(/state/);

    // A code used once, presented again with a new attempt's own state.
    const used = await signInThrough(visitor, 'eve');
    expect(used.session).toBeDefined();
    const start = await call(null, 'GET', `/auth/oidc/${flow.Id}/start`);
    const replay = new URL(used.callback);
    replay.searchParams.set('state', new URL(String(start.headers.location)).searchParams.get('state')!);
    const replayed = await t.app.inject({
      method: 'GET',
      url: `${replay.pathname}${replay.search}`,
      headers: { cookie: String(start.headers['set-cookie']).split(';')[0]! },
    });
    expect(replayed.headers.location).toBe(`${BASE}/sign-in?sso_error=code-rejected`);
    expect((await lastFailure())?.message).toMatch(/invalid_grant/);

    idp.foreignAudience = 'another-application';
    try {
      const foreign = await signInThrough(visitor, 'eve');
      expect(foreign.res.headers.location).toBe(`${BASE}/sign-in?sso_error=token-invalid`);
      expect(foreign.session).toBeUndefined();
      expect((await lastFailure())?.message).toMatch(/aud/);
    } finally {
      idp.foreignAudience = null;
    }
  });
});
