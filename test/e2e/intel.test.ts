/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { type NessusHost, nessusReport } from '../modules/imports/nessus-report.js';

const ADMIN = { email: 'admin@example.com', password: 'feeds the ramparts daily' };
const ANALYST = { email: 'analyst@example.com', password: 'ranks the risks weekly' };
const READER = { email: 'reader@example.com', password: 'reads but never loads' };

const KNOWLEDGE_BASE = path.resolve(import.meta.dirname, '../../knowledge-base');
const KEV_TITLE = 'Apache httpd 2.4.49 path traversal';
const UNKNOWN_CVE = 'CVE-2099-0001';
const NO_CVE_TITLE = 'TLS 1.0 enabled';

// Risk = 100 × impact × likelihood × context (docs/intelligence.md, "Risk score"); default criticality 3, internal.
//   CVE-2021-41773: CVSS 7.5, in KEV                    → 100 × 0.75 × 1              = 75
//   CVE-2021-41617: CVSS 7.0, EPSS percentile 0.83644   → 100 × 0.70 × (0.5 + 0.41822) = 64.28
//   CVE-2023-28856: CVSS 6.5, EPSS percentile 0.58685   → 100 × 0.65 × (0.5 + 0.29343) = 51.57
//   CVE-2099-0001 (no feed knows it), rated High        → 100 × 0.75 × 0.75            = 56.25
//   TLS 1.0 (no CVE), rated Medium                      → 100 × 0.50 × 0.75            = 37.5
const HOSTS: NessusHost[] = [
  {
    ip: '10.7.0.10',
    fqdn: 'web-a.intel.example',
    os: 'Linux Kernel 5.15',
    items: [
      { plugin: '930001', name: KEV_TITLE, severity: 3, cve: ['CVE-2021-41773'] },
      {
        plugin: '930002',
        name: 'OpenSSH privilege escalation',
        severity: 3,
        port: 22,
        cve: ['CVE-2021-41617'],
      },
      { plugin: '930003', name: NO_CVE_TITLE, severity: 2 },
    ],
  },
  {
    ip: '10.7.0.20',
    fqdn: 'cache-b.intel.example',
    items: [
      {
        plugin: '930004',
        name: 'Redis KEYS pattern crash',
        severity: 2,
        port: 6379,
        cve: ['CVE-2023-28856'],
      },
      { plugin: '930005', name: 'Vendor appliance backdoor', severity: 3, cve: [UNKNOWN_CVE] },
      { plugin: '930001', name: KEV_TITLE, severity: 3, cve: ['CVE-2021-41773'] },
    ],
  },
];

interface ApiFinding {
  Id: string;
  Title: string;
  RiskScore: number;
  Kev: boolean;
  VulnerabilityId: string;
}

// The intelligence journey in Chromium: an Admin loads feeds on the feed status page, a report is
// imported, then Top risks, the vulnerability page and the findings list show what the feeds say.
describe.runIf(HAS_CHROMIUM)('vulnerability intelligence pages [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      for (const [who, name, role] of [
        [ADMIN, 'Ada Admin', 'Admin'],
        [ANALYST, 'Ann Analyst', 'Analyst'],
        [READER, 'Rey Reader', 'ReadOnly'],
      ] as const) {
        await rampart.services.users.create(ctx, { email: who.email, name, role, password: who.password });
      }
    });
    page = await signIn(ADMIN, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const signIn = (who: { email: string; password: string }, viewport: { width: number; height: number }) =>
    rig.signIn(who, viewport);

  const shot = (name: string, p = page) => rig.shot(p, name);

  /** Switches the colour scheme and lets Mantine's colour transitions end. */
  async function scheme(colorScheme: 'light' | 'dark', p = page) {
    await p.emulateMedia({ colorScheme });
    await p.waitForTimeout(250);
  }

  /** The navigation slides away on a phone: waits for it to have gone. */
  async function navigationGone(p = page) {
    await p.waitForFunction(
      () => (document.getElementById('main-navigation')?.getBoundingClientRect().right ?? 0) <= 0,
    );
    await p.waitForTimeout(200);
  }

  /** Light, dark, then a phone's width in the dark and light; back to a light desktop afterwards. */
  async function shots(name: string, ready: () => Promise<unknown>, p = page) {
    await shot(`${name}`, p);
    await scheme('dark', p);
    await shot(`${name}-dark`, p);
    await p.setViewportSize({ width: 390, height: 844 });
    await navigationGone(p);
    await ready();
    await shot(`${name}-narrow-dark`, p);
    await scheme('light', p);
    await shot(`${name}-narrow`, p);
    await p.setViewportSize({ width: 1366, height: 900 });
    await ready();
  }

  async function api<T>(p: Page, url: string): Promise<T> {
    const response = await p.request.get(`/api/latest${url}`);
    expect(response.status(), url).toBe(200);
    return (await response.json()) as T;
  }

  async function openFindings(p = page): Promise<ApiFinding[]> {
    return (await api<{ Items: ApiFinding[] }>(p, '/findings?State=Open&State=Reopened&Sort=-Risk')).Items;
  }

  it('loads NVD, EPSS and KEV files on the feed status page and follows each load', async () => {
    await page.getByRole('link', { name: 'Feed status' }).click();
    await page.getByRole('heading', { name: 'Feed status', level: 1 }).waitFor();
    const nvd = page.getByRole('region', { name: 'NVD', exact: true });
    await nvd.getByText('Never loaded.').waitFor();
    await page.getByText('Nothing loaded yet').waitFor();
    await shot('60-feeds-empty');

    for (const file of ['nvd-cves.json.gz', 'epss-scores.csv.gz', 'kev-catalog.json.gz']) {
      await page.getByLabel('Feed file', { exact: true }).setInputFiles({
        name: file,
        mimeType: 'application/gzip',
        buffer: fs.readFileSync(path.join(KNOWLEDGE_BASE, file)),
      });
      await expect.poll(() => page.getByTestId('chosen-file').textContent()).toBe(file);
      await page.getByRole('button', { name: 'Load feed file' }).click();
      const result = page.getByRole('region', { name: file });
      await result.getByText('Completed', { exact: true }).waitFor({ timeout: 60_000 });
      if (file.startsWith('kev')) {
        // NVD's records named 17 of the catalogue's 1,404 entries already: the rest are new.
        await result.locator('[data-figure="Added"]').getByText('1,387').waitFor();
        await result.locator('[data-figure="Updated"]').getByText('17').waitFor();
        await result.getByText('Data of Aug 25, 2025', { exact: false }).waitFor();
        await shot('61-feeds-loaded-kev');
      }
    }

    // Every feed's records; the NVD card says what it last loaded.
    await nvd.getByText('41 records').waitFor();
    await nvd.getByText('nvd-cves.json.gz').waitFor();
    const status = await api<{ Items: { Feed: string; Records: number }[] }>(page, '/intel/feeds');
    const records = Object.fromEntries(status.Items.map((item) => [item.Feed, item.Records]));
    expect(records).toMatchObject({ nvd: 41, epss: 1444, osv: 0 });
    expect(records.kev).toBeGreaterThanOrEqual(1404);
    await page
      .getByRole('region', { name: 'CISA KEV' })
      .getByText(`${records.kev?.toLocaleString('en-US')} records`)
      .waitFor();
    await page.getByRole('region', { name: 'EPSS', exact: true }).getByText('1,444 records').waitFor();
    await page.getByRole('region', { name: 'OSV', exact: true }).getByText('Never loaded.').waitFor();
    await page
      .getByRole('region', { name: 'Scheduled sync' })
      .getByText(/Rampart fetches nothing from the official sources/)
      .waitFor();
    const history = page.getByRole('region', { name: 'Recent loads' });
    await expect.poll(() => history.getByRole('row').count()).toBe(4); // the header and three loads
    await history.scrollIntoViewIfNeeded();
    await shot('62-feeds-history');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shots('62-feeds', () => nvd.getByText('41 records').waitFor());
  });

  it('refuses a file that is no feed and says why', async () => {
    await page.getByLabel('Feed file', { exact: true }).setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('These are my notes, not a feed.\n'),
    });
    await page.getByRole('button', { name: 'Load feed file' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Unknown intelligence feed format' });
    await alert.waitFor();
    await alert.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await shot('63-feeds-refused');
  });

  it('imports a report whose findings the feeds describe', async () => {
    const { CsrfToken } = await api<{ CsrfToken: string }>(page, '/session');
    const response = await page.request.post('/api/latest/imports?FileName=intel.nessus', {
      headers: { 'Content-Type': 'application/octet-stream', 'X-CSRF-Token': CsrfToken },
      data: Buffer.from(nessusReport(HOSTS)),
    });
    expect(response.status()).toBe(202);
    const { Id } = (await response.json()) as { Id: string };
    await expect
      .poll(async () => (await api<{ State: string }>(page, `/imports/${Id}`)).State, { timeout: 30_000 })
      .toBe('Completed');

    const open = await openFindings();
    expect(open).toHaveLength(6);
    expect(open[0]).toMatchObject({ Title: KEV_TITLE, Kev: true, RiskScore: 75 });
    expect(open.map((f) => f.RiskScore)).toEqual([75, 75, 64.28, 56.25, 51.57, 37.5]);
  });

  it('ranks the known exploited finding first on Top risks, and filters by KEV and minimum risk', async () => {
    await page.getByRole('link', { name: 'Top risks' }).click();
    await page.getByRole('heading', { name: 'Top risks', level: 1 }).waitFor();
    const list = page.getByRole('region', { name: 'Top risks' });
    const rows = list.getByRole('row');
    await expect.poll(() => rows.count()).toBe(7); // the header and six open findings
    const first = rows.nth(1);
    await first.getByRole('link', { name: KEV_TITLE }).waitFor();
    await first.getByRole('img', { name: 'Risk 75 of 100' }).waitFor();
    await first.getByText(/^KEV: known exploited, CISA's due date/).waitFor();
    await first.getByText('top 0.01 %').waitFor();
    await first.getByText('7.5', { exact: true }).waitFor();
    // Due by the KEV SLA from when it was found (14 days), not by CISA's date of 2021: not overdue.
    expect(await first.getByText('(overdue)').count()).toBe(0);
    // The same order as the API's.
    const titles = await list
      .getByRole('row')
      .evaluateAll((trs) =>
        trs.slice(1).map((tr) => tr.querySelector('td:nth-child(2) a')?.textContent ?? ''),
      );
    expect(titles).toEqual((await openFindings()).map((f) => f.Title));
    await shots('64-top-risks', () => page.getByRole('img', { name: 'Risk 75 of 100' }).first().waitFor());

    // Known exploited only: the two Apache findings.
    await page.getByRole('checkbox', { name: 'Known exploited (KEV) only' }).click();
    await expect.poll(() => page.url()).toContain('Kev=true');
    await expect.poll(() => page.getByTestId('findings-total').textContent()).toBe('2 open findings');
    await page.getByRole('checkbox', { name: 'Known exploited (KEV) only' }).click();
    await expect.poll(() => page.url()).not.toContain('Kev=');

    // Risk at least 60, by keyboard: twelve steps of 5, one change of the address.
    const slider = page.getByRole('slider', { name: 'Risk at least' });
    await slider.focus();
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.url()).toContain('RiskMin=60');
    await expect.poll(() => page.getByTestId('findings-total').textContent()).toBe('3 open findings');
    await page.getByRole('button', { name: 'How the risk score is made' }).click();
    await page.getByText(/else 0\.5 \+ 0\.5 × its EPSS percentile/).waitFor();
    await page.waitForTimeout(300); // the explanation opens with a short animation
    await shot('65-top-risks-filtered');
    await page.goBack();
    await expect.poll(() => page.url()).not.toContain('RiskMin');
    await expect.poll(() => page.getByTestId('findings-total').textContent()).toBe('6 open findings');
  });

  it('shows the vulnerability: CVSS breakdown, EPSS percentile, KEV due date, affected findings', async () => {
    await page
      .getByRole('region', { name: 'Top risks' })
      .getByRole('link', { name: 'CVE-2021-41773' })
      .first()
      .click();
    await page.getByRole('heading', { name: KEV_TITLE, level: 1 }).waitFor();

    const cvss = page.getByRole('table', { name: 'Base metrics of CVSS v3.1 by nvd@nist.gov' });
    const attackVector = cvss.getByRole('row', { name: /Attack Vector/ });
    await attackVector.getByRole('cell', { name: /Network/ }).waitFor();
    expect(await cvss.getByRole('row').count()).toBe(9); // the header and eight base metrics
    await page.getByRole('region', { name: 'CVSS v3.1' }).getByLabel('Base score 7.5').waitFor();
    // NVD's v2 assessment too, with its own names.
    await page
      .getByRole('table', { name: /Base metrics of CVSS v2\.0/ })
      .getByRole('row', { name: /Access Complexity/ })
      .getByText('Medium')
      .waitFor();

    const epss = page.getByRole('region', { name: 'Exploit prediction (EPSS)' });
    await epss.getByText('99.9 %').waitFor();
    expect(await page.getByTestId('epss-percentile').textContent()).toContain('top 0.01 %');
    await epss.getByRole('progressbar', { name: 'EPSS percentile' }).waitFor();

    const kev = page.getByRole('region', { name: 'Known exploited (CISA KEV)' });
    await kev.getByText(/^Known exploited, CISA's due date/).waitFor();
    await kev.getByText('Used in ransomware campaigns').waitFor();
    expect(await page.getByTestId('kev-due-date').locator('time').getAttribute('datetime')).toBe(
      '2021-11-17',
    );
    await kev.getByText('Apply updates per vendor instructions.').waitFor();

    const affected = page.getByRole('region', { name: /Affected assets and findings/ });
    await affected.getByRole('link', { name: '10.7.0.10', exact: true }).waitFor();
    await affected.getByRole('link', { name: '10.7.0.20', exact: true }).waitFor();

    // Every link that leaves Rampart opens a new tab without handing this page over.
    const external = await page
      .locator('main a[target="_blank"]')
      .evaluateAll((links) => links.map((a) => a.getAttribute('rel') ?? ''));
    expect(external.length).toBeGreaterThan(3);
    for (const rel of external) expect(rel.split(' ').sort()).toEqual(['noopener', 'noreferrer']);
    await page
      .getByTestId('data-sources')
      .getByText(/nvd-cves\.json\.gz/)
      .waitFor();

    await shots('66-vulnerability', () => kev.getByText(/^Known exploited, CISA's due date/).waitFor());
    await page.getByRole('region', { name: 'CVSS v3.1' }).scrollIntoViewIfNeeded();
    await shot('67-vulnerability-cvss');
    await affected.scrollIntoViewIfNeeded();
    await shot('68-vulnerability-affected');
    // The sections further down on a phone, in the dark.
    await scheme('dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await navigationGone();
    await page.getByRole('region', { name: 'CVSS v3.1' }).evaluate((el) => el.scrollIntoView());
    await shot('67-vulnerability-cvss-narrow-dark');
    await affected.evaluate((el) => {
      el.scrollIntoView();
      window.scrollBy(0, -72); // below the fixed header
    });
    await shot('68-vulnerability-affected-narrow-dark');
    await page
      .getByRole('region', { name: 'Description and references' })
      .evaluate((el) => el.scrollIntoView());
    await shot('68-vulnerability-references-narrow-dark');
    await scheme('light');
    await page.setViewportSize({ width: 1366, height: 900 });

    // From an affected finding to its page, and back to the vulnerability by its link.
    await affected.getByRole('link', { name: /^Open the finding on 10\.7\.0\.10,/ }).click();
    await page.getByRole('heading', { name: KEV_TITLE, level: 1 }).waitFor();
    await page.getByText('CISA KEV due date').waitFor();
    await page.getByText(/CISA's deadline for US federal agencies, for context/).waitFor();
    await shot('69-finding-detail');
    await page.getByRole('link', { name: 'Intelligence and affected assets' }).click();
    await page.getByRole('region', { name: 'Known exploited (CISA KEV)' }).waitFor();
  });

  it('says when no feed knows the CVE, and when there is none', async () => {
    const open = await openFindings();
    const unknown = open.find((f) => f.Title === 'Vendor appliance backdoor');
    await page.goto(`/vulnerabilities/${unknown?.VulnerabilityId}`);
    await page.getByText(`No feed knows ${UNKNOWN_CVE} yet`).waitFor();
    await page.getByText(`EPSS has no score for ${UNKNOWN_CVE}.`).waitFor();
    await page.getByText(`CISA does not list ${UNKNOWN_CVE} as exploited in the wild.`).waitFor();
    await page
      .getByRole('region', { name: /Affected assets and findings/ })
      .getByText('10.7.0.20')
      .waitFor();
    await shot('69-vulnerability-unknown-cve');

    const none = open.find((f) => f.Title === NO_CVE_TITLE);
    await page.goto(`/findings/${none?.Id}`);
    await page.getByRole('link', { name: 'Intelligence and affected assets' }).click();
    await page.getByText('This vulnerability names no CVE').waitFor();
    await page.getByText(/No CVSS assessment/).waitFor();
    await shot('70-vulnerability-no-cve');
  });

  it('filters the findings list by minimum risk and links each CVE to its vulnerability', async () => {
    await page.getByRole('link', { name: 'Findings', exact: true }).click();
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    await expect.poll(() => page.getByTestId('findings-total').textContent()).toBe('6 findings');
    await page.getByRole('textbox', { name: 'Risk at least' }).fill('60');
    await expect.poll(() => page.url()).toContain('RiskMin=60');
    await expect.poll(() => page.getByTestId('findings-total').textContent()).toBe('3 findings');
    await shot('71-findings-risk-min');
    await page.getByRole('link', { name: 'CVE-2021-41617' }).click();
    await page.getByRole('heading', { name: 'OpenSSH privilege escalation', level: 1 }).waitFor();
  });

  it('hides the feed status page from an Analyst and a ReadOnly user', async () => {
    for (const who of [ANALYST, READER]) {
      const other = await signIn(who, { width: 1280, height: 800 });
      await other.getByRole('link', { name: 'Top risks' }).waitFor();
      expect(await other.getByRole('link', { name: 'Feed status' }).count()).toBe(0);
      await other.goto('/feeds');
      await other.getByText('This page is not available to you: your role does not allow it.').waitFor();
      expect(await other.getByRole('heading', { name: 'Feed status' }).count()).toBe(0);
      const refused = await other.request.get('/api/latest/intel/feeds');
      expect(refused.status()).toBe(403);
      if (who === READER) {
        await shot('72-feeds-refused-reader', other);
        // Everyone may read what the feeds say about a CVE.
        await other.getByRole('link', { name: 'Top risks' }).click();
        await other.getByRole('img', { name: 'Risk 75 of 100' }).first().waitFor();
      }
      await other.context().close();
    }
  });
});
