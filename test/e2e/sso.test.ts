import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  openTestProvider,
  ProviderVisitor,
  type TestProvider,
} from '../helpers/oidc-provider.js';

const ADMIN = { email: 'admin-sso@example.com', password: 'configures single sign-on' };
// Where the screenshots of this journey go, light and dark, to be looked at.
const SHOTS = process.env.SSO_SHOTS ?? '/tmp/shots-sso';

/** What GET /api/latest/session answers, as far as these tests read it. */
interface Session {
  User: { Email: string; Name: string; Role: string };
  CsrfToken: string;
}

// Single sign-on in Chromium against a real OpenID provider (oidc-provider, OpenID Certified) on
// loopback: a person signs in through it and gets the role their groups map to, gets another role
// at the next sign-in when their groups change, signs out; and each refusal (a wrong state, a
// replayed code, an ID token for another client, a provider that is down) ends on the sign-in page
// saying what happened.
describe.runIf(HAS_CHROMIUM)('single sign-on with OpenID Connect [browser]', () => {
  let rig: BrowserRig;
  let idp: TestProvider;
  let context: BrowserContext;
  let page: Page;
  let providerId = '';

  const shot = async (p: Page, name: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme: scheme });
      await p.waitForTimeout(150);
      await p.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`) });
    }
    await p.emulateMedia({ colorScheme: 'light' });
  };
  const session = async (): Promise<Session | null> =>
    page.evaluate(async () => {
      const res = await fetch('/api/latest/session');
      return res.ok ? ((await res.json()) as Session) : null;
    });
  const refusal = () => page.getByRole('alert').filter({ hasText: 'Single sign-on failed' });

  /** Through the provider's own development login and consent pages, when it shows them. */
  async function passProvider(login: string): Promise<void> {
    await page.waitForURL(
      (url) => url.href.startsWith(rig.base) || url.href.startsWith(`${idp.issuer}/interaction/`),
    );
    if (page.url().startsWith(`${idp.issuer}/interaction/`)) {
      const loginField = page.locator('input[name="login"]');
      if (await loginField.count()) {
        await loginField.fill(login);
        await page.locator('input[name="password"]').fill('any password: the test provider accepts it');
        await page.getByRole('button', { name: 'Sign-in' }).click();
        await page.waitForURL(
          (url) => url.href.startsWith(rig.base) || url.pathname.startsWith('/interaction/'),
        );
      }
      if (page.url().startsWith(`${idp.issuer}/interaction/`)) {
        await page.getByRole('button', { name: 'Continue' }).click();
      }
    }
    await page.waitForURL((url) => url.href.startsWith(rig.base) && !url.pathname.includes('/auth/oidc/'));
  }
  const startSignIn = async (name = 'Acme ID') => {
    await page.goto('/sign-in');
    await page.getByRole('link', { name: `Sign in with ${name}` }).click();
  };
  const signOut = async () => {
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/sign-in');
  };

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    idp = await openTestProvider();
    idp.accounts.set('grace', {
      email: 'grace@example.com',
      name: 'Grace Hopper',
      groups: ['rampart-managers'],
    });
    idp.accounts.set('mallory', {
      email: 'mallory@example.com',
      name: 'Mallory',
      groups: ['rampart-admins'],
    });
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          name: 'Ada Admin',
          role: 'Admin',
          password: ADMIN.password,
        });
        const created = await rampart.services.sso.create(ctx, {
          name: 'Acme ID',
          issuerUrl: idp.issuer,
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          scopes: ['openid', 'email', 'profile', 'groups'],
          defaultRole: 'ReadOnly',
          roleMappings: [
            { group: 'rampart-admins', role: 'Admin' },
            { group: 'rampart-managers', role: 'Manager' },
          ],
        });
        providerId = created.id;
        idp.serve([rampart.services.sso.redirectUri(created.id)]);
        // A provider nothing answers for: port 9 of this machine is closed.
        await rampart.services.sso.create(ctx, {
          name: 'Down ID',
          issuerUrl: 'http://127.0.0.1:9/realms/down',
          clientId: CLIENT_ID,
        });
      },
      { env: { RAMPART_SSO_ALLOW_LOOPBACK: 'true' } },
    );
    context = await rig.browser.newContext({ baseURL: rig.base, viewport: { width: 1280, height: 860 } });
    // Nothing leaves this machine (the provider's development pages ask for a web font).
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
    await idp?.close();
  });

  it('offers the providers on the sign-in page', async () => {
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).waitFor();
    await page.getByRole('link', { name: 'Sign in with Down ID' }).waitFor();
    await shot(page, '01-sign-in-with-sso');
  });

  it('signs in through the provider, creating the user with the role their groups map to', async () => {
    await startSignIn();
    await passProvider('grace');
    await page.getByRole('button', { name: 'User menu' }).waitFor();
    const s = await session();
    expect(s?.User).toMatchObject({ Email: 'grace@example.com', Name: 'Grace Hopper', Role: 'Manager' });
    expect(s?.CsrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookies = await context.cookies(rig.base);
    const cookie = cookies.find((c) => c.name === 'rampart_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // The attempt's cookie is gone: it served once.
    expect(cookies.some((c) => c.name === 'rampart_sso_attempt')).toBe(false);
    // The session takes state-changing requests with its CSRF token, like a password sign-in's.
    const changed = await page.evaluate(async (csrf) => {
      const res = await fetch('/api/latest/account/notifications', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ EventTypes: ['scan.completed'], Mode: 'Immediate' }),
      });
      return res.status;
    }, s!.CsrfToken);
    expect(changed).toBe(200);
    const audit = await rig.rampart.services.audit.listRecent(rig.ctx.organizationId);
    expect(audit.find((e) => e.action === 'session.signed_in')?.details).toEqual({
      method: 'sso',
      provider: providerId,
    });
    expect(audit.find((e) => e.action === 'user.created')?.details).toMatchObject({
      email: 'grace@example.com',
      role: 'Manager',
    });
    await shot(page, '02-signed-in-through-sso');
  });

  it('ends the Rampart session on sign-out, and applies the new groups at the next sign-in', async () => {
    await signOut();
    expect(await session()).toBeNull();
    idp.accounts.get('grace')!.groups = ['rampart-admins', 'rampart-managers'];
    await startSignIn();
    await passProvider('grace');
    await page.getByRole('button', { name: 'User menu' }).waitFor();
    expect((await session())?.User.Role).toBe('Admin');
    // No mapped group any more: the provider's default role.
    await signOut();
    idp.accounts.get('grace')!.groups = ['canteen'];
    await startSignIn();
    await passProvider('grace');
    await page.getByRole('button', { name: 'User menu' }).waitFor();
    expect((await session())?.User.Role).toBe('ReadOnly');
    const audit = await rig.rampart.services.audit.listRecent(rig.ctx.organizationId);
    const changes = audit
      .filter((e) => e.action === 'user.role_changed')
      .map((e) => e.details)
      .reverse();
    expect(changes).toEqual([
      { from: 'Manager', to: 'Admin' },
      { from: 'Admin', to: 'ReadOnly' },
    ]);
    await signOut();
  });

  /**
   * Another browser's sign-in through the provider, up to the callback the provider sends it to;
   * presented by that browser too when `present` (the code is then used).
   */
  async function callbackOfAnotherBrowser(login: string, present = false): Promise<string> {
    const start = await fetch(`${rig.base}/api/latest/auth/oidc/${providerId}/start`, { redirect: 'manual' });
    const attempt = start.headers.getSetCookie()[0]!.split(';')[0]!;
    const callback = await new ProviderVisitor(idp.issuer).signIn(start.headers.get('location')!, login);
    if (present) {
      const res = await fetch(callback, { redirect: 'manual', headers: { cookie: attempt } });
      expect(res.headers.get('location')).toBe(`${rig.base}/`);
    }
    return callback;
  }
  /** This browser starts an attempt of its own (its cookie set), not going on to the provider: its state. */
  async function attemptOfThisBrowser(): Promise<string> {
    const res = await page.request.get(`${rig.base}/api/latest/auth/oidc/${providerId}/start`, {
      maxRedirects: 0,
    });
    expect(res.status()).toBe(302);
    return new URL(res.headers().location!).searchParams.get('state')!;
  }

  it('refuses an answer whose state is not the one this browser was given', async () => {
    // A forged link: someone else's answer from the provider (their code, their state), opened in
    // this browser while it has an attempt of its own under way.
    const forged = await callbackOfAnotherBrowser('mallory');
    await attemptOfThisBrowser();
    await page.goto(forged);
    await refusal().waitFor();
    expect(page.url()).toBe(`${rig.base}/sign-in?sso_error=state`);
    expect(await refusal().textContent()).toContain('does not belong to the sign-in this browser started');
    expect(await session()).toBeNull();
    expect(await rig.rampart.services.users.findByEmail('mallory@example.com')).toBeUndefined();
    await shot(page, '03-refused-wrong-state');
  });

  it('refuses a code that was used already', async () => {
    // A code used in a real sign-in, presented again with this browser's own attempt and state.
    const used = new URL(await callbackOfAnotherBrowser('grace', true));
    used.searchParams.set('state', await attemptOfThisBrowser());
    await page.goto(used.href);
    await refusal().waitFor();
    expect(page.url()).toBe(`${rig.base}/sign-in?sso_error=code-rejected`);
    expect(await refusal().textContent()).toContain('used already or has expired');
    expect(await session()).toBeNull();
    await shot(page, '04-refused-replayed-code');
    // The same answer once more: the attempt served once already.
    await page.goto(used.href);
    await page.waitForURL(`${rig.base}/sign-in?sso_error=attempt-unknown`);
    await refusal().waitFor();
  });

  it('refuses an ID token meant for another client', async () => {
    idp.foreignAudience = 'another-application';
    try {
      await startSignIn();
      await passProvider('grace');
    } finally {
      idp.foreignAudience = null;
    }
    await refusal().waitFor();
    expect(page.url()).toBe(`${rig.base}/sign-in?sso_error=token-invalid`);
    expect(await refusal().textContent()).toContain('ID token failed validation');
    expect(await session()).toBeNull();
    const audit = await rig.rampart.services.audit.listRecent(rig.ctx.organizationId);
    const failed = audit.find((e) => e.action === 'session.sso_sign_in_failed');
    expect(failed?.details).toMatchObject({ reason: 'token-invalid', provider: 'Acme ID' });
    expect(JSON.stringify(failed?.details)).toMatch(/aud/);
    await shot(page, '05-refused-foreign-audience');
  });

  it('says so when the provider is down', async () => {
    await startSignIn('Down ID');
    await page.waitForURL(`${rig.base}/sign-in?sso_error=unreachable`);
    await refusal().waitFor();
    expect(await refusal().textContent()).toContain('could not be reached');
    await shot(page, '06-refused-provider-down');
  });

  it('lets an Admin configure providers and single sign-on only in Settings', async () => {
    const admin = await rig.signIn(ADMIN, { width: 1280, height: 900 });
    await admin.goto('/settings#sso');
    const section = admin.getByRole('region', { name: 'Single sign-on' });
    await section.getByRole('table', { name: 'Single sign-on providers' }).waitFor();
    await section.getByText(`/api/latest/auth/oidc/${providerId}/callback`).waitFor();
    await section.scrollIntoViewIfNeeded();
    await shot(admin, '07-settings-sso');

    await section.getByRole('button', { name: 'Add provider' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add single sign-on provider' });
    await dialog.getByLabel('Display name').fill('Contoso Entra ID');
    await dialog.getByLabel('Issuer URL').fill('http://login.contoso.example/v2.0');
    await dialog.getByLabel('Client ID').fill('contoso-rampart');
    await dialog.getByRole('button', { name: 'Map a group' }).click();
    await dialog.getByLabel('Group 1', { exact: true }).fill('rampart-analysts');
    await dialog.getByRole('button', { name: 'Save provider' }).click();
    // The server's refusal shows on the field.
    await dialog.getByText('must be an https URL').waitFor();
    await shot(admin, '08-settings-sso-refused-issuer');
    await dialog.getByLabel('Issuer URL').fill('https://login.contoso.example/v2.0');
    await dialog.getByRole('button', { name: 'Save provider' }).click();
    await section.getByText('Contoso Entra ID').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const saved = (await rig.rampart.services.sso.list(rig.ctx)).find((p) => p.name === 'Contoso Entra ID');
    expect(saved).toMatchObject({
      issuerUrl: 'https://login.contoso.example/v2.0',
      hasClientSecret: false,
      roleMappings: [{ group: 'rampart-analysts', role: 'ReadOnly' }],
    });

    await section.getByRole('switch', { name: /Single sign-on only/ }).click();
    await admin.getByText('Single sign-on only is on.').waitFor();
    expect(await rig.rampart.services.sso.ssoOnly(rig.ctx)).toBe(true);
    // The Admin's own password no longer opens a session.
    const refused = await fetch(`${rig.base}/api/latest/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Email: ADMIN.email, Password: ADMIN.password }),
    });
    expect(refused.status).toBe(403);
    expect((await refused.json()).detail).toContain('single sign-on only');
    await admin.close();
  });
});
