import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import {
  fieldError,
  httpsService,
  legacyTls,
  type SystemScript,
  sshService,
  systemExecutor,
} from '../helpers/scan-executors.js';

const ADMIN = { email: 'admin@example.com', password: 'scans what it is allowed to' };
const HOST = '198.18.0.10';
const TLS_TITLE = 'TLS 1.0 or TLS 1.1 accepted';

// The journey of a system scan in the web app: a scan of an allowed host is made (a target outside
// the allowed ones is refused next to the field), run now; its services and the finding of a TLS
// check show on the scan page; the finding's page shows the scan's evidence; the next run, the
// check gone, marks the finding Fixed. The server's own scan node runs a test executor that emits
// the host as an engine would (src/scanning/types.ts): no packet leaves the machine.
describe.runIf(HAS_CHROMIUM)('system scans in the web app [browser]', () => {
  const script: SystemScript = { hosts: new Map(), specs: [] };
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    script.hosts.set(HOST, {
      hostname: 'edge.example.test',
      services: [sshService(), httpsService()],
      checks: [legacyTls()],
    });
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          role: 'Admin',
          password: ADMIN.password,
        });
        await rampart.services.allowedTargets.create(ctx, { kind: 'Allowed', target: '198.18.0.0/24' });
      },
      {
        env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
        scanExecutors: new Map([['System', systemExecutor(script)]]),
      },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const findings = () => page.getByTestId('scan-findings');

  it('refuses a target outside the allowed ones next to the field, then saves the scan', async () => {
    await page.getByRole('link', { name: 'System scans' }).click();
    await page.getByRole('heading', { name: 'System scans', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New system scan' }).click();
    const dialog = page.getByRole('dialog', { name: 'New system scan' });
    await dialog.getByLabel('Name').fill('Edge hosts');
    await dialog.getByLabel('Targets').fill('198.19.255.7');
    await dialog
      .getByTestId('target-check')
      .getByText(/is not inside the allowed scan targets/)
      .waitFor();
    await dialog.getByRole('button', { name: 'Create scan' }).click();
    // The server's words, under the Targets field (not a banner over the form).
    const targets = dialog.getByRole('textbox', { name: 'Targets' });
    await expect.poll(() => fieldError(targets)).toMatch(/198\.19\.255\.7/);
    await rig.shot(page, '80-system-scan-refused');

    await targets.fill(`${HOST} edge`);
    await dialog.getByTestId('target-check').getByText('1 address in all').first().waitFor();
    await dialog.getByRole('button', { name: 'Create scan' }).click();
    await page.waitForURL(/\/system-scans\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Edge hosts', level: 1 }).waitFor();
    await page.getByText('Never run').waitFor();
  });

  it('runs it now and shows the host, its services and the finding of the TLS check', async () => {
    await page.getByRole('button', { name: 'Run now' }).click();
    const host = page.getByTestId('system-host').filter({ hasText: HOST });
    await host.waitFor({ timeout: 60_000 });
    const services = host.getByRole('table', { name: `Services on ${HOST}` });
    await services.getByRole('row').filter({ hasText: '22/tcp' }).filter({ hasText: 'OpenSSH' }).waitFor();
    await services.getByRole('row').filter({ hasText: '8.9p1' }).filter({ hasText: 'Rampart' }).waitFor();
    await services.getByText('cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*').waitFor();
    await host.getByText(TLS_TITLE).waitFor();
    await findings().getByRole('link', { name: TLS_TITLE }).waitFor({ timeout: 30_000 });
    await page.getByTestId('run-counts').getByText('1 New').waitFor();
    expect(script.specs).toHaveLength(1);
    expect(script.specs[0]?.portsOverride ?? null).toBeNull();
    await rig.shot(page, '81-system-scan-results');
  });

  it('opens the finding and shows the scan evidence: what was seen, by which scan and run', async () => {
    await findings().getByRole('link', { name: TLS_TITLE }).click();
    await page.waitForURL(/\/findings\/[0-9a-f-]{36}$/);
    const evidence = page.getByRole('region', { name: 'Scan evidence' });
    await evidence.getByText(/completed TLS 1\.0 and TLS 1\.1 handshakes/).waitFor();
    await evidence.getByRole('link', { name: 'Edge hosts' }).waitFor();
    await evidence.getByText('Last seen by the run').waitFor();
    await rig.shot(page, '82-finding-scan-evidence');
    await evidence.getByRole('link', { name: 'Edge hosts' }).click();
    await page.getByRole('heading', { name: 'Edge hosts', level: 1 }).waitFor();
  });

  it('marks the finding Fixed when the next run no longer sees it', async () => {
    script.hosts.set(HOST, {
      hostname: 'edge.example.test',
      services: [sshService(), httpsService()],
      checks: [],
    });
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByTestId('run-counts').getByText('1 Fixed').waitFor({ timeout: 60_000 });
    const row = findings().getByRole('row').filter({ hasText: TLS_TITLE });
    await row.getByText('Fixed', { exact: true }).waitFor({ timeout: 30_000 });
    expect(script.specs).toHaveLength(2);
    await rig.shot(page, '83-system-scan-fixed');
  });

  it('lists the scan with its template, node and last run', async () => {
    await page.goto('/system-scans');
    const row = page.getByTestId('system-scans-table').getByRole('row').filter({ hasText: 'Edge hosts' });
    await row.getByText('Completed').waitFor();
    await row.getByText(HOST).waitFor();
    await rig.shot(page, '84-system-scans');
  });

  it('says which host did not answer and which addresses were refused', async () => {
    const quiet = '198.18.0.11';
    script.hosts.set(quiet, { services: [], checks: [], answered: false });
    script.refused = ['198.18.0.12'];
    await page.getByRole('button', { name: 'New system scan' }).click();
    const dialog = page.getByRole('dialog', { name: 'New system scan' });
    await dialog.getByLabel('Name').fill('Quiet hosts');
    await dialog.getByLabel('Targets').fill(quiet);
    await dialog.getByTestId('target-check').getByText('1 address in all').first().waitFor();
    await dialog.getByRole('button', { name: 'Create scan' }).click();
    await page.getByRole('heading', { name: 'Quiet hosts', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    const host = page.getByTestId('system-host').filter({ hasText: quiet });
    await host.getByText('host did not answer').waitFor({ timeout: 60_000 });
    const refused = page.getByTestId('refused-addresses');
    await refused.getByText('Refused, not scanned (1)').waitFor();
    await refused.getByText('198.18.0.12 is excluded from scans.', { exact: false }).waitFor();
    await rig.shot(page, '85-system-scan-quiet-and-refused');
  });
});
