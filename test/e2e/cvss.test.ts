/// <reference lib="dom" />
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spoolReport } from '../../src/modules/imports/upload.js';
import { type BrowserRig, HAS_CHROMIUM, startBrowserRig } from '../helpers/browser.js';
import { fixturePath } from '../importers/helpers.js';

const ANALYST = { email: 'analyst@example.com', password: 'scores of every version' };

// A scanner's CVSS v2, the only score Nessus gives plugin 58988, on the finding and vulnerability pages.
describe.runIf(HAS_CHROMIUM)('CVSS of every version on the pages [browser]', () => {
  let rig: BrowserRig;
  let page: Page;
  let dir: string;

  beforeAll(async () => {
    rig = await startBrowserRig(async ({ rampart, ctx }) => {
      await rampart.services.users.create(ctx, {
        email: ANALYST.email,
        name: 'Ann Analyst',
        role: 'Analyst',
        password: ANALYST.password,
      });
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-cvss-'));
    const report = await spoolReport(
      fs.createReadStream(fixturePath('tenable/nessus/nessus_with_cvssv3.nessus')),
      dir,
      1 << 24,
    );
    const submitted = await rig.rampart.services.imports.submit(rig.ctx, {
      report,
      fileName: 'nessus_with_cvssv3.nessus',
    });
    await rig.rampart.services.imports.settled(submitted.id);
    page = await rig.signIn(ANALYST, { width: 1366, height: 900 });
  }, 180_000);

  afterAll(async () => {
    await rig?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const findingOfPlugin = async (plugin: string) => {
    const res = await page.request.get('/api/latest/findings?PageSize=500');
    expect(res.status()).toBe(200);
    const items = (await res.json()).Items as { Id: string; VulnerabilityId: string; PluginGuidId: string }[];
    return items.find((f) => f.PluginGuidId === plugin)!;
  };

  it("shows the finding's CVSS v2 score with its version, and the v2 assessment on its vulnerability", async () => {
    const finding = await findingOfPlugin('58988');
    await page.goto(`/findings/${finding.Id}`);
    await page.getByText('7.5 (v2.0)').waitFor();
    await rig.shot(page, 'cvss-01-finding-v2');

    await page.goto(`/vulnerabilities/${finding.VulnerabilityId}`);
    const v2 = page.getByRole('region', { name: 'CVSS v2.0' });
    await v2.getByLabel('Base score 7.5').waitFor();
    await page
      .getByRole('table', { name: 'Base metrics of CVSS v2.0' })
      .getByRole('row', { name: /Access Complexity/ })
      .getByText('Low')
      .waitFor();
    expect(await page.getByText(/No CVSS assessment/).count()).toBe(0);
    await rig.shot(page, 'cvss-02-vulnerability-v2');
  });

  it('shows both versions where the report gives both, the higher one first (plugin 17797)', async () => {
    const finding = await findingOfPlugin('17797');
    await page.goto(`/findings/${finding.Id}`);
    await page.getByText('7.5 (v3.0)').waitFor();
    await page.goto(`/vulnerabilities/${finding.VulnerabilityId}`);
    await page.getByRole('region', { name: 'CVSS v3.0' }).getByLabel('Base score 7.5').waitFor();
    await page.getByRole('region', { name: 'CVSS v2.0' }).getByLabel('Base score 7.8').waitFor();
    const titles = await page.getByRole('heading', { name: /^CVSS v\d/, level: 3 }).allTextContents();
    expect(titles).toEqual(['CVSS v3.0', 'CVSS v2.0']);
  });
});
