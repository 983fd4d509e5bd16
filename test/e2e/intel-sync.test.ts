import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntelSync } from '../../src/modules/intel/sync.js';
import { TestClock } from '../helpers/app.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { IntelMirror, NVD_PATH } from '../helpers/intel-mirror.js';

const ADMIN = { email: 'admin@example.com', password: 'syncs the feeds nightly' };

// The feed status page shows where the sync from the official sources stands: a sync that ran
// against a mirror on 127.0.0.1 (test/helpers/intel-mirror.ts), found EPSS failing and was
// stopped half-way through NVD's first full load.
describe.runIf(HAS_CHROMIUM)('the scheduled sync on the feed status page [browser]', () => {
  const clock = new TestClock(new Date('2026-11-21T12:00:00Z'));
  let rig: BrowserRig;
  let mirror: IntelMirror;
  let page: Page;

  beforeAll(async () => {
    mirror = await new IntelMirror(() => clock.now.getTime()).start();
    rig = await startBrowserRig(
      async ({ rampart, ctx }) => {
        await rampart.services.users.create(ctx, {
          email: ADMIN.email,
          name: 'Ada Admin',
          role: 'Admin',
          password: ADMIN.password,
        });
        mirror.special.push({
          match: (u) => u.pathname === '/epss.csv.gz',
          answer: { status: 500, body: 'oops' },
        });
        const stop = new AbortController();
        mirror.onRequest = (url) => {
          if (url.pathname === NVD_PATH && url.searchParams.get('startIndex') === '2') stop.abort();
        };
        const sync = new IntelSync(rampart.services.intel, {
          urls: [],
          sources: mirror.sources(),
          clock: clock.fn,
          sleep: async (ms) => {
            clock.now = new Date(clock.now.getTime() + ms);
          },
        });
        await expect(sync.run(stop.signal)).rejects.toThrow(/abort/i);
      },
      { clock: clock.fn },
    );
    page = await rig.signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
    await mirror?.close();
  });

  it("shows each source's last sync, its progress and its last error", async () => {
    await page.goto('/feeds');
    const card = page.getByRole('region', { name: 'Scheduled sync' });
    await card.getByText(/Rampart fetches nothing from the official sources/).waitFor();
    const row = (source: string) => card.getByTestId(`sync-source-${source}`);
    await row('kev').getByText('CISA KEV').waitFor();
    expect(await row('kev').textContent()).not.toContain('Never');
    await row('epss')
      .getByText(/answered 500 Internal Server Error/)
      .waitFor();
    await row('epss').getByText('Never').waitFor();
    await row('nvd').getByText('First full load: record 2 of 6 next').waitFor();
    await row('nvd')
      .getByText(/The sync stopped before this source was done/)
      .waitFor();
    await card.scrollIntoViewIfNeeded();
    await rig.shot(page, '63-feeds-sync-sources');
  });
});
