import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ADMIN = { email: 'auditor@example.com', password: 'reads who did what' };
const MANAGER = { email: 'manager@example.com', password: 'manages but audits not' };
// Where the screenshots of this journey go, light and dark, to be looked at.
const SHOTS = process.env.AUDIT_SHOTS ?? '/tmp/shots-audit';

// The audit log page: an Admin signs in, changes a setting, sees it and a failed sign-in in the
// log, filters it, downloads it as CSV; a Manager has no such page.
describe.runIf(HAS_CHROMIUM)('the audit log page [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  const shot = async (name: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(100);
      await page.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
  const table = () => page.getByRole('table');
  const rowsWith = (text: string) => table().getByRole('row').filter({ hasText: text });

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: ADMIN.email,
        name: 'Ada Auditor',
        role: 'Admin',
        password: ADMIN.password,
      });
      await rampart.services.users.create(ctx, {
        email: MANAGER.email,
        name: 'Max Manager',
        role: 'Manager',
        password: MANAGER.password,
      });
    });
    // A failed sign-in of a known user, from this machine.
    const failed = await fetch(`${rig.base}/api/latest/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Email: MANAGER.email, Password: 'a wrong password!' }),
    });
    expect(failed.status).toBe(401);
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('changes the audit log retention in Settings', async () => {
    await page.goto('/settings');
    const section = page.getByRole('region', { name: 'Audit log retention' });
    await section.getByLabel('Keep entries for').waitFor();
    expect(await section.getByLabel('Keep entries for').inputValue()).toBe('365 days');
    await section.getByLabel('Keep entries for').fill('90');
    await section.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Audit log retention saved.').waitFor();
    await expect
      .poll(() => rig.rampart.services.settings.auditRetentionDays(rig.ctx.organizationId))
      .toBe(90);
    await section.scrollIntoViewIfNeeded();
    await shot('10-settings-retention');
  });

  it('shows the sign-in, the failed sign-in and the change, naming who did them', async () => {
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await rowsWith('settings.audit_retention_changed').waitFor();
    const change = rowsWith('settings.audit_retention_changed');
    expect(await change.textContent()).toContain('Ada Auditorauditor@example.com');
    // Details are stored as jsonb, which orders the keys its own way.
    expect(await change.textContent()).toContain('from: 365');
    expect(await change.textContent()).toContain('to: 90');
    expect(await rowsWith('session.signed_in').filter({ hasText: 'Ada Auditor' }).count()).toBe(1);
    const failure = rowsWith('session.sign_in_failed');
    expect(await failure.textContent()).toContain('Max Managermanager@example.com');
    expect(await failure.textContent()).toContain('127.0.0.1');
    expect(await failure.textContent()).not.toContain('a wrong password!');
    await shot('20-audit-log');
  });

  it('filters by action prefix and by actor, and says when nothing matches', async () => {
    const action = page.getByRole('textbox', { name: 'Action' });
    await action.fill('session.');
    await action.press('Enter');
    await page.waitForURL(/Action=session\./);
    await action.press('Escape');
    await rowsWith('settings.audit_retention_changed').waitFor({ state: 'detached' });
    await rowsWith('session.sign_in_failed').waitFor();
    await shot('30-audit-log-filtered');

    // The actor's name in a row narrows to what that actor did.
    await rowsWith('session.sign_in_failed').getByRole('button', { name: 'Max Manager' }).click();
    await page.waitForURL(/Actor=/);
    await rowsWith('session.signed_in').waitFor({ state: 'detached' });
    expect(await table().getByRole('row').count()).toBe(2); // the header and the failure

    await page.goto('/audit-log?TargetId=01900000-0000-7000-8000-000000000000');
    await page.getByText('No entries match these filters').waitFor();
    await shot('40-audit-log-empty');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await rowsWith('settings.audit_retention_changed').waitFor();
  });

  it('downloads the filtered log as CSV, and the download is itself recorded', async () => {
    await page.goto('/audit-log?Action=settings.');
    await rowsWith('settings.audit_retention_changed').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('auditlog.csv');
    const file = await download.path();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(
      'Time,ActorType,ActorId,ActorName,Action,TargetType,TargetId,Details,IpAddress,RequestId,Id',
    );
    expect(lines.slice(1).every((l) => l.includes(',settings.'))).toBe(true);
    expect(lines.some((l) => l.includes('settings.audit_retention_changed'))).toBe(true);
    await page.goto('/audit-log?Action=export.downloaded');
    await rowsWith('export.downloaded').filter({ hasText: 'auditlog' }).waitFor();
  });

  it('is not offered to a Manager', async () => {
    const manager = await rig.signIn(MANAGER, { width: 1366, height: 900 });
    const nav = manager.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Settings' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await manager.goto('/audit-log');
    await manager.getByRole('heading', { level: 1 }).waitFor();
    expect(await manager.getByRole('table').count()).toBe(0);
    await manager.goto('/settings');
    const section = manager.getByRole('region', { name: 'Audit log retention' });
    await section.getByLabel('Keep entries for').waitFor();
    expect(await section.getByRole('button', { name: 'Save retention' }).count()).toBe(0);
    await manager.context().close();
  });
});
