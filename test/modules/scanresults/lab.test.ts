// A system scan and a web scan of the same real nginx (test/lab's legacy TLS site: TLS 1.0/1.1,
// an expired self-signed certificate, port 80 serving the site without a redirect), both turned
// into findings: each TLS issue is one finding of the host's port 443, whichever scan saw it, and
// the missing redirect is the http site's. Traffic goes only to the lab's /24.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import { systemScan } from '../../../src/scanning/system/index.js';
import type {
  SystemHostResult,
  SystemTemplate,
  WebTemplate,
  WebUrlResult,
} from '../../../src/scanning/types.js';
import { webScan } from '../../../src/scanning/web/index.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { createLab, type Lab, labAvailable } from '../../lab/lab.js';

const NOW = new Date('2031-05-04T12:00:00Z');
const SYSTEM_SCAN = '01900000-0000-7000-8000-00000000b001';
const WEB_SCAN = '01900000-0000-7000-8000-00000000b002';
let runSeq = 0;
const runId = () => `01900000-0000-7000-8000-${String(++runSeq).padStart(12, '0')}`;

const SYSTEM: SystemTemplate = {
  ports: '80,443',
  timeoutMs: 2000,
  retries: 1,
  maxInFlight: 16,
  connectionsPerSecond: 200,
  perHostInFlight: 4,
  portBudgetMs: 30_000,
  hostBudgetMs: 60_000,
  runBudgetMs: 120_000,
  serviceDetection: true,
  tlsChecks: true,
  safeChecks: true,
  useNmapVersionDetection: false,
};

const WEB: WebTemplate = {
  requestTimeoutMs: 5000,
  urlBudgetMs: 60_000,
  runBudgetMs: 120_000,
  requestsPerSecond: 50,
  tlsChecks: true,
  headerChecks: true,
  exposedFiles: false,
};

describe.runIf(labAvailable())('[lab] TLS findings of system and web scans of one site', () => {
  let lab: Lab;
  let address: string;
  const hosts: SystemHostResult[] = [];
  const urls: WebUrlResult[] = [];

  beforeAll(async () => {
    lab = await createLab([{ name: 'legacy', index: 20, daemons: ['nginx-legacy-tls'] }], {
      clock: () => NOW,
    });
    lab.assertRoutedIntoLab();
    address = lab.hosts.get('legacy')!.address;
    const allowed = (a: string) => (a === address ? null : { rule: 'NotAllowed' as const, message: a });
    await systemScan([address], SYSTEM, {
      signal: AbortSignal.timeout(150_000),
      check: allowed,
      now: () => NOW,
      onHost: (h) => {
        hosts.push(h);
      },
    });
    await webScan([`https://${address}/`], WEB, {
      signal: AbortSignal.timeout(150_000),
      check: allowed,
      now: () => NOW,
      onUrl: (u) => {
        urls.push(u);
      },
    });
  }, 300_000);
  afterAll(() => lab?.teardown());

  describe.each(DB_KINDS)('[%s]', (kind) => {
    let tdb: TestDatabase;
    let t: TestApp;
    let ctx: ServiceContext;
    beforeAll(async () => {
      tdb = await newTestDatabase(kind);
      t = await buildTestApp(tdb.database, { background: true });
      ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    });
    afterAll(async () => {
      await t?.close();
      await tdb?.drop();
    });

    it('each TLS issue is one finding on port 443; the missing redirect is the http site’s', async () => {
      // The web scan's TLS checks are those of the system scan's port 443.
      const tlsOf = (checks: { checkId: string; port: number | null }[]) =>
        checks
          .filter((c) => c.checkId.startsWith('tls.'))
          .map((c) => `${c.checkId}@${c.port}`)
          .sort();
      expect(tlsOf(urls[0]!.checks)).toEqual(tlsOf(hosts[0]!.checks));
      expect(tlsOf(urls[0]!.checks)).toEqual(
        expect.arrayContaining(['tls.certificate-expired@443', 'tls.legacy-version@443']),
      );
      // Both reached it by address, which the certificate names (IP subjectAltName): no mismatch.
      expect(hosts[0]!.hostname).toBeNull();
      expect(tlsOf(hosts[0]!.checks)).not.toContain('tls.certificate-name-mismatch@443');

      await t.services.scanResults.ingestSystem(ctx, {
        scanId: SYSTEM_SCAN,
        scanName: 'Legacy host',
        runId: runId(),
        hosts,
      });
      const web = await t.services.scanResults.ingestWeb(ctx, {
        scanId: WEB_SCAN,
        scanName: 'Legacy site',
        runId: runId(),
        urls,
      });

      const all = (await t.services.findings.listOffset(ctx, {}, 0, 500)).items;
      const tls = all.filter((f) => f.pluginId?.startsWith('tls.'));
      const perIssue = new Map<string, number>();
      for (const f of tls) perIssue.set(f.pluginId!, (perIssue.get(f.pluginId!) ?? 0) + 1);
      expect([...perIssue.values()].every((n) => n === 1)).toBe(true);
      expect(tls.every((f) => f.port === 443)).toBe(true);
      // Nothing the web scan saw of TLS was new.
      expect(web.counts.New).toBe(
        all.filter((f) => !f.pluginId?.startsWith('tls.') && f.assetName.startsWith('http')).length,
      );

      const redirect = all.find((f) => f.pluginId === 'web.no-https-redirect');
      expect(redirect?.assetName).toBe(`http://${address}`);
    });
  });
});
