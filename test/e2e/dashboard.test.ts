import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/demo/seed.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';

const READER = { email: 'reader@example.com', password: 'reads every chart' };
// Screenshots of the dashboard in light and dark, looked at by a person after a change.
const SHOTS = '/tmp/shots-dashboard';

// The overview as a dashboard, on the demo estate with its history rebuilt, in Chromium: the charts
// draw, their tables say what the API says, a tag narrows every figure, a figure leads to its findings.
describe.runIf(HAS_CHROMIUM)('dashboard [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: READER.email,
        name: 'Rita Reader',
        role: 'ReadOnly',
        password: READER.password,
      });
      await loadDemo(rampart.services, ctx);
      // The demo's findings go back 60 days: the history is built from them, as on a first start.
      await rampart.services.history.runSnapshot(ctx.organizationId, { rebuild: true });
    });
    fs.mkdirSync(SHOTS, { recursive: true });
    page = await rig.signIn(READER, { width: 1366, height: 900 });
    // Charts drawn at once, without their animation: what people who ask for less motion get, and
    // screenshots of the finished drawing.
    await page.emulateMedia({ reducedMotion: 'reduce' });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const shot = async (name: string, fullPage = false) => {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
  };

  // Reads through the API with the page's own session, as the app does.
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
  async function api(pathAndQuery: string): Promise<any> {
    return page.evaluate(
      async (p) => (await fetch(`/api/latest${p}`, { credentials: 'same-origin' })).json(),
      pathAndQuery,
    );
  }

  /** The card (a region) of a chart or table, by its title. */
  const card = (title: string) => page.getByRole('region', { name: title, exact: true });
  /** The chart of a card: the element labelled as an image (ECharts' own SVG is inside it). */
  const chartOf = (title: string) => card(title).locator('[role="img"][aria-label]');
  /** Waits until the chart of a card has drawn its shapes. */
  const drawn = (title: string) =>
    expect.poll(() => chartOf(title).locator('svg path').count(), { message: title }).toBeGreaterThan(3);
  /** "6 findings": how many the findings list says match. */
  const findingsTotal = async () => {
    const text = await page.getByTestId('findings-total').innerText();
    return Number(/^(\d+) findings?/.exec(text)?.[1] ?? Number.NaN);
  };

  it('draws the charts as SVG, each with a label and a table giving the API’s figures', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const titles = [
      'Open findings over time',
      'New and fixed per week',
      'SLA compliance',
      'Time to remediate',
      'Ageing of open findings',
      'KEV exposure over time',
    ];
    for (const title of titles) {
      await chartOf(title).waitFor();
      expect(await chartOf(title).getAttribute('aria-label'), title).toBeTruthy();
      await drawn(title);
    }
    await shot('dashboard-light-top');

    const dashboard = await api('/dashboard');
    expect(dashboard.Open.Total).toBeGreaterThan(0);

    // Ageing: the table alternative shows each bucket's total as the API counts it.
    const ageing = card('Ageing of open findings');
    await ageing.getByRole('switch', { name: /Show the figures/ }).check();
    for (const bucket of dashboard.Ageing) {
      const row = ageing.getByRole('row', { name: new RegExp(`^${bucket.Label} `) });
      await expect.poll(() => row.getByRole('cell').last().innerText()).toBe(String(bucket.Total));
    }
    // Time to remediate: the fixed counts per severity.
    const mttr = card('Time to remediate');
    await mttr.getByRole('switch', { name: /Show the figures/ }).check();
    for (const m of dashboard.Mttr) {
      await mttr.getByRole('link', { name: `${m.Severity}: ${m.Count} fixed` }).waitFor();
    }
    // The history: the table of the last day matches the trend's last day.
    const trends = await api('/trends');
    expect(trends.Days.length).toBeGreaterThan(30);
    const lastDay = trends.Days.at(-1);
    const open = card('Open findings over time');
    await open.getByRole('switch', { name: /Show the figures/ }).check();
    const lastRow = open.getByRole('row', { name: new RegExp(`^${lastDay.Date} `) });
    await expect
      .poll(() => lastRow.getByRole('cell').allInnerTexts())
      .toEqual(['Critical', 'High', 'Medium', 'Low', 'Info'].map((s) => String(lastDay.Open[s])));
    await shot('dashboard-light-tables');
    // Back to the charts.
    for (const c of [ageing, mttr, open]) await c.getByRole('switch', { name: /Show the figures/ }).uncheck();
  });

  it('narrows every figure to a tag, and a figure leads to the findings behind it', async () => {
    await page.goto('/');
    const all = await api('/dashboard');
    const web = await api('/dashboard?Tag=web');
    expect(web.Open.Total).toBeLessThan(all.Open.Total);
    expect(web.Open.Total).toBeGreaterThan(0);

    await page.getByLabel(`High: ${all.Open.High} open`).waitFor();
    await page.getByRole('textbox', { name: 'Tag' }).click();
    await page.getByRole('option', { name: 'web', exact: true }).click();
    await expect.poll(() => page.url()).toContain('Tag=web');
    await page.getByLabel(`High: ${web.Open.High} open`).waitFor();
    await page.getByLabel(`Critical: ${web.Open.Critical} open`).waitFor();
    await page.getByText('assets tagged “web”').waitFor();
    await shot('dashboard-light-tag');

    // The tile of the High findings opens the list of exactly those.
    await page.getByLabel(`High: ${web.Open.High} open`).click();
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/findings');
    expect(url.searchParams.getAll('State')).toEqual(['Open', 'Reopened']);
    expect(url.searchParams.get('Severity')).toBe('High');
    expect(url.searchParams.get('Tag')).toBe('web');
    await expect.poll(findingsTotal).toBe(web.Open.High);
    const listed = await api(`/findings${url.search}&IncludeTotal=true`);
    expect(listed.TotalCount).toBe(web.Open.High);

    // An ageing bucket of the table leads to the findings first seen in it.
    await page.goto('/?Tag=web');
    const ageing = card('Ageing of open findings');
    await ageing.getByRole('switch', { name: /Show the figures/ }).check();
    const bucket = web.Ageing.find((b: { Total: number }) => b.Total > 0);
    await ageing.getByRole('link', { name: `${bucket.Label} days: ${bucket.Total}` }).click();
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    await page.getByText(/^Only findings first seen/).waitFor();
    await expect.poll(findingsTotal).toBe(bucket.Total);
  });

  it('looks right in the dark', async () => {
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await page.setViewportSize({ width: 1366, height: 2400 });
    await page.goto('/');
    for (const title of ['Open findings over time', 'Ageing of open findings', 'Time to remediate'])
      await drawn(title);
    // The charts' axis labels take the dark palette's colour (not dark grey on the dark page).
    await expect
      .poll(() => chartOf('Time to remediate').locator('svg text').first().getAttribute('fill'))
      .toBe('#a8a8a8');
    await shot('dashboard-dark-full');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
    await page.goto('/');
    for (const title of ['Open findings over time', 'Ageing of open findings', 'Time to remediate'])
      await drawn(title);
    await expect
      .poll(() => chartOf('Time to remediate').locator('svg text').first().getAttribute('fill'))
      .toBe('#495057');
    await shot('dashboard-light-full');
  });
});
