import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DISCOVERY_TEMPLATE_ID } from '../../src/modules/scantemplates/built-in.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ANALYST = { email: 'analyst@example.com', password: 'numbers tell stories' };
const ADMIN = { email: 'admin@example.com', password: 'ramparts stand firm' };
/** Where this journey's screenshots go, light and dark, to be looked at. */
const SHOTS = process.env.RAMPART_EMAIL_SHOTS ?? '/tmp/shots-email';

describe.runIf(HAS_CHROMIUM)('email notification preferences in My profile [browser]', () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: ANALYST.email,
        name: 'Alan Analyst',
        role: 'Analyst',
        password: ANALYST.password,
      });
      await rampart.services.users.create(ctx, {
        email: ADMIN.email,
        name: 'Ada Admin',
        role: 'Admin',
        password: ADMIN.password,
      });
      // A discovery scan whose MessageNotification (as the original's clients set it) owns a rule.
      await rampart.services.allowedTargets.create(ctx, {
        kind: 'Allowed',
        target: '198.18.0.0/24',
        description: null,
      });
      await rampart.services.discoveryScans.create(ctx, {
        name: 'Office',
        targets: [{ range: '198.18.0.0/28', name: 'Office', exclude: [] }],
        exclusions: [],
        templateId: DEFAULT_DISCOVERY_TEMPLATE_ID,
        nodeId: null,
        notifications: [{ emailAddresses: ['soc@example.com'], level: 'ScanStartsEnds' }],
        responsibleUserId: null,
        schedule: null,
      });
    });
    fs.mkdirSync(SHOTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await rig?.close();
  });

  const section = (page: Page) => page.getByRole('region', { name: 'Email notifications' });
  const shoot = async (page: Page, name: string) => {
    await section(page).screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };

  it('toggles a preference, saves it, and a reload shows it; says email is not configured', async () => {
    const page = await rig.signIn(ANALYST, { width: 1280, height: 900 });
    await page.goto('/profile#notifications');
    const region = section(page);
    await region.getByRole('checkbox', { name: 'Scan failed' }).waitFor();
    // No SMTP server in this rig: the page says so rather than pretending.
    await region.getByText('Email is not configured').waitFor();
    await expect(region.getByText('analyst@example.com')).toBeTruthy();
    // Admins' event types are not offered to an Analyst.
    expect(await region.getByRole('checkbox', { name: 'API key created' }).count()).toBe(0);
    const save = region.getByRole('button', { name: 'Save notification preferences' });
    expect(await save.isDisabled()).toBe(true);
    await shoot(page, 'email-preferences-empty-light');

    await region.getByRole('checkbox', { name: 'Scan failed' }).check();
    await region.getByRole('checkbox', { name: 'Known exploited vulnerability found' }).check();
    await region.getByRole('radio', { name: 'Daily digest' }).check();
    await save.click();
    await page.getByText('Notification preferences saved.').waitFor();
    await page.getByText(/Last saved/).waitFor();
    await shoot(page, 'email-preferences-saved-light');

    await page.reload();
    await section(page).getByRole('checkbox', { name: 'Scan failed' }).waitFor();
    expect(await section(page).getByRole('checkbox', { name: 'Scan failed' }).isChecked()).toBe(true);
    expect(
      await section(page).getByRole('checkbox', { name: 'Known exploited vulnerability found' }).isChecked(),
    ).toBe(true);
    expect(await section(page).getByRole('checkbox', { name: 'Scan completed' }).isChecked()).toBe(false);
    expect(await section(page).getByRole('radio', { name: 'Daily digest' }).isChecked()).toBe(true);

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await section(page).getByRole('checkbox', { name: 'Scan failed' }).waitFor();
    await shoot(page, 'email-preferences-saved-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await shoot(page, 'email-preferences-narrow-dark');
  });

  it('shows a scan’s MessageNotification rule as managed by the scan, linking there, not editable', async () => {
    const page = await rig.signIn(ADMIN, { width: 1280, height: 800 });
    await page.goto('/notifications');
    const row = page.getByRole('row', { name: /Discovery scan Office/ });
    await row.getByText('Managed by the discovery scan').waitFor();
    expect(await row.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    expect(await row.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    expect(await row.getByText('scan.started').count()).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'notification-rules-managed-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(SHOTS, 'notification-rules-managed-dark.png') });
    await row.getByRole('link', { name: 'Office' }).click();
    await page.waitForURL(/\/discovery\/[0-9a-f-]{36}$/);
  });
});
