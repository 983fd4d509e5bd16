// The web engine against real nginx sites in a lab of network namespaces (test/lab): a legacy TLS
// site with an expired self-signed certificate, no security headers and .git and .env left in
// its document root, and a site that answers 200 to every path. Then the legacy site is fixed
// (TLS 1.2+ only, .git removed) and scanned again: those findings go, the rest stay. Traffic goes
// only to the lab's /24, which the test first proves is routed only into the lab.

import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebTemplate, WebUrlResult } from '../../../src/scanning/types.js';
import { webScan } from '../../../src/scanning/web/index.js';
import { createLab, type Lab, labAvailable } from '../../lab/lab.js';

// Far from today: the certificate's expiry is judged on this clock, the lab makes it on the same.
const NOW = new Date('2031-05-04T12:00:00Z');

const TEMPLATE: WebTemplate = {
  // Generous for a loaded two-core CI machine; the lab answers in well under a millisecond.
  requestTimeoutMs: 5000,
  urlBudgetMs: 60_000,
  runBudgetMs: 180_000,
  requestsPerSecond: 50,
  tlsChecks: true,
  headerChecks: true,
  exposedFiles: true,
};

const HEADER_FINDINGS = [
  'web.header-csp',
  'web.header-hsts',
  'web.header-x-content-type-options',
  'web.header-x-frame-options',
];

describe.runIf(labAvailable())('[lab] web scans of real nginx sites', () => {
  let lab: Lab;
  const address = (name: string) => lab.hosts.get(name)!.address;
  const legacyUrl = () => `https://${address('legacy')}/`;
  const softUrl = () => `http://${address('soft')}/`;

  beforeAll(async () => {
    lab = await createLab(
      [
        { name: 'legacy', index: 20, daemons: ['nginx-legacy-tls'], hostname: 'legacy.lab.test' },
        { name: 'soft', index: 21, daemons: ['nginx-soft404'] },
      ],
      { clock: () => NOW },
    );
  });
  afterAll(() => lab?.teardown());

  /** Scans the URLs, allowed only the lab hosts' addresses; no name is resolved. */
  async function scan(urls: string[]) {
    lab.assertRoutedIntoLab();
    const inLab = new Set([address('legacy'), address('soft')]);
    const results: WebUrlResult[] = [];
    const counts = await webScan(urls, TEMPLATE, {
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
    expect(counts).toEqual({ scanned: urls.length, refused: 0, budgetExhausted: null });
    return results;
  }
  const ids = (r: WebUrlResult) => [...new Set(r.checks.map((c) => c.checkId))].sort();

  let before: WebUrlResult;

  it('the legacy TLS site: legacy TLS, an expired certificate, missing headers, .git, .env and nginx’s version', async () => {
    const [legacy, soft] = await scan([legacyUrl(), softUrl()]);
    before = legacy!;
    expect(legacy).toMatchObject({ url: legacyUrl(), status: 200, error: null, address: address('legacy') });
    expect(ids(legacy!)).toEqual(
      expect.arrayContaining([
        'tls.legacy-version',
        'tls.certificate-expired',
        'tls.certificate-self-signed',
        ...HEADER_FINDINGS,
        'web.exposed-git',
        'web.exposed-env',
        'service.version-disclosed',
      ]),
    );
    // TLS issues are the endpoint's (port 443, as a system scan files them); the missing redirect
    // is the http URL's (port 80 serves the site without one).
    for (const c of legacy!.checks.filter((c) => c.checkId.startsWith('tls.'))) expect(c.port).toBe(443);
    expect(legacy!.tlsPort).toBe(443);
    expect(legacy!.checks.find((c) => c.checkId === 'web.no-https-redirect')?.url).toBe(
      `http://${address('legacy')}/`,
    );
    const git = legacy!.checks.find((c) => c.checkId === 'web.exposed-git')!;
    expect(git.url).toBe(`${legacyUrl()}.git/HEAD`);
    // The version the Server header names is the lab's nginx, as `nginx -v` says it.
    const version = nginxVersion();
    expect(legacy!.software).toContainEqual(
      expect.objectContaining({ header: 'Server', product: 'nginx', version, value: `nginx/${version}` }),
    );
    expect(legacy!.headerScore?.grade).toBe('F');

    // The soft-404 site answers 200 to .git/HEAD and .env too: judged against its baseline, no finding.
    expect(soft).toMatchObject({ url: softUrl(), status: 200, error: null });
    expect(ids(soft!).filter((id) => id.startsWith('web.exposed-'))).toEqual([]);
    expect(ids(soft!)).toContain('web.header-csp');
  });

  it('after TLS 1.0/1.1 are turned off and .git removed, those findings are gone and the rest stay', async () => {
    expect(before).toBeDefined();
    await lab.disableLegacyTls('legacy');
    lab.removeGitDirectory('legacy');

    const [after] = await scan([legacyUrl()]);

    expect(after).toMatchObject({ status: 200, error: null });
    expect(ids(after!)).toEqual(
      ids(before).filter((id) => id !== 'tls.legacy-version' && id !== 'web.exposed-git'),
    );
    expect(ids(after!)).toEqual(
      expect.arrayContaining(['tls.certificate-expired', 'web.exposed-env', 'service.version-disclosed']),
    );
  });
});

/** The installed nginx's version (`nginx -v` writes it to stderr). */
function nginxVersion(): string {
  const out = spawnSync('nginx', ['-v'], { encoding: 'utf8' }).stderr;
  const match = /nginx\/(\S+)/.exec(out);
  if (!match) throw new Error(`nginx -v said ${out}`);
  return match[1]!;
}
