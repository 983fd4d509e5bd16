import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { readPdf } from '../modules/reports/pdf-text.js';

const ANALYST = { email: 'reporter@example.com', password: 'reports tell the story' };
/** Where the screenshots of this suite are looked at (also under test-results/screenshots/). */
const SHOTS = '/tmp/shots-reports';

// Runs wherever Chromium is installed; CI installs it and fails if this suite was skipped.
describe.runIf(HAS_CHROMIUM)('reports page in Chromium [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      const user = await rampart.services.users.create(ctx, {
        email: ANALYST.email,
        name: 'Rita Reporter',
        role: 'Analyst',
        password: ANALYST.password,
      });
      const as = { ...ctx, actor: { type: 'user' as const, id: user.id }, userId: user.id };
      const { asset } = await rampart.services.assets.observe(as, {
        kind: 'Host',
        name: 'payroll-db.example',
        hostname: 'payroll-db.example',
        tags: ['finance'],
        source: 'Manual',
      });
      for (const [title, severity] of [
        ['Remote code execution in the payroll service', 'Critical'],
        ['Outdated TLS configuration', 'Medium'],
      ] as const)
        await rampart.services.findings.record(as, {
          assetId: asset.id,
          vulnerability: { source: 'Manual', title, severity },
          location: { kind: 'None' },
          source: 'Manual',
        });
    });
    page = await rig.signIn(ANALYST, { width: 1366, height: 900 });
    fs.mkdirSync(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const shot = async (name: string) => {
    const png = await rig.shot(page, `reports-${name}`);
    fs.writeFileSync(path.join(SHOTS, `${name}.png`), png);
  };

  it('makes an executive PDF, follows its progress and downloads it', async () => {
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await page.getByText('No reports yet').waitFor();
    await shot('01-reports-empty');
    await page.getByText('Tag', { exact: true }).click();
    await page.getByLabel('Tag name').fill('finance');
    await page.getByRole('button', { name: 'Make report' }).click();
    await page.getByRole('status').getByText('is queued').waitFor();
    const row = page.getByRole('row', { name: /Executive summary — Tag "finance"/ });
    await row.getByText('Completed').waitFor({ timeout: 60_000 });
    await expect.poll(() => row.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    await shot('02-reports-completed');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('link', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^Executive-summary-Tag-finance-\d{4}-\d{2}-\d{2}\.pdf$/);
    const file = await download.path();
    const pdf = await readPdf(fs.readFileSync(file));
    expect(pdf.pages).toBeGreaterThanOrEqual(1);
    const text = pdf.text.join('\n');
    expect(text).toMatch(/Open Critical\s+1/);
    expect(text).toContain('payroll-db.example');
    expect(text).toContain('Remote code execution in the payroll service');
  });

  it('refuses a report of a tag nothing carries with the server’s reason', async () => {
    await page.getByLabel('Tag name').fill('no-such-tag');
    await page.getByRole('button', { name: 'Make report' }).click();
    await page.getByText('The filter matches no findings').waitFor();
    await shot('03-reports-empty-scope');
  });

  it('schedules a weekly report and lists it with its next run', async () => {
    await page.getByRole('tab', { name: 'Scheduled' }).click();
    await page.getByText('No scheduled reports').waitFor();
    await page.getByLabel('Name').fill('Monday board summary');
    await page.getByLabel('Recipients').fill('board@example.com');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    const row = page.getByRole('row', { name: /Monday board summary/ });
    await row.getByText('Weekly on Monday').waitFor();
    await row.getByText('board@example.com').waitFor();
    await shot('04-reports-scheduled');
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('row', { name: /Executive summary — Tag "finance"/ }).waitFor();
  });

  it('reads alike in the dark', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await page
      .getByRole('row', { name: /Executive summary — Tag "finance"/ })
      .getByText('Completed')
      .waitFor();
    await shot('05-reports-dark');
    await page.getByRole('tab', { name: 'Scheduled' }).click();
    await page.getByRole('row', { name: /Monday board summary/ }).waitFor();
    await shot('06-reports-scheduled-dark');
  });
});
