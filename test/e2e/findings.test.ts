import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/demo/seed.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const MANAGER = { email: 'manager@example.com', password: 'keeps the lights on' };

// The main journeys of the vulnerability pages, on the demo estate, in Chromium.
describe.runIf(HAS_CHROMIUM)('findings, assets and tickets pages [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: MANAGER.email,
        name: 'Mia Manager',
        role: 'Manager',
        password: MANAGER.password,
      });
      await loadDemo(rampart.services, ctx);
    });
    const context = await rig.browser.newContext({
      baseURL: rig.base,
      viewport: { width: 1366, height: 900 },
    });
    page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill(MANAGER.email);
    await page.getByLabel('Password', { exact: true }).fill(MANAGER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'User menu' }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const shot = (name: string) => rig.shot(page, name);
  it('filters findings, keeping the filter in the URL', async () => {
    await page.getByRole('link', { name: 'Findings' }).click();
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    await page
      .getByRole('checkbox', { name: /^Select (?!all shown)/ })
      .first()
      .waitFor();
    await shot('20-findings');
    await page.getByRole('textbox', { name: 'Search' }).fill('Apache');
    await expect.poll(() => page.url()).toContain('Search=Apache');
    // Wait for the refreshed rows: every one of them is about Apache.
    const rowTitles = () =>
      page
        .getByRole('checkbox', { name: /^Select (?!all shown)/ })
        .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    await expect
      .poll(async () => {
        const titles = await rowTitles();
        return titles.length > 0 && titles.every((t) => /apache/i.test(t));
      })
      .toBe(true);
    await shot('21-findings-filtered');
    // The filtered view survives a reload: it lives in the address.
    await page.reload();
    expect(await page.getByRole('textbox', { name: 'Search' }).inputValue()).toBe('Apache');
  });

  it('accepts the risk of one finding until a date', async () => {
    const first = page.getByRole('checkbox', { name: /^Select (?!all shown)/ }).first();
    const title = ((await first.getAttribute('aria-label')) ?? '').replace(/^Select /, '');
    await first.check();
    await page.getByRole('button', { name: 'Accept risk…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Justification').fill('Behind the WAF until the maintenance window.');
    const until = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    await dialog.getByLabel('Until').fill(until);
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(async () => (await fetchFindings(`Search=Apache&State=RiskAccepted`)).TotalCount)
      .toBe(1);
    const accepted = (await fetchFindings('State=RiskAccepted&PageSize=50')).Items.find(
      (f: { Title: string }) => f.Title === title,
    );
    expect(accepted?.RiskAcceptedUntil?.slice(0, 10)).toBe(until);
  });

  it('creates a ticket from selected findings and closes it', async () => {
    await page.goto('/findings?Search=OpenSSH');
    await page
      .getByRole('checkbox', { name: /^Select (?!all shown)/ })
      .first()
      .waitFor();
    const boxes = page.getByRole('checkbox', { name: /^Select (?!all shown)/ });
    const count = Math.min(2, await boxes.count());
    for (let i = 0; i < count; i++) await boxes.nth(i).check();
    await page.getByRole('button', { name: 'Add to ticket…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('New ticket title').fill('Browser-made ticket');
    await dialog.getByRole('button', { name: 'Link' }).click();
    // The app creates the ticket, then links the findings.
    await expect
      .poll(async () => (await api('/tickets?Search=Browser-made')).Items[0]?.FindingCount)
      .toBe(count);
    const ticket = (await api('/tickets?Search=Browser-made')).Items[0];

    await page.goto(`/tickets/${ticket.Id}`);
    await page.getByRole('heading', { name: 'Browser-made ticket' }).waitFor();
    await shot('22-ticket');
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(async () => (await api(`/tickets/${ticket.Id}`)).State).toBe('Closed');
    await page.goto('/tickets?view=board');
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    await shot('23-tickets-board');
  });

  it('shows assets and an asset with its findings, and the settings', async () => {
    await page.goto('/assets');
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'web-01.demo.example', exact: true }).click();
    await page.getByRole('heading', { name: 'web-01.demo.example' }).waitFor();
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    // In the services table (the findings table below says where each finding is, 22/tcp too).
    await page.getByRole('region', { name: 'Services' }).getByRole('cell', { name: '22/tcp' }).waitFor();
    await shot('24-asset');
    await page.goto('/settings');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    // The KEV SLA next to the severities'; a Manager changes it.
    const kev = page.getByLabel('Known exploited (KEV)');
    expect(await kev.inputValue()).toBe('14 days');
    await kev.fill('10');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect((await api('/settings')).KevSlaDays).toBe(10);
    // The organisation's time zone: the calendar days of its trends.
    await page.getByRole('textbox', { name: 'IANA time zone' }).fill('Europe/Berl');
    await page.getByRole('option', { name: 'Europe/Berlin' }).click();
    await page.getByRole('button', { name: 'Set time zone' }).click();
    await page.getByText('Time zone saved.').waitFor();
    expect((await api('/settings')).TimeZone).toBe('Europe/Berlin');
    await shot('25-settings');
    await page.goto('/');
    await page.getByLabel(/Critical: \d+ open/).waitFor();
    // An organisation with assets is not offered demo data.
    expect(await page.getByRole('button', { name: 'Load demo data' }).count()).toBe(0);
    await shot('26-overview-exposure');
  });

  // Reads through the API with the page's own session, as the app does.
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
  async function api(pathAndQuery: string): Promise<any> {
    return page.evaluate(
      async (p) => (await fetch(`/api/latest${p}`, { credentials: 'same-origin' })).json(),
      pathAndQuery,
    );
  }
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
  async function fetchFindings(query: string): Promise<any> {
    return api(`/findings?${query}`);
  }

  it('hides unconfirmed findings until one click shows them, marked Unconfirmed', async () => {
    // A stock Debian 12 sshd scanned with no Debian advisory data: its upstream CVE is Unconfirmed.
    const { rampart, ctx } = rig;
    await rampart.services.intel.loadFile(
      join(import.meta.dirname, '..', 'fixtures', 'intel', 'nvd', 'CVE-2024-6387.json'),
      { feed: 'nvd' },
    );
    const address = '198.18.77.7';
    await rampart.services.scanResults.ingestSystem(ctx, {
      scanId: '01900000-0000-7000-8000-00000000e001',
      scanName: 'Debian hosts',
      runId: '01900000-0000-7000-8000-00000000e002',
      hosts: [
        {
          address,
          hostname: null,
          openPorts: [22],
          closedPorts: [],
          filtered: 0,
          unscannedPorts: [],
          services: [
            {
              port: 22,
              protocol: 'tcp',
              service: 'ssh',
              product: 'OpenSSH',
              version: '9.2p1',
              cpes: ['cpe:2.3:a:openbsd:openssh:9.2:p1:*:*:*:*:*:*'],
              confidence: 0.9,
              banner: 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10',
              evidence: 'SSH identification line',
              tls: false,
              detectedBy: 'rampart',
            },
          ],
          checks: [],
          budgetExhausted: null,
          answered: true,
        },
      ],
    });
    // Not in the default list, so not in any count the app shows.
    expect((await fetchFindings(`Search=${address}`)).TotalCount).toBe(0);
    expect((await fetchFindings(`Search=${address}&Confidence=Any`)).TotalCount).toBe(1);
    await page.goto(`/findings?Search=${address}`);
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    const rows = () => page.getByRole('checkbox', { name: /^Select (?!all shown)/ });
    const show = page.getByRole('checkbox', { name: /^Show unconfirmed/ });
    // The box follows the address (the filter lives in the URL): click, then wait for it.
    await show.click();
    await expect.poll(() => page.url()).toContain('Confidence=Any');
    await expect.poll(() => show.isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: 'Select CVE-2024-6387' }).waitFor();
    await page.getByText('Unconfirmed', { exact: true }).first().waitFor();
    await shot('22-findings-unconfirmed');
    await show.click();
    await expect.poll(() => page.url()).not.toContain('Confidence');
    await expect.poll(() => rows().count()).toBe(0);
  });
});
