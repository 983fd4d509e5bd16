import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/modules/mfa/totp.js';
import { TestClock } from '../helpers/app.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ADMIN = { email: 'ada@example.com', password: 'ramparts stand firm' };
const ANALYST = { email: 'alan@example.com', password: 'numbers tell stories' };
/** Where this journey's screenshots go, light and dark, to be looked at. */
const SHOTS = process.env.RAMPART_MFA_SHOTS ?? '/tmp/shots-mfa';
const VIEWPORT = { width: 1280, height: 900 };

describe.runIf(HAS_CHROMIUM)('two-step verification in the web app [browser]', () => {
  let rig: BrowserRig;
  // The server's clock: codes are computed at its time, and a step is moved on between uses.
  const clock = new TestClock();
  let adminSecret = '';
  let adminRecoveryCodes: string[] = [];

  beforeAll(async () => {
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
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
      },
      { clock: clock.fn },
    );
    fs.mkdirSync(SHOTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await rig?.close();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  const nextStep = () => {
    clock.now = new Date(clock.now.getTime() + 30_000);
  };
  /** Both themes of what the page shows now. */
  const bothThemes = async (page: Page, name: string) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await shot(page, `${name}-light`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, `${name}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  };

  /** A new browser at the sign-in page, the password given: the page shows whatever comes next. */
  async function passwordStep(who: { email: string; password: string }): Promise<Page> {
    const context = await rig.browser.newContext({ baseURL: rig.base, viewport: VIEWPORT });
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page;
  }

  const signedIn = (page: Page) => page.getByRole('button', { name: 'User menu' }).waitFor();

  it('sets two-step verification up in My profile: QR code, a wrong code refused, recovery codes once', async () => {
    const page = await rig.signIn(ADMIN, VIEWPORT);
    await page.goto('/profile#two-step');
    const section = page.getByRole('region', { name: 'Two-step verification' });
    await section.getByText('Off', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Set up two-step verification' }).click();
    await section.getByRole('img', { name: /QR code/ }).waitFor();
    adminSecret = ((await section.getByTestId('totp-secret').textContent()) ?? '').replace(/\s/g, '');
    expect(adminSecret).toMatch(/^[A-Z2-7]{32}$/);
    await section.scrollIntoViewIfNeeded();
    await bothThemes(page, 'profile-setup');

    await section.getByLabel('Code from the app').fill('000000');
    await section.getByRole('button', { name: 'Turn on' }).click();
    await section.getByText(/not the current code of the new secret/).waitFor();
    await shot(page, 'profile-setup-wrong-code-light');

    await section.getByLabel('Code from the app').fill(totpCode(adminSecret, clock.now));
    await section.getByRole('button', { name: 'Turn on' }).click();
    const list = section.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    adminRecoveryCodes = (await list.getByRole('listitem').allInnerTexts()).map((c) => c.trim());
    expect(adminRecoveryCodes).toHaveLength(10);
    await bothThemes(page, 'profile-recovery-codes');
    await section.getByRole('button', { name: 'Done' }).click();
    await section.getByText('On', { exact: true }).waitFor();
    await section.getByText(/10 of 10 recovery codes left/).waitFor();
    await bothThemes(page, 'profile-on');
    await page.context().close();
  });

  it('asks for the code after the password, says a wrong one clearly, and signs in with the right one', async () => {
    expect(adminSecret).not.toBe('');
    const page = await passwordStep(ADMIN);
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await bothThemes(page, 'sign-in-code');
    await page.getByLabel('Authentication code').fill('123123');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText(/The code is not right: .* 4 tries left\./).waitFor();
    await bothThemes(page, 'sign-in-code-wrong');
    nextStep();
    await page.getByLabel('Authentication code').fill(totpCode(adminSecret, clock.now));
    await page.getByRole('button', { name: 'Verify' }).click();
    await signedIn(page);
    await page.context().close();
  });

  it('signs in with a recovery code instead', async () => {
    const page = await passwordStep(ADMIN);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(adminRecoveryCodes[0]!);
    await shot(page, 'sign-in-recovery-light');
    await page.getByRole('button', { name: 'Verify' }).click();
    await signedIn(page);
    await page.goto('/profile#two-step');
    await page.getByText(/9 of 10 recovery codes left/).waitFor();
    await page.context().close();
  });

  it('sends an expired sign-in back to the password, saying why', async () => {
    const page = await passwordStep(ADMIN);
    await page.getByLabel('Authentication code').waitFor();
    clock.now = new Date(clock.now.getTime() + 6 * 60_000);
    await page.getByLabel('Authentication code').fill(totpCode(adminSecret, clock.now));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText(/This sign-in expired \(it lasts 5 minutes after the password\)/).waitFor();
    await page.getByLabel('Password', { exact: true }).waitFor();
    await bothThemes(page, 'sign-in-expired');
    await page.context().close();
  });

  it('lets an Admin require it; an Analyst without one sets it up at sign-in before getting in', async () => {
    nextStep();
    const admin = await passwordStep(ADMIN);
    await admin.getByLabel('Authentication code').fill(totpCode(adminSecret, clock.now));
    await admin.getByRole('button', { name: 'Verify' }).click();
    await signedIn(admin);
    await admin.goto('/settings');
    const section = admin.getByRole('region', { name: 'Sign-in security' });
    const toggle = section.getByRole('switch', {
      name: 'Require two-step verification for password sign-in',
    });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click({ force: true });
    await admin.getByText('Two-step verification is now required at sign-in.').waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await section.scrollIntoViewIfNeeded();
    await bothThemes(admin, 'settings-require');

    const analyst = await passwordStep(ANALYST);
    await analyst.getByRole('heading', { name: 'Set up two-step verification' }).waitFor();
    await analyst
      .getByRole('img', { name: /QR code/ })
      .waitFor()
      .catch(async (error) => {
        // What the page showed instead, for whoever reads the failure.
        await shot(analyst, 'sign-in-enrol-failed');
        throw error;
      });
    await bothThemes(analyst, 'sign-in-enrol');
    const secret = ((await analyst.getByTestId('totp-secret').textContent()) ?? '').replace(/\s/g, '');
    await analyst.getByLabel('Code from the app').fill('12');
    await analyst.getByRole('button', { name: 'Confirm and sign in' }).click();
    await analyst.getByText('Enter the 6 digits the app shows.').waitFor();
    await analyst.getByLabel('Code from the app').fill(totpCode(secret, clock.now));
    await analyst.getByRole('button', { name: 'Confirm and sign in' }).click();
    await analyst.getByRole('list', { name: 'Recovery codes' }).waitFor();
    await bothThemes(analyst, 'sign-in-enrol-codes');
    // No way into the app but through the codes.
    expect(await analyst.getByRole('button', { name: 'User menu' }).count()).toBe(0);
    await analyst.getByRole('button', { name: /I have saved them/ }).click();
    await signedIn(analyst);
    await analyst.goto('/profile#two-step');
    const own = analyst.getByRole('region', { name: 'Two-step verification' });
    await own.getByText('On', { exact: true }).waitFor();
    // Required: it cannot be turned off here.
    expect(await own.getByRole('button', { name: 'Turn off' }).isDisabled()).toBe(true);
    await analyst.context().close();

    // The Admin resets the Analyst's factor (a lost phone) from the Users page.
    await admin.goto('/users');
    const row = admin.getByRole('row', { name: /alan@example\.com/ });
    await row.getByText('On', { exact: true }).waitFor();
    await admin.emulateMedia({ colorScheme: 'light' });
    await shot(admin, 'users-two-step-light');
    await row.getByRole('button', { name: 'Actions for alan@example.com' }).click();
    await admin.getByRole('menuitem', { name: 'Reset two-step verification' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Reset two-step verification' });
    await dialog.waitFor();
    await bothThemes(admin, 'users-reset-dialog');
    await dialog.getByRole('button', { name: 'Reset two-step verification' }).click();
    await admin.getByText('Two-step verification of alan@example.com was reset.').waitFor();
    await row.getByText('Off', { exact: true }).waitFor();
    await shot(admin, 'users-two-step-reset-light');

    // Next sign-in: set up again, since the organisation requires it.
    const again = await passwordStep(ANALYST);
    await again.getByRole('heading', { name: 'Set up two-step verification' }).waitFor();
    await again.context().close();
    await admin.context().close();
  });
});
