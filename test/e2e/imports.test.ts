/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { type NessusHost, nessusReport } from '../modules/imports/nessus-report.js';

const ANALYST = { email: 'analyst@example.com', password: 'reports come in weekly' };
const READER = { email: 'reader@example.com', password: 'looks but never touches' };

// Long plugin output makes the report large enough (~300 KB) for the throttled upload to show progress.
const padding = 'x'.repeat(60_000);
const HOSTS: NessusHost[] = [
  {
    ip: '10.9.0.1',
    fqdn: 'web-a.imports.example',
    os: 'Linux Kernel 5.15',
    items: [
      {
        plugin: '910001',
        name: 'Apache httpd outdated',
        severity: 3,
        cve: ['CVE-2024-38476'],
        output: padding,
      },
      { plugin: '910002', name: 'OpenSSL weak cipher suites', severity: 2, output: padding },
      { plugin: '910003', name: 'TLS 1.0 enabled', severity: 2 },
    ],
  },
  {
    ip: '10.9.0.2',
    fqdn: 'web-b.imports.example',
    items: [
      {
        plugin: '910001',
        name: 'Apache httpd outdated',
        severity: 3,
        cve: ['CVE-2024-38476'],
        output: padding,
      },
      { plugin: '910004', name: 'SSH weak MAC algorithms', severity: 1, port: 22, output: padding },
    ],
  },
];
const FINDINGS = HOSTS.reduce((sum, host) => sum + host.items.length, 0);
const GONE = 'SSH weak MAC algorithms';
// The next week's scan: the SSH result is gone (fixed), everything else is seen again.
const NEXT_WEEK = HOSTS.map((host) => ({ ...host, items: host.items.filter((i) => i.name !== GONE) }));

// The import journey of an Analyst, in Chromium: upload, follow, open what changed, re-import, fail.
describe.runIf(HAS_CHROMIUM)('imports page [browser]', () => {
  let rig: BrowserRig;
  let page: Page;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: ANALYST.email,
        name: 'Ann Analyst',
        role: 'Analyst',
        password: ANALYST.password,
      });
      await rampart.services.users.create(ctx, {
        email: READER.email,
        name: 'Rey Reader',
        role: 'ReadOnly',
        password: READER.password,
      });
    });
    page = await signIn(ANALYST, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
  });

  const signIn = (who: { email: string; password: string }, viewport: { width: number; height: number }) =>
    rig.signIn(who, viewport);

  const shot = (name: string, p = page) => rig.shot(p, name);

  /**
   * Chooses a file through the file input (or drops it on the drop zone), sends it, and returns the
   * result region of the import.
   */
  async function upload(name: string, content: string, via: 'input' | 'drop' = 'input') {
    if (via === 'input') {
      await page.getByLabel('Report file').setInputFiles({
        name,
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(content),
      });
    } else {
      const dataTransfer = await page.evaluateHandle(
        ([fileName, text]) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([text], fileName));
          return transfer;
        },
        [name, content] as const,
      );
      const zone = page.getByRole('group', { name: 'Drop zone for a report' });
      await zone.dispatchEvent('dragenter', { dataTransfer });
      await page.getByText('Drop the report to choose it').waitFor();
      await zone.dispatchEvent('drop', { dataTransfer });
    }
    await expect.poll(() => page.getByTestId('chosen-file').textContent()).toBe(name);
    await page.getByRole('button', { name: 'Import report' }).click();
    return page.getByRole('region', { name });
  }

  // What the list shows: "5 findings" once the rows for the new filter have arrived.
  async function findingsTotal(): Promise<string> {
    const total = page.getByTestId('findings-total');
    await expect.poll(async () => (await total.textContent()) ?? '').not.toContain('updating');
    return ((await total.textContent()) ?? '').trim();
  }

  it('uploads a Nessus report with a progress bar and shows what it found', async () => {
    await page.getByRole('link', { name: 'Imports' }).click();
    await page.getByRole('heading', { name: 'Imports', level: 1 }).waitFor();
    await page.getByText('No reports imported yet').waitFor();
    await shot('40-imports-empty');

    // Record every value the progress bar shows; a slow uplink makes the upload take a while.
    await page.evaluate(() => {
      const seen: number[] = [];
      Object.assign(window, { uploadProgress: seen });
      new MutationObserver(() => {
        const bar = document.querySelector('[role="progressbar"][aria-label="Upload progress"]');
        const value = Number(bar?.getAttribute('aria-valuenow') ?? Number.NaN);
        if (bar && seen.at(-1) !== value) seen.push(value);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 300_000,
    });

    const report = nessusReport(HOSTS);
    expect(report.length).toBeGreaterThan(200_000);
    const result = await upload('weekly.nessus', report);
    await page.getByRole('progressbar', { name: 'Upload progress' }).waitFor();
    await shot('41-imports-uploading');
    await result.getByText('Completed', { exact: true }).waitFor({ timeout: 20_000 });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    const progress = await page.evaluate(
      () => (window as unknown as { uploadProgress: number[] }).uploadProgress,
    );
    expect(progress.some((value) => value > 0 && value < 100)).toBe(true);
    expect(progress.at(-1)).toBe(100);

    await result.getByRole('link', { name: `New: ${FINDINGS} — show these findings` }).waitFor();
    await shot('42-imports-completed');
  });

  it('opens the findings the import created', async () => {
    await page.getByRole('link', { name: /^New: \d+/ }).click();
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    expect(page.url()).toMatch(/ImportId=[0-9a-f-]{36}&ImportChange=New/);
    await page.getByText('From import weekly.nessus').waitFor();
    expect(await findingsTotal()).toBe(`${FINDINGS} findings`);
    await shot('43-findings-from-import');
    // The chip removes the filter: back to every open finding.
    await page.getByRole('button', { name: 'Remove the import filter' }).click();
    await expect.poll(() => page.url()).not.toContain('ImportId');
    await expect.poll(() => page.getByText('From import').count()).toBe(0);
  });

  it('re-imports the next scan: the missing result is Fixed, and listed as such', async () => {
    await page.getByRole('link', { name: 'Imports' }).click();
    // Dragged onto the drop zone this time.
    const result = await upload('weekly-2.nessus', nessusReport(NEXT_WEEK), 'drop');
    await result.getByText('Completed', { exact: true }).waitFor();
    await result.getByRole('link', { name: 'Fixed: 1 — show these findings' }).waitFor();
    // Nothing new: the New figure is not a link, and it says 0.
    expect(await result.getByRole('link', { name: /^New: / }).count()).toBe(0);
    await shot('44-imports-reimport');

    await result.getByRole('link', { name: /^Fixed: 1/ }).click();
    await page.getByText('From import weekly-2.nessus').waitFor();
    expect(await findingsTotal()).toBe('1 finding');
    await page.getByRole('link', { name: GONE }).waitFor();
    expect(await page.getByRole('cell', { name: 'Fixed' }).count()).toBe(1);
  });

  it('refuses an unreadable file and lists the formats it reads', async () => {
    await page.getByRole('link', { name: 'Imports' }).click();
    await upload('notes.txt', 'These are my notes, not a scanner report.\n');
    const alert = page.getByRole('alert').filter({ hasText: 'Unknown report format' });
    await alert.waitFor();
    const formats = alert.getByRole('list', { name: /Rampart reads these formats/ });
    await formats.getByText('Nessus / Tenable', { exact: false }).waitFor();
    expect(await formats.getByRole('listitem').count()).toBeGreaterThanOrEqual(10);
    await shot('45-imports-unknown-format');
  });

  it('shows the warnings of a report, and the error of one that cannot be read', async () => {
    // A CSV export with the format and a scope chosen by hand; one of its rows names no host.
    await page.getByRole('textbox', { name: 'Format' }).click();
    await page.getByRole('option', { name: /^Nessus \/ Tenable/ }).click();
    await page.getByLabel('Scope name').fill('csv-weekly');
    const csv = [
      'Plugin ID,CVE,CVSS,Risk,Host,Protocol,Port,Name',
      '920001,,,High,10.9.0.3,tcp,80,Old web server',
      '920002,,,Medium,,tcp,80,A row without a host',
    ].join('\n');
    const result = await upload('export.csv', `${csv}\n`);
    await result.getByText('Completed', { exact: true }).waitFor();
    await result.getByRole('link', { name: 'New: 1 — show these findings' }).waitFor();
    const toggle = result.getByRole('button', { name: '1 warning' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    const warning = result.getByText(/Rows without a host \(first at line 3\) were skipped/);
    await warning.waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await warning.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.waitForTimeout(300); // the list opens with a short animation
    await shot('46-imports-warnings');

    // A report cut short: recognised as Nessus, but its XML ends mid-element. The form starts afresh.
    expect(await page.getByRole('textbox', { name: 'Format' }).inputValue()).toBe('Detect automatically');
    expect(await page.getByLabel('Scope name').inputValue()).toBe('');
    const broken = await upload('cut-short.nessus', nessusReport(HOSTS).slice(0, 3000));
    await broken.getByText('Failed', { exact: true }).waitFor();
    await broken.getByRole('alert').filter({ hasText: 'The import failed' }).waitFor();
    await shot('47-imports-failed');
  });

  it('lists the imports and opens one', async () => {
    const history = page.getByRole('region', { name: 'History' });
    const rows = history.getByRole('row');
    await expect.poll(() => rows.count()).toBe(5); // the header and four imports; the refused file is none
    await history
      .getByRole('row', { name: /weekly-2\.nessus/ })
      .getByText('Completed')
      .waitFor();
    await history.evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await shot('48-imports-history');

    await history.getByRole('link', { name: 'weekly.nessus', exact: true }).click();
    await page.getByRole('heading', { name: 'weekly.nessus', level: 1 }).waitFor();
    await page.getByRole('link', { name: `New: ${FINDINGS} — show these findings` }).waitFor();
    await shot('49-import-detail');

    // The same pages in the dark and on a phone.
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('50-import-detail-dark');
    await page.getByRole('link', { name: 'All imports' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await shot('51-imports-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    // The navigation slides away on a phone: wait for it to have gone.
    await page.waitForFunction(
      () => (document.getElementById('main-navigation')?.getBoundingClientRect().right ?? 0) <= 0,
    );
    await shot('52-imports-narrow-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await history.getByRole('link', { name: 'weekly-2.nessus' }).click();
    await page.getByRole('heading', { name: 'weekly-2.nessus', level: 1 }).waitFor();
    await shot('53-import-detail-narrow');
    await page.setViewportSize({ width: 1366, height: 900 });
  });

  // A report whose hosts cannot be identified used to show a green "Completed".
  it('flags an import that stored no finding of what it read', async () => {
    // From the import opened before.
    await page.getByRole('link', { name: 'All imports' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    const host = (name: string, plugin: string) =>
      `<ReportHost name="${name}"><HostProperties><tag name="host-ip">10.9.0.300</tag></HostProperties><ReportItem port="443" svc_name="www" protocol="tcp" severity="3" pluginID="${plugin}" pluginName="Unfiled ${plugin}" pluginFamily="Web Servers"/></ReportHost>`;
    const report = `<?xml version="1.0" ?>\n<NessusClientData_v2><Report name="x">${host('qa3 app01', '940001')}${host('qa3 app02', '940002')}</Report></NessusClientData_v2>\n`;
    const result = await upload('unfiled.nessus', report);
    await result.getByText('Needs attention', { exact: true }).waitFor();
    expect(await result.getByText('Completed', { exact: true }).count()).toBe(0);
    const alert = result.getByRole('alert').filter({ hasText: 'No finding was stored from this report' });
    await alert.getByText(/none became a finding: 4 were skipped/).waitFor();
    // The warnings say why, and are open from the start.
    const toggle = result.getByRole('button', { name: '2 warnings' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await result.getByText(/Host 'qa3 app01' was skipped with everything reported on it/).waitFor();
    await shot('54-imports-needs-attention');
    const history = page.getByRole('region', { name: 'History' });
    await history
      .getByRole('row', { name: /unfiled\.nessus/ })
      .getByText('Needs attention')
      .waitFor();
  });

  // The same file again is imported, and its page names the earlier import.
  it('says that a file imported again is the same file as an earlier import', async () => {
    const result = await upload('weekly-again.nessus', nessusReport(HOSTS));
    await result.getByText('Completed', { exact: true }).waitFor();
    await result.getByRole('link', { name: 'Open the import' }).click();
    await page.getByRole('heading', { name: 'weekly-again.nessus', level: 1 }).waitFor();
    const note = page.getByRole('alert').filter({ hasText: 'The same file as an earlier import' });
    await note.getByText(/It was imported again all the same/).waitFor();
    await shot('55-import-same-file');
    await note.getByRole('link', { name: /^import of / }).click();
    await page.getByRole('heading', { name: 'weekly.nessus', level: 1 }).waitFor();
    // The first import of that file names none.
    await page.getByRole('link', { name: `New: ${FINDINGS} — show these findings` }).waitFor();
    expect(await page.getByText('The same file as an earlier import').count()).toBe(0);
  });

  it('shows a read-only user the history without the upload', async () => {
    const reader = await signIn(READER, { width: 1280, height: 800 });
    await reader.getByRole('link', { name: 'Imports' }).click();
    await reader.getByRole('heading', { name: 'History' }).waitFor();
    await reader.getByRole('link', { name: 'weekly-2.nessus' }).waitFor();
    expect(await reader.getByRole('heading', { name: 'Import a report' }).count()).toBe(0);
    expect(await reader.getByLabel('Report file').count()).toBe(0);
    await reader.context().close();
  });
});
