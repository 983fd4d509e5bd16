import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ADMIN = { email: 'admin@example.com', password: 'keeps scans on their ranges' };
const READER = { email: 'reader@example.com', password: 'only looks at the ranges' };

// Allowed scan targets in Settings: empty at first, entries checked live by the server
// as they are typed, added and removed by an Admin, read by everyone else.
describe.runIf(HAS_CHROMIUM)('allowed scan targets in Settings [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: ADMIN.email,
        role: 'Admin',
        password: ADMIN.password,
      });
      await rampart.services.users.create(ctx, {
        email: READER.email,
        role: 'ReadOnly',
        password: READER.password,
      });
    });
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const section = () => page.getByRole('region', { name: 'Allowed scan targets' });
  const targetInput = () => section().getByLabel('Target', { exact: true });
  const policy = () => rig.rampart.services.allowedTargets.policy(rig.ctx.organizationId);

  it('opens at its anchor and says nothing can be scanned until a range is allowed', async () => {
    await page.goto('/settings#allowed-targets');
    await section().getByRole('heading', { name: 'Allowed scan targets' }).waitFor();
    await section().getByText('nothing can be scanned until an Admin allows a range').waitFor();
    await rig.shot(page, '60-allowed-targets-empty');
  });

  it('refuses an always-refused or too large range as it is typed', async () => {
    await targetInput().fill('169.254.169.254');
    await section().getByText('169.254.169.254 is in the link-local block').waitFor();
    expect(await section().getByRole('button', { name: 'Allow' }).isDisabled()).toBe(true);
    await rig.shot(page, '61-allowed-targets-refused');
    await targetInput().fill('198.18.0.0/15');
    await section()
      .getByText(/198\.18\.0\.0\/15 has 131,072 addresses/)
      .waitFor();
    await targetInput().fill('198.18.0.0/24');
    await section().getByText('254 addresses to scan.').waitFor();
    expect(await section().getByRole('button', { name: 'Allow' }).isDisabled()).toBe(false);
  });

  it('allows a range and excludes an address in it', async () => {
    await section().getByLabel('Description').fill('Benchmark lab');
    await section().getByRole('button', { name: 'Allow' }).click();
    const table = section().getByRole('table', { name: 'Allowed and excluded scan targets' });
    await table
      .getByRole('row')
      .filter({ hasText: '198.18.0.0/24' })
      .filter({ hasText: 'Benchmark lab' })
      .waitFor();
    expect(await targetInput().inputValue()).toBe('');

    await section()
      .locator('label', { hasText: /^Exclude$/ })
      .click();
    await targetInput().fill('198.18.0.7');
    await section().getByText('1 address to scan.').waitFor();
    await section().getByRole('button', { name: 'Exclude' }).click();
    await table.getByRole('row').filter({ hasText: '198.18.0.7' }).filter({ hasText: 'Excluded' }).waitFor();
    await expect
      .poll(policy)
      .toEqual({ allowed: ['198.18.0.0/24'], excluded: ['198.18.0.7'], allowLoopback: false });
    await rig.shot(page, '62-allowed-targets-list');
  });

  it('shows the server’s refusal of a duplicate next to the field', async () => {
    await section()
      .locator('label', { hasText: /^Allow$/ })
      .click();
    await targetInput().fill('198.18.0.0-198.18.0.255');
    // A first-last range scans every address in it, its ends included.
    await section().getByText('256 addresses to scan.').waitFor();
    await section().getByRole('button', { name: 'Allow' }).click();
    await section().getByText('198.18.0.0/24 is already allowed for scans.').waitFor();
    await targetInput().fill('');
  });

  it('removes an entry after asking', async () => {
    await section().getByRole('button', { name: 'Remove 198.18.0.7' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove scan target' });
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(policy).toEqual({ allowed: ['198.18.0.0/24'], excluded: [], allowLoopback: false });
    expect(await section().getByRole('row').filter({ hasText: '198.18.0.7' }).count()).toBe(0);
  });

  it('lets a ReadOnly user see the list but not change it', async () => {
    const reader = await rig.signIn(READER, { width: 1366, height: 900 });
    await reader.goto('/settings#allowed-targets');
    const readerSection = reader.getByRole('region', { name: 'Allowed scan targets' });
    await readerSection.getByRole('row').filter({ hasText: '198.18.0.0/24' }).waitFor();
    await readerSection.getByText('Only Admins can allow or exclude scan targets').waitFor();
    expect(await readerSection.getByLabel('Target', { exact: true }).count()).toBe(0);
    expect(await readerSection.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await reader.context().close();
  });
});
