// Directory listings of real nginx sites in the lab (test/lab): one (`autoindex on`) naming a
// database dump, an archive and a backup that nginx refuses, one naming nothing of the kind (a
// negative control). Traffic goes only to the lab's /24.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebTemplate, WebUrlResult } from '../../../src/scanning/types.js';
import { webScan } from '../../../src/scanning/web/index.js';
import { createLab, type Lab, labAvailable } from '../../lab/lab.js';

const NOW = new Date('2031-05-04T12:00:00Z');

const TEMPLATE: WebTemplate = {
  requestTimeoutMs: 5000,
  urlBudgetMs: 60_000,
  runBudgetMs: 120_000,
  requestsPerSecond: 50,
  tlsChecks: true,
  headerChecks: false,
  exposedFiles: true,
};

describe.runIf(labAvailable())('[lab] web scans of nginx directory listings', () => {
  let lab: Lab;
  const results: WebUrlResult[] = [];
  const url = (name: string) => `http://${lab.hosts.get(name)!.address}/`;

  beforeAll(async () => {
    lab = await createLab([
      { name: 'listing', index: 30, daemons: ['nginx-autoindex'] },
      { name: 'clean', index: 31, daemons: ['nginx-autoindex-clean'] },
    ]);
    lab.assertRoutedIntoLab();
    const inLab = new Set([...lab.hosts.values()].map((h) => h.address));
    const counts = await webScan([url('listing'), url('clean')], TEMPLATE, {
      signal: AbortSignal.timeout(TEMPLATE.runBudgetMs + 30_000),
      check: (a) => (inLab.has(a) ? null : { rule: 'NotAllowed', message: `${a} is not a lab host` }),
      resolve: async (name) => {
        throw new Error(`no name is resolved in the lab (${name})`);
      },
      now: () => NOW,
      onUrl: (r) => {
        results.push(r);
      },
    });
    expect(counts).toEqual({ scanned: 2, refused: 0, budgetExhausted: null });
  }, 180_000);
  afterAll(() => lab?.teardown());

  const checks = (name: string) => results.find((r) => r.url === url(name))!.checks;

  it('the listing names backup.sql and an archive that download: web.listed-backup names them', () => {
    const found = checks('listing').find((c) => c.checkId === 'web.listed-backup');
    expect(found?.url).toBe(url('listing'));
    // old-site.bak is listed too, but nginx answers 403 for it.
    expect(found?.details?.files).toEqual(['backup.sql', 'site-2031-05-01.tar.gz']);
    expect(checks('listing').map((c) => c.checkId)).toContain('web.directory-listing');
  });

  it('a listing with no backup names: a directory listing, no web.listed-backup', () => {
    const ids = checks('clean').map((c) => c.checkId);
    expect(ids).toContain('web.directory-listing');
    expect(ids).not.toContain('web.listed-backup');
  });
});
