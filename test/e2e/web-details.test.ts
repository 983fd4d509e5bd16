import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/demo/seed.js';
import { TestClock } from '../helpers/app.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const ADMIN = { email: 'admin@example.com', password: 'looks at every small thing' };
const KB = path.resolve(import.meta.dirname, '../../knowledge-base');
// The server's day and the browser's: a day after the old fixed sample day (Nov 24, 2026).
const TODAY = '2027-03-10T12:00:00Z';
const LONG_NAME = 'Quarterly consolidated financial reporting warehouse primary database server';

/** Whether each word of the element's text sits on one line (a word broken in two has two boxes). */
async function wordsBrokenIn(element: Locator): Promise<string[]> {
  return element.evaluate((node) => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const value = text.textContent ?? '';
      for (const match of value.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(text, match.index);
        range.setEnd(text, match.index + match[0].length);
        const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  });
}

// Small things seen in the web app — Verify offered where it cannot work and
// its links, asset names broken mid-word, "1 addresses", a due-date hint in the past, the feed
// table cut off, and the assets list without findings.
describe.runIf(HAS_CHROMIUM)('small things in the web app [browser]', () => {
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
        await rampart.services.allowedTargets.create(ctx, { kind: 'Allowed', target: '198.18.0.0/24' });
        await loadDemo(rampart.services, ctx);
        for (const file of ['kev-catalog.json.gz', 'epss-scores.csv.gz', 'nvd-cves.json.gz'])
          await rampart.services.intel.loadFile(path.join(KB, file));
        await rampart.services.assets.observe(ctx, {
          kind: 'Host',
          name: LONG_NAME,
          ipAddresses: ['198.18.0.77'],
          source: 'Manual',
        });
      },
      { clock: clock.fn },
    );
    context = await rig.browser.newContext({
      baseURL: rig.base,
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = await context.newPage();
    await page.clock.setFixedTime(new Date(TODAY));
    const signedIn = await context.request.post('/api/latest/session', {
      data: { Email: ADMIN.email, Password: ADMIN.password },
    });
    expect(signedIn.status()).toBe(200);
    await page.goto('/');
    await page.getByRole('button', { name: 'User menu' }).waitFor();
  }, 240_000);

  afterAll(async () => {
    await rig?.close();
  });

  const shot = (name: string) => rig.shot(page, name);
  const rowBoxes = () => page.getByRole('checkbox', { name: /^Select (?!all shown)/ });

  it('does not offer Verify on imported findings, and says why', async () => {
    await page.goto('/findings?Search=OpenSSH');
    await rowBoxes().first().waitFor();
    await rowBoxes().first().check();
    const verify = page
      .getByRole('toolbar', { name: 'Actions on the selected findings' })
      .getByRole('button', { name: 'Verify' });
    expect(await verify.isDisabled()).toBe(true);
    expect(await verify.getAttribute('aria-description')).toMatch(/Only findings found by a Rampart scan/);
    await verify.hover({ force: true });
    await shot('90-verify-imported-selection');
    // And on an imported finding's own page.
    await page.getByRole('table').getByRole('link').first().click();
    await page.waitForURL(/\/findings\/[0-9a-f-]{36}$/);
    const own = page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Verify' });
    expect(await own.isDisabled()).toBe(true);
    expect(await own.getAttribute('aria-description')).toMatch(/Only findings found by a Rampart scan/);
    await shot('91-verify-imported-finding');
  });

  it('names each finding the Verify dialog links to', async () => {
    const findings = await rig.rampart.services.findings.list(rig.ctx, { states: ['Open'] }, '-Risk', 2);
    const [first, second] = findings.items;
    const ticket = await rig.rampart.services.tickets.create(rig.ctx, {
      title: 'Patch the file servers',
      priority: 'High',
      findingIds: [first!.id, second!.id],
    });
    await page.goto(`/tickets/${ticket.id}`);
    await page.getByRole('group', { name: 'Ticket actions' }).getByRole('button', { name: 'Verify' }).click();
    const result = page.getByRole('dialog', { name: 'Verify' });
    await result.getByText('Not verified: 2 findings').waitFor();
    const links = await result.getByRole('link').allTextContents();
    expect(links.sort()).toEqual([first!.title, second!.title].sort());
    await shot('92-verify-ticket-links');
    await result.getByRole('button', { name: 'Close' }).click();
  });

  it('wraps asset names and addresses between words, never inside one', async () => {
    for (const width of [1280, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`/assets?Search=${encodeURIComponent('Quarterly consolidated')}`);
      const link = page.getByRole('table').getByRole('link', { name: LONG_NAME });
      await link.waitFor();
      expect(await wordsBrokenIn(link), `at ${width}px`).toEqual([]);
      // Nor its address (198.18.0.7 / 7 before).
      const address = page.getByRole('table').getByRole('cell', { name: '198.18.0.77' });
      expect(await wordsBrokenIn(address), `at ${width}px`).toEqual([]);
      await shot(`93-asset-name-${width}`);
      await link.click();
      const title = page.getByRole('heading', { level: 1, name: LONG_NAME });
      await title.waitFor();
      expect(await wordsBrokenIn(title), `at ${width}px`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows each asset’s open findings and top risk in the list', async () => {
    await page.goto('/assets');
    const table = page.getByRole('table');
    await table.getByRole('columnheader', { name: 'Open findings' }).waitFor();
    await table.getByRole('columnheader', { name: 'Top risk' }).waitFor();
    const assets = await rig.rampart.services.assets.list(rig.ctx, {}, 100);
    const busiest = [...assets.items].sort((a, b) => b.openFindings - a.openFindings)[0]!;
    expect(busiest.openFindings).toBeGreaterThan(0);
    const row = table
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: busiest.friendlyName || busiest.name, exact: true }) });
    const count = row.getByRole('link', { name: new RegExp(`^${busiest.openFindings} open findings? on`) });
    await count.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toContain(String(Math.round(busiest.topRisk!)));
    await shot('94-assets-findings');
    await count.click();
    await page.waitForURL(/\/findings\?AssetId=/);
    await rowBoxes().first().waitFor();
    expect(await rowBoxes().count()).toBe(busiest.openFindings);
  });

  it('writes counts in the right number: 1 address, not 1 addresses', async () => {
    await page.goto('/discovery');
    await page.getByRole('button', { name: 'New scan' }).click();
    const dialog = page.getByRole('dialog', { name: 'New discovery scan' });
    await dialog.getByLabel('Targets').fill('198.18.0.9');
    const check = dialog.getByTestId('target-check');
    await check.getByText('1 address in all.').waitFor();
    expect(await check.textContent()).not.toContain('1 addresses');
    await dialog.getByLabel('Targets').fill('198.18.0.0/30');
    await check.getByText(/^[2-9]\d* addresses in all\.$/).waitFor();
    await shot('95-target-check-count');
    await page.keyboard.press('Escape');
  });

  it('hints a due date of today, never a day gone by', async () => {
    await page.goto('/tickets');
    await page.getByRole('button', { name: 'New ticket' }).click();
    const due = page.getByRole('dialog').getByRole('textbox', { name: 'Due date' });
    expect(await due.getAttribute('placeholder')).toBe('Mar 10, 2027');
    await shot('96-ticket-due-hint');
    await page.keyboard.press('Escape');
  });

  it('fits the feed loads table beside the navigation, and scrolls it where it cannot fit', async () => {
    /** Whether the header ends inside every box around it that clips, and inside the window. */
    const shown = (header: Locator) =>
      header.evaluate((th) => {
        const right = th.getBoundingClientRect().right;
        for (let el = th.parentElement; el; el = el.parentElement) {
          const style = getComputedStyle(el);
          if (style.overflowX !== 'visible' && el.getBoundingClientRect().right < right - 1) return false;
        }
        return right <= document.documentElement.clientWidth;
      });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/feeds');
    const header = page.getByRole('columnheader', { name: 'Duration' });
    await header.waitFor();
    expect(await shown(header), 'the last column fits at 1280 px without scrolling').toBe(true);
    await page.getByRole('heading', { name: 'Recent loads' }).scrollIntoViewIfNeeded();
    await shot('97-feed-loads-1280');
    // Narrower, the table scrolls sideways and shows its scrollbar, so the last column is reachable.
    await page.setViewportSize({ width: 900, height: 900 });
    await page.getByRole('heading', { name: 'Recent loads' }).scrollIntoViewIfNeeded();
    const scrollbar = page
      .getByRole('region', { name: 'Recent loads' })
      .locator('.mantine-ScrollArea-scrollbar[data-orientation="horizontal"]');
    expect(await scrollbar.isVisible(), 'a horizontal scrollbar is shown').toBe(true);
    await shot('97-feed-loads-900');
    await header.scrollIntoViewIfNeeded();
    expect(await shown(header)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
