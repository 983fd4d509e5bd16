import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/modules/mfa/totp.js';
import { TestClock } from '../helpers/app.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

// Ada: Admin of Alpha, Read-only in Beta, Analyst in Gamma (which requires two-step verification),
// and an installation Admin. Alan: Analyst of Alpha only, nothing more.
const ADA = { email: 'ada@example.com', password: 'ramparts stand firm' };
const ALAN = { email: 'alan@example.com', password: 'numbers tell stories' };
const VIEWPORT = { width: 1280, height: 860 };
const ALPHA_ASSET = 'alpha-crown-jewel.example';
const BETA_ASSET = 'beta-build-server.example';

describe.runIf(HAS_CHROMIUM)('organisations in the web app [browser]', () => {
  let rig: BrowserRig;
  // The server's clock: codes of the authenticator app are computed at its time.
  const clock = new TestClock(new Date());
  let adaPerson = '';
  let alphaId = '';

  beforeAll(async () => {
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        const { services } = rampart;
        const system = { type: 'system', id: null } as const;
        await services.organizations.rename(ctx.organizationId, 'Alpha Security');
        const ada = await services.users.create(ctx, {
          email: ADA.email,
          name: 'Ada',
          role: 'Admin',
          password: ADA.password,
        });
        adaPerson = ada.personId;
        alphaId = ctx.organizationId;
        await services.users.create(ctx, {
          email: ALAN.email,
          name: 'Alan',
          role: 'Analyst',
          password: ALAN.password,
        });
        await services.users.setInstallationAdmin(ADA.email, true);
        await services.assets.observe(ctx, { kind: 'Host', fqdn: ALPHA_ASSET, source: 'manual' });

        const beta = (await services.installation.create({ kind: 'cli' }, { name: 'Beta Works' }))
          .organization;
        // Ada has a password already: her membership of Beta takes none.
        await services.users.create(
          { organizationId: beta.id, actor: system },
          { email: ADA.email, role: 'ReadOnly' },
        );
        await services.assets.observe(
          { organizationId: beta.id, actor: system },
          { kind: 'Host', fqdn: BETA_ASSET, source: 'manual' },
        );

        const gamma = (await services.installation.create({ kind: 'cli' }, { name: 'Gamma Labs' }))
          .organization;
        await services.users.create(
          { organizationId: gamma.id, actor: system },
          { email: ADA.email, role: 'Analyst' },
        );
        await services.settings.setRequireMfa({ organizationId: gamma.id, actor: system }, true);
      },
      { clock: clock.fn },
    );
  }, 180_000);
  afterAll(async () => {
    await rig?.close();
  });
  // A sign-in lands in the organisation the person was last in: each journey starts in Alpha.
  beforeEach(async () => {
    await rig.rampart.services.users.rememberOrganization(adaPerson, alphaId);
  });

  const shot = async (page: Page, name: string) => {
    // Dialogs and menus fade in and out: the picture once they have.
    await page.waitForTimeout(400);
    await rig.shot(page, `organizations-${name}`);
  };
  /** Closes the notifications, which cover the header's right side. */
  const dismissNotifications = async (page: Page) => {
    for (const close of await page.locator('.mantine-Notification-closeButton').all()) await close.click();
    await page.locator('.mantine-Notification-root').first().waitFor({ state: 'detached' });
  };
  /** Both themes of what the page shows now. */
  const bothThemes = async (page: Page, name: string) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await shot(page, `${name}-light`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, `${name}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  };
  const switcher = (page: Page) => page.getByRole('button', { name: /^Organisation: / });
  const navLink = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name, exact: true });

  async function switchTo(page: Page, name: string): Promise<void> {
    await switcher(page).click();
    await page.getByRole('menuitem', { name: new RegExp(`^${name}`) }).click();
  }

  it('switches between organisations from the header: the role and the data follow, nothing of the old one stays', async () => {
    const page = await rig.signIn(ADA, VIEWPORT);
    await expect(switcher(page).textContent()).resolves.toBe('Alpha Security');
    await navLink(page, 'Assets').click();
    await page.getByRole('link', { name: ALPHA_ASSET }).waitFor();
    await page.getByRole('button', { name: 'Add asset' }).waitFor();
    expect(await navLink(page, 'Users').count()).toBe(1);

    await switcher(page).click();
    const menu = page.getByRole('menu');
    await menu.getByRole('menuitem', { name: /^Beta Works/ }).waitFor();
    expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual([
      expect.stringMatching(/Alpha Security\s*Admin/),
      expect.stringMatching(/Beta Works\s*Read-only/),
      expect.stringMatching(/Gamma Labs\s*Analyst/),
    ]);
    await bothThemes(page, 'switcher-menu');

    await menu.getByRole('menuitem', { name: /^Beta Works/ }).click();
    await page.getByText('Now in Beta Works, as Read-only.').waitFor();
    await page.waitForURL(`${rig.base}/`);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText(/You are signed in to Beta Works\./).waitFor();
    await shot(page, 'switched-notification-light');
    await dismissNotifications(page);
    await expect(switcher(page).textContent()).resolves.toBe('Beta Works');
    await bothThemes(page, 'switched-overview');

    // Read-only in Beta: no Admin pages, no adding assets; Beta's assets, none of Alpha's (whose
    // list the app had loaded a moment ago).
    expect(await navLink(page, 'Users').count()).toBe(0);
    await navLink(page, 'Assets').click();
    await page.getByRole('link', { name: BETA_ASSET }).waitFor();
    expect(await page.getByText(ALPHA_ASSET).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add asset' }).count()).toBe(0);
    await shot(page, 'switched-assets-light');
    // The Admin-only page says the role does not allow it, here.
    await page.goto('/users');
    await page.getByText(/your role does not allow it/).waitFor();

    // Back, with the new session's CSRF token (the old session ended).
    await switchTo(page, 'Alpha Security');
    await page.getByText('Now in Alpha Security, as Admin.').waitFor();
    await expect(switcher(page).textContent()).resolves.toBe('Alpha Security');
    await navLink(page, 'Assets').click();
    await page.getByRole('link', { name: ALPHA_ASSET }).waitFor();
    expect(await page.getByText(BETA_ASSET).count()).toBe(0);
    await navLink(page, 'Users').waitFor();
    await page.context().close();
  });

  it('takes the second step an organisation asks for before switching into it', async () => {
    const page = await rig.signIn(ADA, VIEWPORT);
    await switchTo(page, 'Gamma Labs');
    const dialog = page.getByRole('dialog', { name: 'Switch to Gamma Labs' });
    await dialog.getByRole('heading', { name: 'Set up two-step verification' }).waitFor();
    await dialog.getByRole('img', { name: /QR code/ }).waitFor();
    await bothThemes(page, 'switch-enrol');
    const secret = ((await dialog.getByTestId('totp-secret').textContent()) ?? '').replace(/\s/g, '');
    await dialog.getByLabel('Code from the app').fill(totpCode(secret, clock.now));
    await dialog.getByRole('button', { name: 'Confirm and sign in' }).click();
    await dialog
      .getByRole('list', { name: 'Recovery codes' })
      .waitFor()
      .catch(async (error) => {
        // What the dialog showed instead, for whoever reads the failure.
        await shot(page, 'switch-enrol-failed');
        throw new Error(`${error}\n${await dialog.textContent()}`);
      });
    // Still in Alpha until the codes have been seen.
    await expect(switcher(page).textContent()).resolves.toBe('Alpha Security');
    await dialog.getByRole('button', { name: /I have saved them/ }).click();
    await page.getByText('Now in Gamma Labs, as Analyst.').waitFor();
    await expect(switcher(page).textContent()).resolves.toBe('Gamma Labs');
    expect(await dialog.count()).toBe(0);

    // Back to Alpha (no second step there), then to Gamma again: now a code, and a way out.
    await switchTo(page, 'Alpha Security');
    await page.getByText('Now in Alpha Security, as Admin.').waitFor();
    await switchTo(page, 'Gamma Labs');
    await dialog.getByLabel('Authentication code').waitFor();
    await shot(page, 'switch-code-light');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(switcher(page).textContent()).resolves.toBe('Alpha Security');
    // And through, with the code of the next step (a code works once).
    clock.now = new Date(clock.now.getTime() + 30_000);
    await switchTo(page, 'Gamma Labs');
    await dialog.getByLabel('Authentication code').fill(totpCode(secret, clock.now));
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Now in Gamma Labs, as Analyst.').waitFor();
    await expect(switcher(page).textContent()).resolves.toBe('Gamma Labs');
    await page.context().close();
  });

  it('lets the installation Admin create, rename, deactivate and reactivate an organisation', async () => {
    const page = await rig.signIn(ADA, VIEWPORT);
    await navLink(page, 'Organisations').click();
    await page.waitForURL(`${rig.base}/installation/organizations`);
    const table = page.getByRole('table');
    for (const name of ['Alpha Security', 'Beta Works', 'Gamma Labs'])
      await table.getByRole('row', { name: new RegExp(name) }).waitFor();
    await expect(table.getByRole('row', { name: /Alpha Security/ }).textContent()).resolves.toMatch(
      /you are here.*Active/,
    );
    await bothThemes(page, 'page');

    // Bad input: no name, then a name taken already.
    await page.getByRole('button', { name: 'New organisation' }).click();
    const dialog = page.getByRole('dialog', { name: 'New organisation' });
    await dialog.getByRole('button', { name: 'Create organisation' }).click();
    await dialog.getByText('Enter a name.').waitFor();
    await dialog.getByLabel('Name').fill('beta works');
    await dialog.getByRole('button', { name: 'Create organisation' }).click();
    await dialog.getByText('An organisation named "Beta Works" exists already.').waitFor();
    await shot(page, 'new-duplicate-light');

    // A new person as its Admin: their password, once.
    await dialog.getByLabel('Name').fill('Delta Partners');
    await dialog.getByLabel('Admin email').fill('dana@delta.example');
    await bothThemes(page, 'new-form');
    await dialog.getByRole('button', { name: 'Create organisation' }).click();
    const password = ((await dialog.getByTestId('new-organization-password').textContent()) ?? '').trim();
    expect(password.length).toBeGreaterThanOrEqual(12);
    await dialog.getByRole('button', { name: 'Copy password' }).waitFor();
    await bothThemes(page, 'new-password');
    await dialog.getByRole('button', { name: 'Done' }).click();
    const delta = table.getByRole('row', { name: /Delta Partners/ });
    await expect(delta.textContent()).resolves.toMatch(/Active\s*1/);

    // Dana signs in with it, into Delta Partners.
    const dana = await rig.signIn({ email: 'dana@delta.example', password }, VIEWPORT);
    await dana.getByText('Delta Partners', { exact: true }).waitFor();

    await delta.getByRole('button', { name: 'Actions for Delta Partners' }).click();
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename organisation' });
    await rename.getByLabel('Name').fill('Delta Partners EU');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Delta Partners is now Delta Partners EU.').waitFor();
    const renamed = table.getByRole('row', { name: /Delta Partners EU/ });
    await renamed.waitFor();

    await renamed.getByRole('button', { name: 'Actions for Delta Partners EU' }).click();
    await page.getByRole('menuitem', { name: 'Deactivate' }).click();
    const deactivate = page.getByRole('dialog', { name: 'Deactivate organisation' });
    await expect(deactivate.textContent()).resolves.toMatch(
      /signed out at once[\s\S]*API keys stop[\s\S]*data is kept/,
    );
    await bothThemes(page, 'deactivate');
    await deactivate.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByText('Delta Partners EU deactivated.').waitFor();
    await expect(renamed.textContent()).resolves.toMatch(/Deactivated/);
    await bothThemes(page, 'deactivated');

    // Dana's session ended with it.
    await dana.reload();
    await dana.getByRole('heading', { name: 'Sign in' }).waitFor();
    await dana.context().close();

    // Not the organisation one works in: the dialog says why, and offers no way to.
    await table
      .getByRole('row', { name: /Alpha Security/ })
      .getByRole('button', { name: 'Actions for Alpha Security' })
      .click();
    await page.getByRole('menuitem', { name: 'Deactivate' }).click();
    const own = page.getByRole('dialog', { name: 'Deactivate organisation' });
    await own.getByText('You are working in this organisation: switch to another one first.').waitFor();
    expect(await own.getByRole('button', { name: 'Deactivate' }).isDisabled()).toBe(true);
    await shot(page, 'deactivate-current-light');
    await own.getByRole('button', { name: 'Cancel' }).click();
    await own.waitFor({ state: 'detached' });

    await renamed.getByRole('button', { name: 'Actions for Delta Partners EU' }).click();
    await page.getByRole('menuitem', { name: 'Reactivate' }).click();
    await page
      .getByRole('dialog', { name: 'Reactivate organisation' })
      .getByRole('button', { name: 'Reactivate' })
      .click();
    await page.getByText('Delta Partners EU reactivated.').waitFor();
    await expect(renamed.textContent()).resolves.toMatch(/Active/);
    await page.context().close();
  });

  it('shows a single sign-on session the other organisations disabled, saying why', async () => {
    // What the server says of a session started by single sign-on (bound to its organisation: a
    // switch would be a 403), without an identity provider: the session's answer, rewritten.
    const page = await rig.signIn(ADA, VIEWPORT);
    await page.route('**/api/latest/session', async (route) => {
      const answer = await route.fetch();
      await route.fulfill({
        response: answer,
        json: { ...(await answer.json()), SignedInWith: 'SingleSignOn' },
      });
    });
    await page.reload();
    await switcher(page).click();
    const menu = page.getByRole('menu');
    await menu
      .getByText(/You signed in through single sign-on, which vouches for Alpha Security only/)
      .waitFor();
    for (const name of ['Beta Works', 'Gamma Labs'])
      expect(await menu.getByRole('menuitem', { name: new RegExp(`^${name}`) }).isDisabled()).toBe(true);
    await bothThemes(page, 'switcher-sso');
    await page.context().close();
  });

  it('shows someone who is not an installation Admin neither the page nor the entry', async () => {
    const page = await rig.signIn(ALAN, VIEWPORT);
    // One organisation: its name, no menu.
    await page.getByText('Alpha Security', { exact: true }).waitFor();
    expect(await switcher(page).count()).toBe(0);
    expect(await navLink(page, 'Organisations').count()).toBe(0);
    await page.goto('/installation/organizations');
    await page.getByText('Only installation Admins', { exact: true }).waitFor();
    await bothThemes(page, 'not-allowed');
    const answer = await page.evaluate(
      async () => (await fetch('/api/latest/installation/organizations')).status,
    );
    expect(answer).toBe(403);
    await page.context().close();
  });
});
