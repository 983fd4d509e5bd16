import net from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ComposedApp, composeTestApp, testConfig } from '../helpers/app.js';
import { CHROMIUM, HAS_CHROMIUM } from '../helpers/browser.js';
import { newTestDatabase, type TestDatabase } from '../helpers/databases.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The API documentation page as a user on another machine sees it: the server's configured
 * base URL (`http://localhost:<port>`) is not the name the page is opened under.
 */
describe.runIf(HAS_CHROMIUM)('API documentation page in Chromium [browser]', () => {
  let tdb: TestDatabase;
  let rampart: ComposedApp;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    tdb = await newTestDatabase('embedded');
    rampart = await composeTestApp(tdb.database, {
      config: testConfig({ RAMPART_BASE_URL: `http://localhost:${port}` }),
    });
    await rampart.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await rampart?.app.close();
    await tdb?.drop();
  });

  it.each(['integration', 'latest'])(
    'opens /apidoc/%s/ without a console error and "Try it out" reaches this server',
    async (channel) => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${origin}/apidoc/${channel}/`);
      expect.soft(await page.title()).toBe(`Rampart API — ${channel}`);
      const logo = page.locator('.topbar img');
      await logo.waitFor();
      expect.soft(atob((await logo.getAttribute('src'))?.split(',')[1] ?? '')).toContain('Rampart');

      const operation = page.locator(`#operations-Service-getStatus`);
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      await operation.locator('.request-url pre').waitFor();
      expect
        .soft(await operation.locator('.request-url pre').textContent())
        .toBe(`${origin}/api/${channel}/status`);
      const status = operation.locator('.live-responses-table .response .response-col_status').first();
      await status.waitFor();
      expect.soft((await status.textContent())?.trim()).toBe('200');
      expect
        .soft(await operation.locator('.live-responses-table .microlight').first().textContent())
        .toContain('"Service": "Rampart"');
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
