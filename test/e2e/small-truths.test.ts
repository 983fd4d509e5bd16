import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/demo/seed.js';
import { TestClock } from '../helpers/app.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ADMIN = { email: 'admin@example.com', password: 'reads every date the same way' };
const KB = path.resolve(import.meta.dirname, '../../knowledge-base');
// The server's day and the browser's: never the day the test runs.
const TODAY = '2026-10-20T12:00:00Z';

// What the app shows in words and where: labels instead of internal names,
// date fields in the style of the tables, where each finding is, and a dated knowledge base.
describe.runIf(HAS_CHROMIUM)('labels, dates, locations and dated intelligence [browser]', () => {
  const clock = new TestClock(new Date(TODAY));
  let rig: BrowserRig;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          name: 'Ada Admin',
          role: 'Admin',
          password: ADMIN.password,
        });
        await loadDemo(rampart.services, ctx);
        for (const file of ['kev-catalog.json.gz', 'epss-scores.csv.gz', 'nvd-cves.json.gz'])
          await rampart.services.intel.loadFile(path.join(KB, file));
      },
      { clock: clock.fn },
    );
    context = await rig.browser.newContext({
      baseURL: rig.base,
      viewport: { width: 1366, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = await context.newPage();
    await page.clock.setFixedTime(new Date(TODAY));
    // The server's clock is in the past: the session cookie must still be kept (it carries a
    // Max-Age, which the browser counts from its own clock, not an Expires date of the server's).
    const signedIn = await context.request.post('/api/latest/session', {
      data: { Email: ADMIN.email, Password: ADMIN.password },
    });
    expect(signedIn.status()).toBe(200);
    expect((await context.cookies()).map((c) => c.name)).toContain('rampart_session');
    await page.goto('/');
    await page.getByRole('button', { name: 'User menu' }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const shot = (name: string) => rig.shot(page, name);
  const rowBoxes = () => page.getByRole('checkbox', { name: /^Select (?!all shown)/ });

  it('tells findings of one vulnerability apart by their location', async () => {
    const app = await post('/assets', { Kind: 'WebApplication', Url: 'https://portal.example/' });
    for (const [url, parameter] of [
      ['https://portal.example/search', 'q'],
      ['https://portal.example/profile', 'name'],
    ])
      await post('/findings', {
        AssetId: app.Id,
        Vulnerability: { Title: 'Reflected XSS in the portal', Severity: 'High' },
        Location: { Kind: 'Url', Url: url, Parameter: parameter },
      });
    await page.goto('/findings?Search=Reflected%20XSS%20in%20the%20portal');
    await rowBoxes().nth(1).waitFor();
    expect(await rowBoxes().count()).toBe(2);
    const table = page.getByRole('table');
    await table.getByRole('columnheader', { name: 'Location' }).waitFor();
    await table
      .getByRole('row')
      .filter({ hasText: 'https://portal.example/search' })
      .getByText('q')
      .waitFor();
    await table
      .getByRole('row')
      .filter({ hasText: 'https://portal.example/profile' })
      .getByText('name')
      .waitFor();
    // A finding on a port says which.
    await page.goto('/findings?Search=OpenSSH');
    await table
      .getByRole('cell', { name: /^\d+\/tcp$/ })
      .first()
      .waitFor();
    await shot('80-findings-location');
  });

  it('labels states and filters in words, and the CVE filter as CVE', async () => {
    await page.goto('/findings');
    await page.getByRole('textbox', { name: 'CVE' }).waitFor();
    expect(await page.getByText('Cve', { exact: true }).count()).toBe(0);
    // Its text field hides behind the chosen states' pills: the box around them opens the list.
    await page.getByRole('textbox', { name: 'State' }).locator('xpath=..').click();
    await page.getByRole('option', { name: 'Risk accepted' }).waitFor();
    await page.getByRole('option', { name: 'False positive' }).waitFor();
    expect(await page.getByRole('option', { name: 'RiskAccepted' }).count()).toBe(0);
    await page.keyboard.press('Escape');
  });

  it('shows and reads date fields as the tables write dates', async () => {
    await page.goto('/findings?Search=Reflected%20XSS%20in%20the%20portal');
    await rowBoxes().nth(1).waitFor();
    expect(await rowBoxes().count()).toBe(2);
    await rowBoxes().first().check();
    await page.getByRole('button', { name: 'Accept risk…' }).click();
    const dialog = page.getByRole('dialog');
    const until = dialog.getByRole('textbox', { name: 'Until' });
    // 90 days after the browser's today, written as the tables write days (not 01/18/2027).
    expect(await until.inputValue()).toBe('Jan 18, 2027');
    await dialog.getByLabel('Justification').fill('Behind the WAF until the portal is rebuilt.');
    await until.fill('12/24/2026');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.getByText('Write the date like Oct 20, 2026.').waitFor();
    await until.fill('2026-12-24');
    await until.blur();
    expect(await until.inputValue()).toBe('Dec 24, 2026');
    expect(await dialog.getByText('Write the date like').count()).toBe(0);
    await shot('81-date-field');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const accepted = (await api('/findings?Search=Reflected%20XSS%20in%20the%20portal&State=RiskAccepted'))
      .Items;
    expect(accepted).toHaveLength(1);
    expect(accepted[0].RiskAcceptedUntil).toBe('2026-12-24T00:00:00.000Z');
    await page.goto(`/findings/${accepted[0].Id}`);
    await page.getByText('Risk accepted', { exact: true }).first().waitFor();
    await page.getByText('Dec 24, 2026').first().waitFor();
    await page.getByText('State changed from Open to Risk accepted').waitFor();
  });

  it('shows a ticket’s findings with asset and location, its state and history in words', async () => {
    await page.goto('/findings?Search=Reflected%20XSS%20in%20the%20portal&State=');
    await rowBoxes().nth(1).waitFor();
    expect(await rowBoxes().count()).toBe(2);
    await page.getByRole('checkbox', { name: 'Select all shown findings' }).check();
    await page.getByRole('button', { name: 'Add to ticket…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('New ticket title').fill('Fix the portal XSS');
    await dialog.getByRole('button', { name: 'Link' }).click();
    await expect.poll(async () => (await api('/tickets?Search=portal%20XSS')).Items[0]?.FindingCount).toBe(2);
    const ticket = (await api('/tickets?Search=portal%20XSS')).Items[0];

    await page.goto(`/tickets/${ticket.Id}`);
    await page.getByRole('heading', { name: 'Fix the portal XSS' }).waitFor();
    const findings = page.getByRole('region', { name: 'Findings' });
    await findings.getByRole('columnheader', { name: 'Location' }).waitFor();
    await findings.getByRole('columnheader', { name: 'Asset' }).waitFor();
    await findings.getByText('https://portal.example/search').waitFor();
    await findings.getByText('https://portal.example/profile').waitFor();
    await page.getByRole('button', { name: 'Start work' }).click();
    await page.getByText('In progress', { exact: true }).first().waitFor();
    await page.getByText('State changed from Open to In progress').waitFor();
    await page.getByText('Findings added to the ticket').waitFor();

    const due = page.getByRole('textbox', { name: 'Due date' });
    await due.fill('January 15 2027');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await api(`/tickets/${ticket.Id}`)).DueAt?.slice(0, 10))
      .toBe('2027-01-15');
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Due date' }).inputValue())
      .toBe('Jan 15, 2027');
    // A date that is no day is said so, and the due date is kept.
    await page.getByRole('textbox', { name: 'Due date' }).fill('Feb 30, 2027');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Write the date like Oct 20, 2026.').waitFor();
    expect((await api(`/tickets/${ticket.Id}`)).DueAt.slice(0, 10)).toBe('2027-01-15');
    await shot('82-ticket-in-words');

    const text = (await page.locator('main').textContent()) ?? '';
    for (const raw of ['InProgress', 'findings_linked', 'state_changed', 'RiskAccepted'])
      expect(text, raw).not.toContain(raw);
  });

  it('says the knowledge base is dated, by the server’s clock', async () => {
    await page.goto('/feeds');
    const notice = page.getByTestId('intel-stale');
    await notice.getByText('The vulnerability intelligence is dated').waitFor();
    await notice
      .getByText(/CISA KEV \(Aug 25, 2025, 421 days\)/)
      .first()
      .waitFor();
    await notice.getByText('RAMPART_INTEL_SYNC_URLS').waitFor();
    const kev = page.getByTestId('feed-kev-date');
    await kev.getByText('Aug 25, 2025').waitFor();
    await kev.getByText('421 days old').waitFor();
    // NVD's page of Oct 8, 2026 is current; EPSS scores of Aug 16, 2026 are not.
    await page.getByTestId('feed-epss-date').getByText('65 days old').waitFor();
    expect(
      await page
        .getByTestId('feed-nvd-date')
        .getByText(/days old/)
        .count(),
    ).toBe(0);
    await shot('83-feeds-dated');

    // The server's clock decides, not the browser's: on the server's Aug 27, 2025 the same
    // catalogue is two days old, while the browser still says Oct 20, 2026.
    clock.now = new Date('2025-08-27T12:00:00Z');
    await page.reload();
    await page.getByTestId('feed-kev-date').getByText('Aug 25, 2025').waitFor();
    expect(await page.getByTestId('intel-stale').count()).toBe(0);
    expect(
      await page
        .getByTestId('feed-kev-date')
        .getByText(/days old/)
        .count(),
    ).toBe(0);
    clock.now = new Date(TODAY);
  });

  // Reads and writes through the API with the page's own session, as the app does.
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
  async function api(pathAndQuery: string): Promise<any> {
    return page.evaluate(
      async (p) => (await fetch(`/api/latest${p}`, { credentials: 'same-origin' })).json(),
      pathAndQuery,
    );
  }
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
  async function post(pathAndQuery: string, body: unknown): Promise<any> {
    return page.evaluate(
      async ([p, b]) => {
        const session = await (await fetch('/api/latest/session')).json();
        const res = await fetch(`/api/latest${p}`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.CsrfToken },
          body: JSON.stringify(b),
        });
        return res.json();
      },
      [pathAndQuery, body] as const,
    );
  }
});
