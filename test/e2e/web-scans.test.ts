import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { fieldError, type WebScript, webExecutor } from '../helpers/scan-executors.js';

const ADMIN = { email: 'admin@example.com', password: 'reads what web servers answer' };
const SHOP = 'https://198.18.0.20/';
const BLOG = 'http://198.18.0.21:8080/';
const HSTS = 'Strict-Transport-Security missing or too short';
const CSP = 'Content-Security-Policy missing or unsafe';

// The journey of a web scan in the web app: a URL that is not http(s) is refused next to the URLs
// field; two URLs are scanned (a test executor on the server's own node emits WebUrlResult items
// as the web engine would, no request leaves the machine); each URL shows its checks, header grade,
// notes and software, and the findings are kept per URL.
describe.runIf(HAS_CHROMIUM)('web scans in the web app [browser]', () => {
  const script: WebScript = { urls: new Map(), specs: [] };
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    script.urls.set(SHOP, {
      finalUrl: SHOP,
      status: 200,
      address: '198.18.0.20',
      software: [
        {
          header: 'Server',
          value: 'nginx/1.18.0',
          product: 'nginx',
          version: '1.18.0',
          cpes: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
        },
      ],
      checks: [
        {
          checkId: 'web.header-hsts',
          port: null,
          url: SHOP,
          evidence: 'GET / → 200, no Strict-Transport-Security',
        },
        {
          checkId: 'web.header-csp',
          port: null,
          url: SHOP,
          evidence: 'GET / → 200, no Content-Security-Policy',
        },
      ],
      headerScore: { score: 35, grade: 'D' },
      notes: ['SSLv3 cannot be probed from this node'],
      error: null,
      budgetExhausted: null,
    });
    script.urls.set(BLOG, {
      finalUrl: BLOG,
      status: 200,
      address: '198.18.0.21',
      software: [],
      checks: [
        {
          checkId: 'web.header-csp',
          port: null,
          url: BLOG,
          evidence: 'GET / → 200, no Content-Security-Policy',
        },
      ],
      headerScore: { score: 70, grade: 'B' },
      notes: [],
      error: null,
      budgetExhausted: null,
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
        scanExecutors: new Map([['Web', webExecutor(script)]]),
      },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('refuses a URL that is not http(s) next to the field, then saves the scan', async () => {
    await page.getByRole('link', { name: 'Web scans' }).click();
    await page.getByRole('heading', { name: 'Web scans', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New web scan' }).click();
    const dialog = page.getByRole('dialog', { name: 'New web scan' });
    await dialog.getByLabel('Name').fill('Shop and blog');
    const urls = dialog.getByRole('textbox', { name: 'URLs' });
    await urls.fill('ftp://198.18.0.20/');
    await dialog.getByRole('button', { name: 'Create scan' }).click();
    await expect.poll(() => fieldError(urls)).toMatch(/ftp:\/\/198\.18\.0\.20\//);
    await rig.shot(page, '85-web-scan-refused');

    await urls.fill(`${SHOP}\n${BLOG}`);
    await dialog.getByTestId('target-check').getByText('2 addresses in all.').waitFor();
    await dialog.getByRole('button', { name: 'Create scan' }).click();
    await page.waitForURL(/\/web-scans\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Shop and blog', level: 1 }).waitFor();
  });

  it('runs it and shows each URL with its checks, header grade, notes and software', async () => {
    await page.getByRole('button', { name: 'Run now' }).click();
    const shop = page.getByRole('region', { name: SHOP });
    await shop.waitFor({ timeout: 60_000 });
    await shop.getByText(HSTS).waitFor();
    await shop.getByText(CSP).waitFor();
    await shop.getByText('Headers D (35)').waitFor();
    await shop.getByText('SSLv3 cannot be probed from this node').waitFor();
    await shop.getByRole('cell', { name: 'nginx/1.18.0' }).waitFor();
    const blog = page.getByRole('region', { name: BLOG });
    await blog.getByText(CSP).waitFor();
    await blog.getByText('Headers B (70)').waitFor();
    expect(await blog.getByText(HSTS).count()).toBe(0);
    await page.getByTestId('run-counts').getByText('3 New').waitFor({ timeout: 30_000 });
    await rig.shot(page, '86-web-scan-results');
  });

  it('keeps the findings per URL', async () => {
    const rows = page.getByTestId('scan-findings').getByRole('row');
    await rows.filter({ hasText: HSTS }).filter({ hasText: SHOP }).waitFor({ timeout: 30_000 });
    await rows.filter({ hasText: CSP }).filter({ hasText: SHOP }).waitFor();
    await rows.filter({ hasText: CSP }).filter({ hasText: BLOG }).waitFor();
    expect(await rows.filter({ hasText: HSTS }).count()).toBe(1);
    expect(script.specs).toHaveLength(1);
    expect(script.specs[0]?.urls.sort()).toEqual([BLOG, SHOP].sort());
  });
});
