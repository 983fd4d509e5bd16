import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/demo/seed.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import {
  httpsService,
  legacyTls,
  type SystemScript,
  sshService,
  systemExecutor,
} from '../helpers/scan-executors.js';

const ADMIN = { email: 'admin@example.com', password: 'checks it is really gone' };
const HOST = '198.18.0.30';
const TLS_TITLE = 'TLS 1.0 or TLS 1.1 accepted';

// Verify in the web app: on a finding of a system scan it starts a run of that scan on the
// finding's port only; on a selection mixing it with an imported finding it says which started and
// which was skipped, with the server's reason; on a ticket it verifies the ticket's findings. The
// scan node runs a test executor that records each run's spec (no packet leaves the machine).
describe.runIf(HAS_CHROMIUM)('Verify in the web app [browser]', () => {
  const script: SystemScript = { hosts: new Map(), specs: [] };
  let rig: BrowserRig;
  let page: Page;
  let findingUrl = '';

  beforeAll(async () => {
    script.hosts.set(HOST, { services: [sshService(), httpsService()], checks: [legacyTls()] });
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          role: 'Admin',
          password: ADMIN.password,
        });
        await rampart.services.allowedTargets.create(ctx, { kind: 'Allowed', target: '198.18.0.0/24' });
        await loadDemo(rampart.services, ctx);
      },
      {
        env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
        scanExecutors: new Map([['System', systemExecutor(script)]]),
      },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
    // A scan that has found the TLS finding, made and run through the pages.
    await page.goto('/system-scans');
    await page.getByRole('button', { name: 'New system scan' }).click();
    const dialog = page.getByRole('dialog', { name: 'New system scan' });
    await dialog.getByLabel('Name').fill('Mail relay');
    await dialog.getByLabel('Targets').fill(HOST);
    await dialog.getByRole('button', { name: 'Create scan' }).click();
    await page.waitForURL(/\/system-scans\/[0-9a-f-]{36}$/);
    await page.getByRole('button', { name: 'Run now' }).click();
    await page
      .getByTestId('scan-findings')
      .getByRole('link', { name: TLS_TITLE })
      .waitFor({ timeout: 60_000 });
  }, 240_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('starts a run of the scan on the finding’s port only from the finding page', async () => {
    await page.getByTestId('scan-findings').getByRole('link', { name: TLS_TITLE }).click();
    await page.waitForURL(/\/findings\/[0-9a-f-]{36}$/);
    findingUrl = page.url();
    await page.getByRole('button', { name: 'Verify' }).click();
    const result = page.getByRole('dialog', { name: 'Verify' });
    await result.getByText('Started 1 run').waitFor();
    await result.getByText(/System scan, 1 finding/).waitFor();
    await rig.shot(page, '87-verify-finding');
    // The run the node got: the finding's address, only its port.
    await expect.poll(() => script.specs.length, { timeout: 30_000 }).toBe(2);
    const verify = script.specs[1]!;
    expect(verify.targets.map((t) => t.range)).toEqual([HOST]);
    expect(verify.portsOverride).toBe('443');
    await result.getByRole('link', { name: 'Open the scan' }).click();
    await page.getByRole('heading', { name: 'Mail relay', level: 1 }).waitFor();
  });

  it('says which findings of a selection were verified and why the others were not', async () => {
    // Let the Verify run end first: a run under way makes the next start wait or refuse.
    await page.getByRole('button', { name: 'Run now' }).waitFor({ timeout: 60_000 });
    const boxes = page.getByRole('checkbox', { name: /^Select (?!all shown)/ });
    // An imported finding of the demo estate.
    await page.goto('/findings?Search=OpenSSH');
    await boxes.first().waitFor();
    const imported = boxes.first();
    const importedTitle = ((await imported.getAttribute('aria-label')) ?? '').replace(/^Select /, '');
    // The selection lives on one list: select both on the list that shows both.
    await page.goto('/findings?State=Open&State=Reopened');
    await boxes.first().waitFor();
    await page
      .getByRole('checkbox', { name: `Select ${TLS_TITLE}` })
      .first()
      .check();
    await page
      .getByRole('checkbox', { name: `Select ${importedTitle}` })
      .first()
      .check();
    await page
      .getByRole('toolbar', { name: 'Actions on the selected findings' })
      .getByRole('button', { name: 'Verify' })
      .click();
    const result = page.getByRole('dialog', { name: 'Verify' });
    await result.getByText('Started 1 run').waitFor();
    await result.getByText('Not verified: 1 finding').waitFor();
    await result
      .getByRole('listitem')
      .filter({ hasText: importedTitle })
      .getByText(/Rampart can only verify/)
      .waitFor();
    await rig.shot(page, '88-verify-selection');
    await result.getByRole('button', { name: 'Close' }).click();
  });

  it('verifies the findings of a ticket', async () => {
    const id = findingUrl.split('/').pop() ?? '';
    const ticket = await rig.rampart.services.tickets.create(rig.ctx, {
      title: 'Retire TLS 1.0 on the relay',
      priority: 'Medium',
      findingIds: [id],
    });
    // Let the selection's Verify run end first.
    const idle = async () => {
      const runs = await rig.rampart.services.scanRuns.list(rig.ctx, { pageSize: 10 });
      return runs.items.every((r) => !['Queued', 'Running', 'Stopping'].includes(r.state));
    };
    await expect.poll(idle, { timeout: 60_000 }).toBe(true);
    await page.goto(`/tickets/${ticket.id}`);
    await page.getByRole('heading', { name: 'Retire TLS 1.0 on the relay' }).waitFor();
    await page.getByRole('group', { name: 'Ticket actions' }).getByRole('button', { name: 'Verify' }).click();
    const result = page.getByRole('dialog', { name: 'Verify' });
    await result.getByText('Started 1 run').waitFor();
    await rig.shot(page, '89-verify-ticket');
  });
});
