import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Clock } from '../../src/lib/clock.js';
import type { ServiceContext } from '../../src/modules/context.js';
import type { RunExecutor, ScanKind } from '../../src/scanning/types.js';
import { type ComposedApp, composeTestApp, testConfig } from './app.js';
import { newTestDatabase, type TestDatabase } from './databases.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '../..');
export const SHOTS = path.join(ROOT, 'test-results/screenshots');

/** Browser suites run wherever Chromium is installed; CI installs it and fails if they were skipped. */
export const HAS_CHROMIUM = fs.existsSync(CHROMIUM);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface BrowserRig {
  base: string;
  rampart: ComposedApp;
  /** The server's database, for a test that writes as a module would (an event in the outbox). */
  database: TestDatabase['database'];
  browser: Browser;
  ctx: ServiceContext;
  /** Saves what the page shows now under test-results/screenshots/. */
  shot(page: Page, name: string): Promise<Buffer>;
  /** A new browser context of this size, signed in as `who` through the sign-in page. */
  signIn(
    who: { email: string; password: string },
    viewport: { width: number; height: number },
  ): Promise<Page>;
  close(): Promise<void>;
}

/**
 * The real server on an ephemeral port (built web app, fresh embedded database) and headless Chromium,
 * started with the flags this machine's closed network needs.
 */
export async function startBrowserRig(
  seed: (rig: Pick<BrowserRig, 'rampart' | 'ctx'>) => Promise<void>,
  options: {
    clock?: Clock;
    /** More configuration, e.g. RAMPART_LOCAL_SCAN_NODE=true for a test that scans its lab. */
    env?: Record<string, string>;
    scanExecutors?: ReadonlyMap<ScanKind, RunExecutor>;
  } = {},
): Promise<BrowserRig> {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-missing.mjs'), 'web'], { stdio: 'inherit' });
  fs.mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const tdb: TestDatabase = await newTestDatabase('embedded');
  // The real server's work: the journeys import reports and run scans, as jobs.
  const rampart = await composeTestApp(tdb.database, {
    config: testConfig({
      RAMPART_BASE_URL: base,
      RAMPART_LOGIN_THROTTLE_LIMIT: '1000',
      RAMPART_LOGIN_THROTTLE_ACCOUNT_LIMIT: '1000',
      RAMPART_LOGIN_THROTTLE_ADDRESS_LIMIT: '1000',
      ...options.env,
    }),
    background: true,
    ...(options.clock && { clock: options.clock }),
    ...(options.scanExecutors && { scanExecutors: options.scanExecutors }),
  });
  const { organization } = await rampart.services.organizations.ensureFirst();
  const ctx: ServiceContext = { organizationId: organization.id, actor: { type: 'system', id: null } };
  await seed({ rampart, ctx });
  await rampart.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    base,
    rampart,
    database: tdb.database,
    browser,
    ctx,
    // The viewport as a user sees it (a full-page capture would paint the fixed header mid-page).
    shot: (page, name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) }),
    signIn: async (who, viewport) => {
      const context = await browser.newContext({ baseURL: base, viewport });
      const page = await context.newPage();
      const trouble = watchForTrouble(page);
      await page.goto('/sign-in');
      // The first page of a newly launched browser, on a machine the other test files load: given
      // a minute, and when it does not come, the failure says what the page met on the way.
      await page
        .getByLabel('Email')
        .waitFor({ timeout: 60_000 })
        .catch(async (error: Error) => {
          await page.screenshot({ path: path.join(SHOTS, 'sign-in-never-came.png') }).catch(() => {});
          throw new Error(`${error.message}\nwhat the page met: ${trouble.join('; ') || 'nothing'}`);
        });
      await page.getByLabel('Email').fill(who.email);
      await page.getByLabel('Password', { exact: true }).fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'User menu' }).waitFor();
      return page;
    },
    close: async () => {
      await browser.close();
      await rampart.app.close();
      await tdb.drop();
    },
  };
}

/** Console errors, failed requests and server errors a page meets, for a failure's message. */
function watchForTrouble(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') seen.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    seen.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 500) seen.push(`${response.status()}: ${response.url()}`);
  });
  return seen;
}
