import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reverseResolver } from '../../src/scanning/discovery/index.js';
import { discoveryExecutor } from '../../src/scanning/node/discovery-executor.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { createLab, type Lab, labAvailable } from '../lab/lab.js';

const ADMIN = { email: 'admin@example.com', password: 'finds what is on the network' };

// The discovery journey: a fresh install (the server's own scan node, no other process) scans
// an allowed range from the web app. Settings first says nothing may be scanned; the Admin allows
// the lab's /24; a new scan's targets are checked as they are typed; Run now shows live progress,
// then the hosts found, marked New, and the next run marks a host taken away as Gone. The lab is
// network namespaces the test builds (test/lab): no packet leaves for anywhere else.
describe.runIf(HAS_CHROMIUM && labAvailable())('discovery scans in the web app [browser] [lab]', () => {
  let lab: Lab;
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    lab = await createLab([
      { name: 'ssh', index: 10, daemons: ['sshd'], hostname: 'ssh.lab.test' },
      { name: 'web', index: 11, daemons: ['nginx'], hostname: 'web.lab.test' },
      { name: 'quiet', index: 12 },
      { name: 'leaving', index: 13, daemons: ['http'] },
    ]);
    const reverse = reverseResolver({ servers: [lab.dnsServer!], timeoutMs: 2000 });
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          role: 'Admin',
          password: ADMIN.password,
        });
      },
      {
        env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
        scanExecutors: new Map([['Discovery', discoveryExecutor({ reverse })]]),
      },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
    lab?.teardown();
  });

  const range = () => `${lab.hosts.get('ssh')!.address}-${lab.hosts.get('leaving')!.address}`;
  const hostsTable = () => page.getByTestId('hosts-table');

  it('says nothing can be scanned until an Admin allows a range, and links to the setting', async () => {
    await page.goto('/discovery');
    await page.getByRole('heading', { name: 'Discovery scans', level: 1 }).waitFor();
    await page.getByText('Nothing can be scanned yet').waitFor();
    await page.getByRole('link', { name: 'Allow a range in Settings' }).click();
    await page.waitForURL(/\/settings#allowed-targets$/);
    const section = page.getByRole('region', { name: 'Allowed scan targets' });
    await section.getByLabel('Target', { exact: true }).fill(lab.subnet);
    await section.getByRole('button', { name: 'Allow' }).click();
    await section.getByRole('table').getByRole('row').filter({ hasText: lab.subnet }).waitFor();
    await rig.shot(page, '70-discovery-allowed');
  });

  it('checks the targets as they are typed and saves the scan', async () => {
    lab.assertRoutedIntoLab();
    await page.goto('/discovery');
    await page.getByRole('button', { name: 'New scan' }).click();
    const dialog = page.getByRole('dialog', { name: 'New discovery scan' });
    await dialog.getByLabel('Name').fill('Lab sweep');
    await dialog.getByLabel('Targets').fill('198.19.255.0/24');
    await dialog
      .getByTestId('target-check')
      .getByText(/is not inside the allowed scan targets/)
      .waitFor();
    await dialog.getByLabel('Targets').fill(`${range()} lab`);
    await dialog.getByTestId('target-check').getByText('4 addresses').first().waitFor();
    await rig.shot(page, '71-discovery-new-scan');
    await dialog.getByRole('button', { name: 'Create scan' }).click();
    await page.waitForURL(/\/discovery\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Lab sweep', level: 1 }).waitFor();
    await page.getByText('Never run').waitFor();
  });

  it('runs it now, follows its progress and lists the hosts found, New', async () => {
    await page.getByRole('button', { name: 'Run now' }).click();
    const completed = page.getByTestId('runs-table').getByRole('row').filter({ hasText: 'Completed' });
    await expect.poll(() => completed.count(), { timeout: 60_000 }).toBe(1);
    const rows = hostsTable().getByRole('row');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(5); // header and four hosts
    await hostsTable()
      .getByRole('row')
      .filter({ hasText: 'ssh.lab.test' })
      .filter({ hasText: 'New' })
      .waitFor();
    expect(await hostsTable().getByText('New').count()).toBe(4);
    await rig.shot(page, '72-discovery-hosts');
    // The address opens the asset the host became.
    await hostsTable()
      .getByRole('link', { name: lab.hosts.get('ssh')!.address })
      .click();
    await page.waitForURL(/\/assets\/[0-9a-f-]{36}$/);
    await page.goBack();
  });

  it('marks a host taken away as Gone on the next run', async () => {
    lab.removeHost('leaving');
    await page.getByRole('button', { name: 'Run now' }).click();
    const completed = page.getByTestId('runs-table').getByRole('row').filter({ hasText: 'Completed' });
    await expect.poll(() => completed.count(), { timeout: 60_000 }).toBe(2);
    await page.locator('label').filter({ hasText: /^Gone/ }).click();
    await hostsTable().getByRole('row').filter({ hasText: 'Gone' }).waitFor({ timeout: 30_000 });
    await rig.shot(page, '73-discovery-gone');
  });

  it('schedules the scan daily and shows its next run', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit discovery scan' });
    await dialog.getByRole('textbox', { name: 'Schedule' }).click();
    await page.getByRole('option', { name: 'Every day' }).click();
    await dialog.getByLabel('Starting').fill('2030-01-02T03:04');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Daily, next/).waitFor();
    const scans = await rig.rampart.services.discoveryScans.list(rig.ctx, { pageSize: 10 });
    expect(scans.items[0]!.schedule).toMatchObject({ SchedulingMode: 'Daily' });
    await rig.shot(page, '74-discovery-scheduled');
  });
});
