import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ADMIN = { email: 'admin@example.com', password: 'ramparts stand firm' };
const ANALYST = { email: 'analyst@example.com', password: 'numbers tell stories' };

// Runs wherever Chromium is installed; CI installs it and fails if this suite was skipped.
describe.runIf(HAS_CHROMIUM)('web application in Chromium [browser]', () => {
  let rig: BrowserRig;
  let browser: Browser;
  let base = '';

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: ADMIN.email,
        name: 'Ada Admin',
        role: 'Admin',
        password: ADMIN.password,
      });
      await rampart.services.users.create(ctx, {
        email: ANALYST.email,
        name: 'Alan Analyst',
        role: 'Analyst',
        password: ANALYST.password,
      });
    });
    browser = rig.browser;
    base = rig.base;
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
    return context.newPage();
  }

  async function signIn(page: Page, who: { email: string; password: string }, next = '') {
    await page.goto(`/sign-in${next}`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  // The viewport as a user sees it (a full-page capture would paint the fixed header mid-page).
  const shot = (page: Page, name: string) => rig.shot(page, name);

  it('signs in as the admin, creates a key in My profile, uses it, revokes it', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await shot(page, '01-sign-in');
    await signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Get started with the API' }).waitFor();
    // A new, empty organisation: its Admin is offered demo data.
    await page.getByRole('button', { name: 'Load demo data' }).waitFor();
    await page.getByText('embedded', { exact: false }).first().waitFor();
    await shot(page, '02-overview');

    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'My profile' }).click();
    await page.getByRole('heading', { name: 'My profile' }).waitFor();
    await page.getByRole('heading', { name: 'Configure API Keys' }).waitFor();
    await shot(page, '03-profile');

    await page.getByRole('button', { name: 'Add API key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Browser test key');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const accessKey = (await dialog.getByTestId('new-access-key').textContent())?.trim() ?? '';
    const secretKey = (await dialog.getByTestId('new-secret-key').textContent())?.trim() ?? '';
    expect(accessKey).toMatch(/^[A-Z0-9]{20}$/);
    expect(secretKey).toMatch(/^[A-Za-z0-9]{40}$/);
    const curl = (await dialog.getByTestId('new-curl').textContent()) ?? '';
    expect(curl).toContain(`${base}/api/integration/authenticationcheck`);
    expect(curl).toContain(accessKey);
    await shot(page, '04-new-key');

    const check = () =>
      fetch(`${base}/api/integration/authenticationcheck`, {
        headers: { ApiAccessKey: accessKey, ApiSecretKey: secretKey },
      });
    const ok = await check();
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('Authenticated');

    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('new-secret-key').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke Browser test key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect.poll(async () => (await check()).status).toBe(401);
    await page.getByText('Revoked').first().waitFor();
    await shot(page, '05-profile-revoked');
    await page.context().close();
  });

  it('shows an error on a wrong password', async () => {
    const page = await newPage();
    await signIn(page, { email: ADMIN.email, password: 'not the password' });
    await page.getByText('The email or password is incorrect.').waitFor();
    await shot(page, '06-sign-in-error');
    expect(page.url()).toContain('/sign-in');
    await page.context().close();
  });

  it('signs in with the keyboard alone', async () => {
    const page = await newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email').focus();
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'User menu' }).waitFor();
    // Then reach My profile with the keyboard: focus the user menu, open it, choose the item.
    await page.getByRole('button', { name: 'User menu' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'My profile' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'My profile' }).waitFor();
    await page.context().close();
  });

  it('lets an Admin manage users and hides the Users page from an Analyst', async () => {
    const admin = await newPage();
    await signIn(admin, ADMIN);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByRole('heading', { name: 'Users' }).waitFor();
    await admin.getByText(ANALYST.email).waitFor();
    await shot(admin, '07-users');
    await admin.context().close();

    const analyst = await newPage();
    await signIn(analyst, ANALYST);
    await analyst.getByRole('button', { name: 'User menu' }).waitFor();
    expect(await analyst.getByRole('link', { name: 'Users' }).count()).toBe(0);
    await analyst.goto('/users');
    await analyst.getByRole('button', { name: 'User menu' }).waitFor();
    expect(await analyst.getByRole('heading', { name: 'Users' }).count()).toBe(0);
    expect(await analyst.getByText(ADMIN.email).count()).toBe(0);
    await shot(analyst, '08-analyst-users');
    await analyst.context().close();
  });

  it('makes the old cookie useless after sign-out', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.getByRole('button', { name: 'User menu' }).waitFor();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'rampart_session');
    expect(cookie?.httpOnly).toBe(true);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const res = await fetch(`${base}/api/latest/session`, {
      headers: { cookie: `rampart_session=${cookie?.value}` },
    });
    expect(res.status).toBe(401);
    await page.context().close();
  });

  it('sends an expired session back to sign-in, then returns to the page', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.getByRole('button', { name: 'User menu' }).waitFor();
    await page.context().clearCookies();
    await page.goto('/profile');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(page.url()).toContain('next=');
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'My profile' }).waitFor();
    await page.goto('/no-such-page');
    await page.getByText('Page not found').waitFor();
    await shot(page, '09-not-found');
    await page.context().close();
  });

  it('has a dark theme and a collapsible navigation on a narrow screen', async () => {
    const context = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    const page = await context.newPage();
    await signIn(page, ADMIN, '?next=/profile');
    await page.getByRole('heading', { name: 'Configure API Keys' }).scrollIntoViewIfNeeded();
    await shot(page, '10-profile-dark-narrow');
    // Runs in the page, where the DOM exists; this file is compiled without DOM types.
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).not.toBe('rgb(255, 255, 255)');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await shot(page, '11-users-dark-narrow');
    await context.close();
  });

  it('loads demo data for a new organisation from the overview', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.getByRole('button', { name: 'Load demo data' }).click();
    await page.getByText(/Loaded 17 assets and \d+ findings of demo data/).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Load demo data' }).count()).toBe(0);
    await page.getByLabel(/Critical: \d+ open/).waitFor();
    await shot(page, '12-overview-with-demo');
    await page.context().close();
  });
});
