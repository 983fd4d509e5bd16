import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DISCOVERY_TEMPLATE_ID } from '../../src/modules/scantemplates/built-in.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import {
  discoveryExecutor,
  fieldError,
  type SystemScript,
  systemExecutor,
  type WebScript,
  webExecutor,
} from '../helpers/scan-executors.js';

const ADMIN = { email: 'admin@example.com', password: 'keeps the scans in order' };
const SSH_HOST = '198.18.0.40';
const WEB_HOST = '198.18.0.41';

// A scan group that follows a discovery scan, made in the web app: a bad port range is refused
// next to its field; once saved, the discovery scan's run adds a system scan per host it found and
// a web scan per HTTP(S) port, and the group's page lists them. The server's own node runs test
// executors (the discovery one "finds" the two hosts): no packet leaves the machine.
describe.runIf(HAS_CHROMIUM)('scan groups in the web app [browser]', () => {
  const system: SystemScript = { hosts: new Map(), specs: [] };
  const web: WebScript = { urls: new Map(), specs: [] };
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          role: 'Admin',
          password: ADMIN.password,
        });
        await rampart.services.allowedTargets.create(ctx, { kind: 'Allowed', target: '198.18.0.0/24' });
        await rampart.services.discoveryScans.create(ctx, {
          name: 'Office sweep',
          targets: [{ range: '198.18.0.40-198.18.0.41' }],
          exclusions: [],
          templateId: DEFAULT_DISCOVERY_TEMPLATE_ID,
          nodeId: null,
          notifications: [],
          responsibleUserId: null,
          schedule: null,
        });
      },
      {
        env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
        scanExecutors: new Map([
          [
            'Discovery',
            discoveryExecutor(
              new Map([
                [SSH_HOST, [22]],
                [WEB_HOST, [80, 443]],
              ]),
            ),
          ],
          ['System', systemExecutor(system)],
          ['Web', webExecutor(web)],
        ]),
      },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('refuses a bad port range next to its field, then saves the group with its monitoring', async () => {
    await page.getByRole('link', { name: 'Scan groups' }).click();
    await page.getByRole('heading', { name: 'Scan groups', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New scan group' }).click();
    const dialog = page.getByRole('dialog', { name: 'New scan group' });
    await dialog.getByLabel('Name').fill('Office');
    await dialog.getByRole('button', { name: 'Add monitoring' }).click();
    const monitor = dialog.getByRole('group', { name: 'Monitoring 1' });
    await monitor.getByRole('textbox', { name: 'Discovery scan' }).click();
    await page.getByRole('option', { name: 'Office sweep' }).click();
    await monitor.getByLabel('Track web servers with web scans').check();
    const http = monitor.getByRole('textbox', { name: 'HTTP ports' });
    await http.fill('80-abc');
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await expect.poll(() => fieldError(http)).toMatch(/80-abc/);
    await rig.shot(page, '90-scan-group-refused');

    await http.fill('80');
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/\/scan-groups\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Office', level: 1 }).waitFor();
    await page
      .getByRole('region', { name: 'Asset monitoring' })
      .getByRole('link', { name: 'Office sweep' })
      .waitFor();
  });

  it('lists the system and web scans the discovery run added to the group', {
    timeout: 150_000,
  }, async () => {
    const groupUrl = page.url();
    await page.goto('/discovery');
    await page
      .getByRole('row')
      .filter({ hasText: 'Office sweep' })
      .getByRole('button', { name: 'Run now' })
      .click();
    await page.goto(groupUrl);
    const links = (name: string) => page.getByRole('region', { name, exact: true }).getByRole('link');
    // The page asks again on load: reload until the monitoring (a durable job) has done its work.
    const countAfterReload = async (name: string) => {
      await page.reload();
      await page.getByRole('heading', { name: 'Office', level: 1 }).waitFor();
      const region = page.getByRole('region', { name, exact: true });
      await region.getByRole('table').or(region.getByText('None yet.')).waitFor();
      return links(name).count();
    };
    // A web scan for each HTTP(S) port of the web host: http on 80, https on 443.
    await expect.poll(() => countAfterReload('Web scans'), { timeout: 60_000, interval: 1000 }).toBe(2);
    await links('Web scans').filter({ hasText: WEB_HOST }).first().waitFor();
    // A system scan for each host.
    await expect.poll(() => countAfterReload('System scans'), { timeout: 60_000, interval: 1000 }).toBe(2);
    await links('System scans').filter({ hasText: SSH_HOST }).waitFor();
    await rig.shot(page, '91-scan-group');
    await links('System scans').filter({ hasText: SSH_HOST }).click();
    await page.waitForURL(/\/system-scans\/[0-9a-f-]{36}$/);
  });
});
