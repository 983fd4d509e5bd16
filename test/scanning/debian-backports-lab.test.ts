// No false Critical on a patched Debian host: a system scan of the lab's stock Debian sshd (Debian 12's
// openssh-server, `SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u…`) files no Open upstream CVE that Debian
// fixed. With the knowledge base as it ships (no Debian data) the upstream matches are Unconfirmed:
// open, but not counted, not due and not listed by default. With Debian's OSV records loaded
// (test/fixtures/intel/osv-debian) the next scan decides them Fixed and closes them.
// Traffic goes only to the lab's /24, which the test first proves is routed only into the lab.

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInExecutors } from '../../src/scanning/node/executors.js';
import { buildTestApp, type Credentials, type TestApp, TestClock } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { apiCall } from '../helpers/scan-nodes.js';
import { createLab, type Lab, labAvailable } from '../lab/lab.js';

const KB = resolve(import.meta.dirname, '..', '..', 'knowledge-base');
const DEBIAN = resolve(import.meta.dirname, '..', 'fixtures', 'intel', 'osv-debian');
/** Upstream CVEs of OpenSSH 9.2p1 that Debian fixed in bookworm (deb12u1, deb12u3). */
const DEBIAN_FIXED = ['CVE-2023-38408', 'CVE-2024-6387'];

interface WireFinding {
  Id: string;
  Title: string;
  State: string;
  Confidence: string;
  RiskScore: number;
  DueAt: string | null;
  CVEReferences: string[];
  Location: { Port: number | null };
}

describe.runIf(labAvailable()).each(DB_KINDS)(
  '[lab] a stock Debian sshd and Debian backports [%s]',
  (kind) => {
    let lab: Lab;
    let tdb: TestDatabase;
    let t: TestApp;
    let admin: Credentials;
    let scanId: string;
    const clock = new TestClock();
    const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
      apiCall(t, method, url, { who: admin, body });

    beforeAll(async () => {
      lab = await createLab([{ name: 'ssh', index: 40, daemons: ['sshd'] }], { clock: clock.fn });
      tdb = await newTestDatabase(kind);
      t = await buildTestApp(tdb.database, {
        background: true,
        clock,
        env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
        scanExecutors: builtInExecutors(clock.fn),
      });
      admin = t.admin;
      // The knowledge base exactly as it ships: no Debian (nor Ubuntu) advisory data in it.
      expect(await t.services.intel.loadKnowledgeBaseIfEmpty(KB)).toBeDefined();
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await tdb?.drop();
      lab?.teardown();
    });

    const address = () => lab.hosts.get('ssh')!.address;

    /** Starts the scan and waits until the run's findings are stored; answers the run's report. */
    const runScan = async () => {
      const previous = (await call('GET', `/systemscans/${scanId}/runs/latest`)).json()?.Run?.Id ?? null;
      // A minute later by the application's clock: the new run is the latest by time, not by chance.
      clock.now = new Date(clock.now.getTime() + 60_000);
      expect((await call('POST', `/systemscans/${scanId}/start`)).statusCode).toBeLessThan(300);
      let report: {
        Run: { Id: string };
        Import: unknown;
        Backports: { Cve: string; Status: string }[];
      } | null = null;
      await expect
        .poll(
          async () => {
            const res = await call('GET', `/systemscans/${scanId}/runs/latest`);
            report = res.statusCode === 200 ? res.json() : null;
            return report !== null && report.Run.Id !== previous && report.Import !== null;
          },
          { timeout: 180_000, interval: 500 },
        )
        .toBe(true);
      return report!;
    };

    const findingsOnPort22 = async (query: string): Promise<WireFinding[]> => {
      const res = await call('GET', `/findings?PageSize=500&ScanId=${scanId}${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().Items as WireFinding[]).filter((f) => f.Location.Port === 22);
    };

    it('with the knowledge base as shipped: no Open upstream CVE Debian fixed is counted; they are Unconfirmed', async () => {
      lab.assertRoutedIntoLab();
      expect(
        (await call('POST', '/allowedtargets', { Kind: 'Allowed', Target: lab.subnet })).statusCode,
      ).toBe(201);
      const template = await call('POST', '/scantemplates', {
        Name: 'Lab ssh',
        Kind: 'System',
        Settings: {
          Ports: '22',
          TimeoutMs: 1000,
          Retries: 0,
          MaxInFlight: 16,
          ConnectionsPerSecond: 200,
          PerHostInFlight: 4,
          PortBudgetMs: 30_000,
          HostBudgetMs: 60_000,
          RunBudgetMs: 120_000,
          ServiceDetection: true,
          TlsChecks: false,
          SafeChecks: true,
          UseNmapVersionDetection: false,
        },
      });
      expect(template.statusCode, template.body).toBe(201);
      const scan = await call('POST', '/systemscans', {
        Name: 'Debian sshd',
        ScanTargets: [{ Range: address() }],
        TemplateId: template.json().Id,
      });
      expect(scan.statusCode, scan.body).toBe(201);
      scanId = scan.json().Id;

      const report = await runScan();
      const banner = (await call('GET', `/systemscans/${scanId}/runs/latest`))
        .json()
        .Hosts[0].Services.find((s: { Port: number }) => s.Port === 22).Banner as string;
      expect(banner).toMatch(/^SSH-2\.0-OpenSSH_9\.2p1 Debian-2\+deb12u\d+$/);

      // The shipped knowledge base matches these upstream CVEs on OpenSSH 9.2p1.
      const all = await findingsOnPort22('&Confidence=Any');
      const cves = all.filter((f) => f.CVEReferences.length > 0);
      expect(cves.map((f) => f.CVEReferences[0]).sort()).toEqual(expect.arrayContaining(DEBIAN_FIXED));
      for (const f of cves)
        expect(f, f.Title).toMatchObject({
          State: 'Open',
          Confidence: 'Unconfirmed',
          RiskScore: 0,
          DueAt: null,
        });
      for (const note of report.Backports) expect(note.Status).toBe('Unconfirmed');
      // None is in the default list: no counted Open upstream CVE at all on the sshd.
      expect((await findingsOnPort22('')).filter((f) => f.CVEReferences.length > 0)).toEqual([]);
      const evidence = (await call('GET', `/findings/${cves[0]!.Id}`)).json().Evidence as string;
      expect(evidence).toContain('Rampart holds no Debian advisory data for openssh 9.2p1');
    }, 300_000);

    it('with Debian OSV records loaded, the next scan decides them Fixed and closes them', async () => {
      for (const file of readdirSync(DEBIAN).filter((f) => f.endsWith('.json')))
        await t.services.intel.loadFile(join(DEBIAN, file), { feed: 'osv' });
      const report = await runScan();
      const decided = Object.fromEntries(report.Backports.map((b) => [b.Cve, b.Status]));
      for (const cve of DEBIAN_FIXED) expect(decided[cve], cve).toBe('Fixed');

      const all = await findingsOnPort22('&Confidence=Any');
      for (const cve of DEBIAN_FIXED) {
        const f = all.find((x) => x.CVEReferences.includes(cve));
        expect(f?.State, cve).toBe('Fixed');
      }
      // Nothing Debian fixed is Open, in the default list or out of it.
      const open = all.filter((f) => f.State === 'Open' || f.State === 'Reopened');
      expect(open.filter((f) => DEBIAN_FIXED.some((cve) => f.CVEReferences.includes(cve)))).toEqual([]);
    }, 300_000);
  },
);
