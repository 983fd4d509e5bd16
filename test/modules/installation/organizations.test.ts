import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../../src/modules/mfa/totp.js';
import type { Organization } from '../../../src/modules/organizations/service.js';
import { authHeaders, type Browser, buildTestApp, signInAs, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const PASSWORD = 'correct horse battery staple';
const SYSTEM = { type: 'system', id: null } as const;

/**
 * Organisations (docs/organisations.md): a person in several with a role in each, the session's
 * switch, and installation Admins creating, renaming and deactivating organisations.
 */
describe.each(DB_KINDS)('organisations [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let other: Organization;
  let n = 0;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    other = await t.services.organizations.create('Bravo');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const ctxOf = (organizationId: string) => ({ organizationId, actor: SYSTEM });
  const json = (browser: Browser) => ({ ...browser.headers, 'content-type': 'application/json' });
  const ip = () => `127.0.2.${++n}`;

  /** A person who is Admin of the first organisation and ReadOnly in Bravo. */
  async function twoOrgPerson() {
    const email = `two-${++n}@example.com`;
    const a = await t.services.users.create(ctxOf(t.org.id), { email, role: 'Admin', password: PASSWORD });
    const b = await t.services.users.create(ctxOf(other.id), { email, role: 'ReadOnly' });
    return { email, a, b };
  }

  const switchTo = (browser: Browser, organizationId: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/latest/session/organization',
      headers: json(browser),
      payload: JSON.stringify({ OrganizationId: organizationId }),
    });
  const browserOf = (res: { headers: Record<string, unknown>; json(): { CsrfToken: string } }): Browser => {
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    const csrf = res.json().CsrfToken;
    return { cookie, csrf, headers: { cookie, 'x-csrf-token': csrf } };
  };

  it('adds a person of another organisation without a password, and refuses one with a password', async () => {
    const { email, a, b } = await twoOrgPerson();
    expect(b.personId).toBe(a.personId);
    expect(b.organizationId).toBe(other.id);
    const withPassword = await t.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { ...authHeaders(await t.userWithKey('Admin', other)), 'content-type': 'application/json' },
      payload: JSON.stringify({
        Email: email.toUpperCase(),
        Role: 'Analyst',
        Password: 'another password 123',
      }),
    });
    // Already a member of Bravo: the same email twice in one organisation is a conflict.
    expect(withPassword.statusCode).toBe(409);
    const third = await t.services.organizations.create('Charlie');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: { ...authHeaders(await t.userWithKey('Admin', third)), 'content-type': 'application/json' },
      payload: JSON.stringify({ Email: email, Role: 'Analyst', Password: 'another password 123' }),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain('without a password');
    expect((await t.services.users.membershipsOf(a.personId)).map((m) => m.organizationId)).toEqual([
      t.org.id,
      other.id,
    ]);
  });

  it('switches the session between the person’s organisations, with the role of each, ending the old session', async () => {
    const { email } = await twoOrgPerson();
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/latest/assets',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: JSON.stringify({ Kind: 'Host', Fqdn: `only-in-a-${n}.example.com` }),
    });
    expect(created.statusCode).toBe(201);
    const asset = { id: created.json().Id as string };
    const inA = await signInAs(t.app, email, PASSWORD, ip());
    const session = await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: inA.headers });
    expect(session.json().Organization.Id).toBe(t.org.id);
    expect(session.json().SignedInWith).toBe('Password');
    expect(session.json().Organizations).toEqual([
      { Id: t.org.id, Name: expect.any(String), Role: 'Admin' },
      { Id: other.id, Name: 'Bravo', Role: 'ReadOnly' },
    ]);

    const switched = await switchTo(inA, other.id);
    expect(switched.statusCode).toBe(200);
    expect(switched.json().Organization).toEqual({ Id: other.id, Name: 'Bravo' });
    expect(switched.json().User.Role).toBe('ReadOnly');
    const inB = browserOf(switched);
    expect(inB.cookie).not.toBe(inA.cookie);
    expect(inB.csrf).not.toBe(inA.csrf);
    // The old session ended; the new one reads Bravo only, with Bravo's role.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: inA.headers })).statusCode,
    ).toBe(401);
    const assets = await t.app.inject({ method: 'GET', url: '/api/latest/assets', headers: inB.headers });
    expect(assets.statusCode).toBe(200);
    expect(assets.body).not.toContain(asset.id);
    const denied = await t.app.inject({
      method: 'POST',
      url: '/api/latest/users',
      headers: json(inB),
      payload: JSON.stringify({ Email: `x${n}@example.com`, Role: 'ReadOnly' }),
    });
    expect(denied.statusCode).toBe(403);

    // The next sign-in starts where the person was last.
    const again = await signInAs(t.app, email, PASSWORD, ip());
    const where = await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: again.headers });
    expect(where.json().Organization.Id).toBe(other.id);
    const back = await switchTo(again, t.org.id);
    expect(back.statusCode).toBe(200);
    expect(back.json().User.Role).toBe('Admin');

    // Both logs tell it: the session ended in the one left, and started in the one switched to.
    const bravo = (await t.services.auditLog.list(ctxOf(other.id), {}, 200)).items;
    const alpha = (await t.services.auditLog.list(ctxOf(t.org.id), {}, 500)).items;
    expect(bravo.filter((e) => e.action === 'session.signed_in').map((e) => e.details)).toContainEqual({
      switchedFrom: t.org.id,
    });
    expect(bravo.filter((e) => e.action === 'session.signed_out').map((e) => e.details)).toContainEqual({
      switchedTo: t.org.id,
    });
    expect(alpha.filter((e) => e.action === 'session.signed_out').map((e) => e.details)).toContainEqual({
      switchedTo: other.id,
    });
  });

  it('refuses a switch to an organisation the person is not in, a bad body, a missing CSRF token and an API key', async () => {
    const { email } = await twoOrgPerson();
    const browser = await signInAs(t.app, email, PASSWORD, ip());
    const stranger = await t.services.organizations.create(`Stranger ${n}`);
    const notMember = await switchTo(browser, stranger.id);
    expect(notMember.statusCode).toBe(404);
    expect(notMember.headers['content-type']).toContain('application/problem+json');
    const bad = await switchTo(browser, 'not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('OrganizationId');
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session/organization',
      headers: { cookie: browser.cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ OrganizationId: other.id }),
    });
    expect(noCsrf.statusCode).toBe(403);
    const withKey = await t.app.inject({
      method: 'POST',
      url: '/api/latest/session/organization',
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: JSON.stringify({ OrganizationId: other.id }),
    });
    expect(withKey.statusCode).toBe(401);
    // Still in the first organisation, session alive.
    const still = await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: browser.headers });
    expect(still.json().Organization.Id).toBe(t.org.id);
  });

  it('asks for the second step when the organisation switched to requires one', async () => {
    const { email } = await twoOrgPerson();
    const strict = await t.services.organizations.create(`Strict ${n}`);
    await t.services.users.create(ctxOf(strict.id), { email, role: 'Analyst' });
    await t.services.settings.setRequireMfa(ctxOf(strict.id), true);
    const browser = await signInAs(t.app, email, PASSWORD, ip());
    const res = await switchTo(browser, strict.id);
    expect(res.statusCode).toBe(202);
    expect(res.json().Step).toBe('Enrol');
    expect(res.headers['set-cookie']).toBeUndefined();

    // Enrolling finishes the switch: the session in the first organisation ends, and both logs
    // tell it as for a switch without a second step.
    const post = (url: string, body: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/api/latest${url}`,
        headers: { ...json(browser), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const { ChallengeToken } = res.json();
    const enrolment = await post('/session/mfa/enrolment', { ChallengeToken });
    expect(enrolment.statusCode).toBe(200);
    const confirmed = await post('/session/mfa/enrolment/confirm', {
      ChallengeToken,
      Code: totpCode(enrolment.json().Secret, t.clock.now),
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().Organization.Id).toBe(strict.id);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: browser.headers }))
        .statusCode,
    ).toBe(401);
    const left = (await t.services.auditLog.list(ctxOf(t.org.id), {}, 500)).items;
    const joined = (await t.services.auditLog.list(ctxOf(strict.id), {}, 200)).items;
    expect(left.filter((e) => e.action === 'session.signed_out').map((e) => e.details)).toContainEqual({
      switchedTo: strict.id,
    });
    expect(joined.filter((e) => e.action === 'session.signed_in').map((e) => e.details)).toContainEqual({
      secondFactor: 'Totp',
      enrolled: true,
      switchedFrom: t.org.id,
    });
  });

  it('binds a single sign-on session to its organisation', async () => {
    const { a } = await twoOrgPerson();
    const signedIn = await t.services.sessions.startFor(a, {
      ipAddress: '127.0.0.1',
      userAgent: null,
      signedInWith: 'sso',
    });
    const browser: Browser = {
      cookie: `rampart_session=${signedIn.token}`,
      csrf: signedIn.csrfToken,
      headers: { cookie: `rampart_session=${signedIn.token}`, 'x-csrf-token': signedIn.csrfToken },
    };
    const session = await t.app.inject({
      method: 'GET',
      url: '/api/latest/session',
      headers: browser.headers,
    });
    expect(session.json().SignedInWith).toBe('SingleSignOn');
    const res = await switchTo(browser, other.id);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toContain('single sign-on');
  });

  it('leaves a person’s password to them (or the operator) when they belong to other organisations', async () => {
    const { a, email } = await twoOrgPerson();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/latest/users/${a.id}/password`,
      headers: { ...authHeaders(t.admin), 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toContain('other organisations');
    await signInAs(t.app, email, PASSWORD, ip());
    const password = await t.services.users.resetPassword(
      { organizationId: t.org.id, actor: { type: 'cli', id: null } },
      a.id,
    );
    await expect(signInAs(t.app, email, PASSWORD, ip())).rejects.toThrow(/401/);
    await signInAs(t.app, email, password, ip());
  });

  describe('installation Admins', () => {
    let root: Browser;
    let rootEmail: string;

    beforeAll(async () => {
      rootEmail = `root-${process.pid}@example.com`;
      await t.services.users.create(ctxOf(t.org.id), { email: rootEmail, role: 'Admin', password: PASSWORD });
      await t.services.users.setInstallationAdmin(rootEmail, true);
      root = await signInAs(t.app, rootEmail, PASSWORD, ip());
    });

    const create = (browser: Browser, body: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/api/latest/installation/organizations',
        headers: json(browser),
        payload: JSON.stringify(body),
      });
    const patch = (browser: Browser, id: string, body: unknown) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/latest/installation/organizations/${id}`,
        headers: json(browser),
        payload: JSON.stringify(body),
      });

    it('are the only ones who reach the routes: not an organisation Admin, not an API key', async () => {
      const session = await t.app.inject({
        method: 'GET',
        url: '/api/latest/session',
        headers: root.headers,
      });
      expect(session.json().InstallationAdmin).toBe(true);
      const { email } = await twoOrgPerson();
      const orgAdmin = await signInAs(t.app, email, PASSWORD, ip());
      const list = await t.app.inject({
        method: 'GET',
        url: '/api/latest/installation/organizations',
        headers: orgAdmin.headers,
      });
      expect(list.statusCode).toBe(403);
      expect(list.json().detail).toContain('installation Admin');
      expect((await create(orgAdmin, { Name: 'Nope' })).statusCode).toBe(403);
      const withKey = await t.app.inject({
        method: 'GET',
        url: '/api/latest/installation/organizations',
        headers: authHeaders(t.admin),
      });
      expect(withKey.statusCode).toBe(401);
      expect((await t.services.organizations.list()).some((o) => o.name === 'Nope')).toBe(false);
    });

    it('create an organisation with a new Admin whose password is shown once, and who can sign in', async () => {
      const adminEmail = `new-admin-${n}@example.com`;
      const res = await create(root, { Name: `Delta ${n}`, AdminEmail: adminEmail });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body.Organization).toMatchObject({
        Name: `Delta ${n}`,
        Active: true,
        Members: 1,
        DeactivatedAt: null,
      });
      expect(body.Admin).toMatchObject({ Email: adminEmail, NewPerson: true });
      expect(body.AdminPassword).toMatch(/.{12,}/);
      const admin = await signInAs(t.app, adminEmail, body.AdminPassword, ip());
      const session = await t.app.inject({
        method: 'GET',
        url: '/api/latest/session',
        headers: admin.headers,
      });
      expect(session.json().Organization.Id).toBe(body.Organization.Id);
      expect(session.json().User.Role).toBe('Admin');
      expect(session.json().InstallationAdmin).toBe(false);
      const audit = await t.services.auditLog.list(ctxOf(body.Organization.Id), {}, 200);
      expect(JSON.stringify(audit)).toContain('organization.created');
      expect(JSON.stringify(audit)).toContain(rootEmail);
    });

    it('create one they are the Admin of by default, and switch to it', async () => {
      const res = await create(root, { Name: `Echo ${n}` });
      expect(res.statusCode).toBe(201);
      expect(res.json().Admin).toMatchObject({ Email: rootEmail, NewPerson: false });
      expect(res.json().AdminPassword).toBeNull();
      const switched = await switchTo(root, res.json().Organization.Id);
      expect(switched.statusCode).toBe(200);
      root = browserOf(switched);
      const back = await switchTo(root, t.org.id);
      root = browserOf(back);
    });

    it('refuse bad input and leave nothing behind', async () => {
      const before = (await t.services.organizations.list()).length;
      const empty = await create(root, { Name: '   ' });
      expect(empty.statusCode).toBe(400);
      expect(empty.json().detail).toContain('1 to 200');
      const badEmail = await create(root, { Name: 'Foxtrot', AdminEmail: 'not-an-email' });
      expect(badEmail.statusCode).toBe(400);
      expect(badEmail.json().detail).toContain('AdminEmail');
      const extra = await create(root, { Name: 'Foxtrot', Colour: 'red' });
      expect(extra.statusCode).toBe(400);
      const duplicate = await create(root, { Name: 'bravo' });
      expect(duplicate.statusCode).toBe(409);
      expect((await t.services.organizations.list()).length).toBe(before);
      const noChange = await patch(root, other.id, {});
      expect(noChange.statusCode).toBe(400);
      const unknown = await patch(root, '0190a000-0000-7000-8000-000000000000', { Name: 'Ghost' });
      expect(unknown.statusCode).toBe(404);
    });

    it('rename, deactivate (sessions and keys stop at once) and reactivate an organisation', async () => {
      const org = await t.services.organizations.create(`Golf ${n}`);
      const member = `golf-${n}@example.com`;
      await t.services.users.create(ctxOf(org.id), { email: member, role: 'Admin', password: PASSWORD });
      const key = await t.userWithKey('Analyst', org);
      const memberSession = await signInAs(t.app, member, PASSWORD, ip());
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/latest/assets', headers: authHeaders(key) }))
          .statusCode,
      ).toBe(200);

      const renamed = await patch(root, org.id, { Name: `Hotel ${n}` });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json().Name).toBe(`Hotel ${n}`);

      const off = await patch(root, org.id, { Active: false });
      expect(off.statusCode).toBe(200);
      expect(off.json()).toMatchObject({ Active: false, DeactivatedAt: expect.any(String) });
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/latest/session', headers: memberSession.headers }))
          .statusCode,
      ).toBe(401);
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/latest/assets', headers: authHeaders(key) }))
          .statusCode,
      ).toBe(401);
      await expect(signInAs(t.app, member, PASSWORD, ip())).rejects.toThrow(/401/);

      const on = await patch(root, org.id, { Active: true });
      expect(on.json()).toMatchObject({ Active: true, DeactivatedAt: null });
      await signInAs(t.app, member, PASSWORD, ip());
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/latest/assets', headers: authHeaders(key) }))
          .statusCode,
      ).toBe(200);
      const audit = JSON.stringify(await t.services.auditLog.list(ctxOf(org.id), {}, 200));
      for (const action of ['organization.renamed', 'organization.deactivated', 'organization.reactivated'])
        expect(audit).toContain(action);
    });

    it('cannot deactivate the organisation they work in', async () => {
      const res = await patch(root, t.org.id, { Active: false });
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toContain('switch to another organisation');
      expect(await t.services.organizations.isActive(t.org.id)).toBe(true);
    });
  });
});
