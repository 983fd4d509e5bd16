import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../../src/modules/context.js';
import type { FindingSummary } from '../../../src/modules/findings/types.js';
import type { ScanResultsService } from '../../../src/modules/scanresults/service.js';
import type { ScannedService, SystemHostResult, WebUrlResult } from '../../../src/scanning/types.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// A run's results become findings through the imports module, in the scan's
// scope, with the re-scan rules of re-imports restricted to where the scan looked. The knowledge
// base is loaded from real feed records (test/fixtures/intel: NVD and Ubuntu's OSV).

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'intel');
const SCAN = '01900000-0000-7000-8000-00000000a001';
const OTHER_SCAN = '01900000-0000-7000-8000-00000000a002';
const WEB_SCAN = '01900000-0000-7000-8000-00000000a003';
let runSeq = 0;
const runId = () => `01900000-0000-7000-8000-${String(++runSeq).padStart(12, '0')}`;

const NGINX_CPE = 'cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*';
const OPENSSH_CPE = 'cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*';

function service(port: number, extra: Partial<ScannedService> = {}): ScannedService {
  return {
    port,
    protocol: 'tcp',
    service: 'http',
    product: 'nginx',
    version: '1.18.0',
    cpes: [NGINX_CPE],
    confidence: 0.9,
    banner: 'Server: nginx/1.18.0 (Ubuntu)',
    evidence: 'Server header',
    tls: false,
    detectedBy: 'rampart',
    ...extra,
  };
}

const ssh = (banner: string): ScannedService =>
  service(22, {
    service: 'ssh',
    product: 'OpenSSH',
    version: '8.9p1',
    cpes: [OPENSSH_CPE],
    banner,
    evidence: 'SSH identification line',
  });

function host(address: string, extra: Partial<SystemHostResult> = {}): SystemHostResult {
  return {
    address,
    hostname: null,
    answered: true,
    openPorts: [23, 80],
    closedPorts: [],
    filtered: 0,
    unscannedPorts: [],
    services: [service(80)],
    checks: [{ checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' }],
    budgetExhausted: null,
    ...extra,
  };
}

describe.each(DB_KINDS)('findings from scans [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;
  let results: ScanResultsService;

  const system = (
    hosts: SystemHostResult[],
    extra: { verify?: { findingIds: string[] }; scanId?: string; ports?: number[] } = {},
  ) =>
    results.ingestSystem(ctx, {
      scanId: extra.scanId ?? SCAN,
      scanName: 'Lab hosts',
      runId: runId(),
      hosts,
      verify: extra.verify ?? null,
      portScanned: extra.ports ? (port) => extra.ports!.includes(port) : null,
    });

  const findingsOf = async (address: string): Promise<FindingSummary[]> => {
    const assets = await t.services.assets.list(ctx, { search: address }, 50);
    const asset = assets.items.find((a) => a.ipAddresses.includes(address));
    if (!asset) return [];
    return (await t.services.findings.listOffset(ctx, { assetId: asset.id }, 0, 100)).items;
  };
  const byRule = async (address: string, rule: string) =>
    (await findingsOf(address)).find((f) => f.title === rule || f.pluginId === rule);

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    results = t.services.scanResults;
    for (const cve of ['CVE-2021-23017', 'CVE-2023-38408', 'CVE-2024-6387'])
      await t.services.intel.loadFile(join(FIXTURES, 'nvd', `${cve}.json`), { feed: 'nvd' });
    for (const folder of ['osv-ubuntu', 'osv-debian']) {
      const osv = join(FIXTURES, folder);
      for (const file of readdirSync(osv).filter((f) => f.endsWith('.json')))
        await t.services.intel.loadFile(join(osv, file), { feed: 'osv' });
    }
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('a run puts the services on the host asset and makes check and CVE findings with evidence', async () => {
    const result = await system([host('198.18.10.1', { hostname: 'web1.lab.example.' })]);
    expect(result.counts).toMatchObject({ New: 2, Fixed: 0, Services: 1 });
    const imported = await t.services.imports.get(ctx, result.importId);
    expect(imported).toMatchObject({
      state: 'Completed',
      format: 'rampart-system-scan',
      fileName: 'Lab hosts',
      scopeName: `system-scan:${SCAN}`,
    });

    const assets = await t.services.assets.list(ctx, { search: '198.18.10.1' }, 10);
    const asset = assets.items.find((a) => a.ipAddresses.includes('198.18.10.1'))!;
    expect(asset).toMatchObject({ kind: 'Host', hostname: 'web1' });
    expect(await t.services.assets.services(ctx, asset.id)).toEqual([
      expect.objectContaining({
        port: 80,
        protocol: 'tcp',
        name: 'http',
        product: 'nginx',
        version: '1.18.0',
        cpe: NGINX_CPE,
        banner: 'Server: nginx/1.18.0 (Ubuntu)',
      }),
    ]);

    const telnet = await t.services.findings.get(
      ctx,
      (await byRule('198.18.10.1', 'Telnet service (cleartext logins)'))!.id,
    );
    expect(telnet).toMatchObject({
      severity: 'High',
      port: 23,
      source: 'Rampart system scan',
      evidence: 'login: ',
      state: 'Open',
      pluginId: 'cleartext.telnet',
    });
    const cve = await t.services.findings.get(ctx, (await byRule('198.18.10.1', 'CVE-2021-23017'))!.id);
    expect(cve.cveIds).toEqual(['CVE-2021-23017']);
    expect(cve.port).toBe(80);
    // NVD's CVSS 3.1 base score of CVE-2021-23017 is 7.7.
    expect(cve.severity).toBe('High');
    expect(cve.evidence).toContain('Banner: Server: nginx/1.18.0 (Ubuntu)');
    expect(cve.evidence).toContain('matches cpe:2.3:a:f5:nginx:*');
    expect(cve.evidence).toContain('confidence 0.9');
    // nginx's Server header shows no package revision: the upstream match stays, banner-only.
    expect(cve.evidence).toMatch(/Distribution: banner-only/);
  });

  it('a re-scan without the check fixes it; it comes back Reopened; a risk acceptance survives', async () => {
    const address = '198.18.10.2';
    await system([host(address)]);
    const gone = await system([host(address, { checks: [] })]);
    expect(gone.counts).toMatchObject({ Fixed: 1, New: 0 });
    expect((await byRule(address, 'Telnet service (cleartext logins)'))?.state).toBe('Fixed');
    // The CVE finding was seen again.
    expect((await byRule(address, 'CVE-2021-23017'))?.state).toBe('Open');

    const back = await system([host(address)]);
    expect(back.counts).toMatchObject({ Reopened: 1 });
    expect((await byRule(address, 'Telnet service (cleartext logins)'))?.state).toBe('Reopened');

    const cve = (await byRule(address, 'CVE-2021-23017'))!;
    await t.services.findings.changeState(ctx, cve.id, {
      state: 'RiskAccepted',
      justification: 'Resolver not used',
      until: new Date(t.clock.now.getTime() + 30 * 86_400_000),
    });
    await system([host(address, { services: [], openPorts: [23] })]);
    expect((await byRule(address, 'CVE-2021-23017'))?.state).toBe('RiskAccepted');
  });

  it('a port a budget left unscanned keeps its findings; a host the run did not reach too', async () => {
    const [a, b] = ['198.18.10.3', '198.18.10.4'];
    await system([host(a), host(b)]);
    const result = await system([
      host(a, { checks: [], services: [], unscannedPorts: [23, 80], budgetExhausted: 'host' }),
    ]);
    expect(result.counts.Fixed).toBe(0);
    for (const address of [a, b])
      for (const f of await findingsOf(address)) expect(f.state, `${address} ${f.title}`).toBe('Open');
    // The same host scanned to the end: both go.
    const full = await system([host(a, { checks: [], services: [] }), host(b)]);
    expect(full.counts.Fixed).toBe(2);
  });

  it('another saved scan that examined the host and port to the end closes what it no longer sees', async () => {
    const address = '198.18.10.5';
    await system([host(address)], { scanId: OTHER_SCAN });
    const telnet = (await byRule(address, 'Telnet service (cleartext logins)'))!;
    // This scan reached the host but a budget left port 23 unscanned: no evidence about telnet.
    const partial = await system([
      host(address, { checks: [], unscannedPorts: [23], budgetExhausted: 'port' }),
    ]);
    expect(partial.counts.Fixed).toBe(0);
    expect((await t.services.findings.get(ctx, telnet.id)).state).toBe('Open');
    // Now to the end, port 23 included: telnet is gone; the CVE on 80 is still reported.
    const full = await system([host(address, { checks: [] })]);
    expect(full.counts).toMatchObject({ Fixed: 1, New: 0 });
    expect((await t.services.findings.get(ctx, telnet.id)).state).toBe('Fixed');
    expect((await byRule(address, 'CVE-2021-23017'))?.state).toBe('Open');
    // A host neither scan looked at keeps its findings.
    await system([host('198.18.10.11')], { scanId: OTHER_SCAN });
    await system([host(address, { checks: [] })]);
    expect((await byRule('198.18.10.11', 'Telnet service (cleartext logins)'))?.state).toBe('Open');
  });

  it('a backport another scan newly decides Fixed closes the finding the first scan filed', async () => {
    const address = '198.18.10.13';
    await system(
      [host(address, { services: [ssh('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1')], checks: [] })],
      {
        scanId: OTHER_SCAN,
      },
    );
    expect((await findingsOf(address)).filter((f) => f.state === 'Open')).toHaveLength(2);
    const patched = await system([
      host(address, { services: [ssh('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10')], checks: [] }),
    ]);
    expect(patched.counts).toMatchObject({ New: 0, Fixed: 2 });
    for (const f of await findingsOf(address)) expect(f.state).toBe('Fixed');
  });

  it('a port the run did not probe (its port list) is no evidence, whichever scan found the finding', async () => {
    const address = '198.18.10.12';
    await system([host(address)], { scanId: OTHER_SCAN });
    const only80 = await results.ingestSystem(ctx, {
      scanId: SCAN,
      scanName: 'Web ports',
      runId: runId(),
      hosts: [host(address, { checks: [], openPorts: [80] })],
      portScanned: (port) => port === 80,
    });
    expect(only80.counts.Fixed).toBe(0);
    expect((await byRule(address, 'Telnet service (cleartext logins)'))?.state).toBe('Open');
  });

  it('backports: a build with the fix makes no finding and closes an open one', async () => {
    const address = '198.18.10.6';
    const vulnerable = 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1';
    const patched = 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10';
    const first = await system([host(address, { services: [ssh(vulnerable)], checks: [], openPorts: [22] })]);
    const openssh = (await findingsOf(address)).filter((f) => f.cveIds.length > 0);
    expect(openssh.map((f) => f.cveIds[0]).sort()).toEqual(['CVE-2023-38408', 'CVE-2024-6387']);
    const regre = await t.services.findings.get(
      ctx,
      openssh.find((f) => f.cveIds[0] === 'CVE-2024-6387')!.id,
    );
    expect(regre.evidence).toContain('Distribution: Ubuntu:22.04:LTS openssh 1:8.9p1-3ubuntu0.1 is affected');
    expect(first.backports).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ cveId: 'CVE-2024-6387', status: 'Affected', port: 22, address }),
      ]),
    );

    const second = await system([host(address, { services: [ssh(patched)], checks: [], openPorts: [22] })]);
    expect(second.counts).toMatchObject({ New: 0, Fixed: 2 });
    for (const f of await findingsOf(address)) expect(f.state).toBe('Fixed');
    const fixed = second.backports.find((n) => n.cveId === 'CVE-2024-6387');
    expect(fixed).toMatchObject({ status: 'Fixed', banner: patched });
    expect(fixed?.evidence).toMatch(/^fixed in 1:8\.9p1-3ubuntu0\.10 by /);
  });

  it('backports: Debian records naming their CVE in upstream (osv.dev now) decide a bookworm build', async () => {
    const address = '198.18.10.10';
    const bookworm = (revision: string) =>
      service(22, {
        service: 'ssh',
        product: 'OpenSSH',
        version: '9.2p1',
        cpes: ['cpe:2.3:a:openbsd:openssh:9.2:p1:*:*:*:*:*:*'],
        banner: `SSH-2.0-OpenSSH_9.2p1 Debian-${revision}`,
        evidence: 'SSH identification line',
      });
    const stock = await system([
      host(address, { services: [bookworm('2+deb12u10')], checks: [], openPorts: [22] }),
    ]);
    expect(stock.counts.New).toBe(0);
    expect(Object.fromEntries(stock.backports.map((n) => [n.cveId, n.status]))).toEqual({
      'CVE-2023-38408': 'Fixed',
      'CVE-2024-6387': 'Fixed',
    });
    // deb12u2 came before the regreSSHion fix (deb12u3): that one is filed, affected.
    const old = await system([
      host(address, { services: [bookworm('2+deb12u2')], checks: [], openPorts: [22] }),
    ]);
    expect(old.counts.New).toBe(1);
    const [regre] = (await findingsOf(address)).filter((f) => f.cveIds.length > 0);
    expect(regre?.cveIds).toEqual(['CVE-2024-6387']);
    expect((await t.services.findings.get(ctx, regre!.id)).evidence).toContain(
      'Distribution: Debian:12 openssh 1:9.2p1-2+deb12u2 is affected: before the fix 1:9.2p1-2+deb12u3 (DEBIAN-CVE-2024-6387)',
    );
  });

  it('backports: a banner without a distribution build keeps the upstream match, banner-only', async () => {
    const address = '198.18.10.7';
    await system([host(address, { services: [ssh('SSH-2.0-OpenSSH_8.9p1')], checks: [], openPorts: [22] })]);
    const found = (await findingsOf(address)).filter((f) => f.cveIds.length > 0);
    expect(found).toHaveLength(2);
    for (const f of found)
      expect((await t.services.findings.get(ctx, f.id)).evidence).toContain(
        'Distribution: banner-only: the banner names no distribution build',
      );
  });

  it('a Verify run fixes only the findings it was asked about', async () => {
    const address = '198.18.10.8';
    const twoChecks = host(address, {
      checks: [
        { checkId: 'cleartext.telnet', port: 23, url: null, evidence: 'login: ' },
        { checkId: 'cleartext.ftp', port: 21, url: null, evidence: '220 ftp' },
      ],
      openPorts: [21, 23, 80],
    });
    await system([twoChecks]);
    const telnet = (await byRule(address, 'Telnet service (cleartext logins)'))!;
    // A Verify run probes only the ports of the findings it was asked about.
    const verify = await system([host(address, { checks: [], services: [] })], {
      verify: { findingIds: [telnet.id] },
      ports: [23],
    });
    expect(verify.counts.Fixed).toBe(1);
    expect((await byRule(address, 'Telnet service (cleartext logins)'))?.state).toBe('Fixed');
    expect((await byRule(address, 'FTP without TLS'))?.state).toBe('Open');
    expect((await byRule(address, 'CVE-2021-23017'))?.state).toBe('Open');
  });

  it('a check id the catalogue does not know makes no finding', async () => {
    const result = await system([
      host('198.18.10.9', { checks: [{ checkId: 'no.such.check', port: 23, url: null, evidence: 'x' }] }),
    ]);
    expect(result.counts.New).toBe(1);
  });

  it('a web run: findings per URL; an URL with an error does not fix its findings', async () => {
    const url = (u: string, extra: Partial<WebUrlResult> = {}): WebUrlResult => ({
      url: u,
      finalUrl: null,
      status: 200,
      address: '198.18.20.1',
      software: [
        {
          header: 'Server',
          value: 'nginx/1.18.0 (Ubuntu)',
          product: 'nginx',
          version: '1.18.0',
          cpes: [NGINX_CPE],
        },
      ],
      checks: [
        { checkId: 'web.exposed-git', port: null, url: `${u}.git/HEAD`, evidence: 'ref: refs/heads/main' },
      ],
      headerScore: null,
      notes: [],
      error: null,
      budgetExhausted: null,
      ...extra,
    });
    const web = (urls: WebUrlResult[], scanId = SCAN) =>
      results.ingestWeb(ctx, { scanId, scanName: 'Lab site', runId: runId(), urls });
    const first = await web([url('http://198.18.20.1/')]);
    expect(first.counts).toMatchObject({ New: 2 });
    expect((await t.services.imports.get(ctx, first.importId)).format).toBe('rampart-web-scan');
    const failed = await web([
      url('http://198.18.20.1/', { checks: [], software: [], error: 'connection refused' }),
    ]);
    expect(failed.counts.Fixed).toBe(0);
    const clean = await web([url('http://198.18.20.1/', { checks: [] })]);
    expect(clean.counts.Fixed).toBe(1);
    // Another web scan of the same origin, checked to the end, closes what this one found.
    await web([url('http://198.18.20.1/')]);
    const other = await web([url('http://198.18.20.1/', { checks: [] })], OTHER_SCAN);
    expect(other.counts).toMatchObject({ Fixed: 1 });
  });

  it('a TLS issue is one finding per host and port, confirmed and closed by system and web scans alike', async () => {
    const address = '198.18.30.1';
    const expired = (url: string | null) => ({
      checkId: 'tls.certificate-expired',
      port: 443,
      url,
      evidence: 'notAfter 2031-04-04T12:00:00Z, 30 days before the scan',
    });
    const tlsHost = (checks: SystemHostResult['checks']) =>
      host(address, {
        openPorts: [443],
        services: [service(443, { service: 'https', tls: true })],
        checks,
        tlsChecked: true,
      });
    const https = `https://${address}/`;
    const site = (extra: Partial<WebUrlResult>): WebUrlResult => ({
      url: https,
      finalUrl: https,
      status: 200,
      address,
      software: [],
      checks: [expired(https)],
      headerScore: null,
      notes: [],
      error: null,
      budgetExhausted: null,
      tlsPort: 443,
      ...extra,
    });
    const web = (urls: WebUrlResult[]) =>
      results.ingestWeb(ctx, { scanId: WEB_SCAN, scanName: 'Lab site', runId: runId(), urls });
    const tlsFindings = async () =>
      (await findingsOf(address)).filter((f) => f.pluginId === 'tls.certificate-expired');

    await system([tlsHost([expired(null)])]);
    expect(await tlsFindings()).toMatchObject([{ state: 'Open', port: 443 }]);

    // The web scan sees the same certificate: the same finding, on the host's port, not a second one.
    const seen = await web([site({})]);
    expect(seen.counts).toMatchObject({ New: 0 });
    expect(await tlsFindings()).toMatchObject([{ state: 'Open', port: 443 }]);
    const webAsset = (await t.services.assets.list(ctx, { search: address }, 50)).items.find(
      (a) => a.kind === 'WebApplication',
    );
    const onSite = webAsset
      ? (await t.services.findings.listOffset(ctx, { assetId: webAsset.id }, 0, 100)).items
      : [];
    expect(onSite.filter((f) => f.pluginId?.startsWith('tls.'))).toEqual([]);

    // The system scan finds the certificate renewed: it closes the finding the web scan saw last.
    const renewed = await system([tlsHost([])]);
    expect(renewed.counts.Fixed).toBe(1);
    expect(await tlsFindings()).toMatchObject([{ state: 'Fixed' }]);

    // Back again in a web scan: Reopened; a web run that did not judge TLS leaves it; one that did, closes it.
    await web([site({})]);
    expect(await tlsFindings()).toMatchObject([{ state: 'Reopened' }]);
    await web([site({ checks: [], tlsPort: null })]);
    expect(await tlsFindings()).toMatchObject([{ state: 'Reopened' }]);
    const closed = await web([site({ checks: [] })]);
    expect(closed.counts.Fixed).toBe(1);
    expect(await tlsFindings()).toMatchObject([{ state: 'Fixed' }]);

    // A system run without TLS checks does not close another scan's TLS finding.
    await web([site({})]);
    await system([{ ...tlsHost([]), tlsChecked: false }]);
    expect(await tlsFindings()).toMatchObject([{ state: 'Reopened' }]);
  });

  it('a name mismatch seen by address is not closed by a scan that reached the endpoint by name', async () => {
    const address = '198.18.30.3';
    const mismatch = {
      checkId: 'tls.certificate-name-mismatch',
      port: 443,
      url: null,
      evidence: `Reached as ${address}; certificate names: CN=site.test, DNS:site.test`,
    };
    await system([
      host(address, {
        openPorts: [443],
        services: [service(443, { service: 'https', tls: true })],
        checks: [mismatch],
        tlsChecked: true,
      }),
    ]);
    // A web scan of https://site.test/ on the same address: the name matches there.
    const byName = await results.ingestWeb(ctx, {
      scanId: WEB_SCAN,
      scanName: 'Site by name',
      runId: runId(),
      urls: [
        {
          url: 'https://site.test/',
          finalUrl: 'https://site.test/',
          status: 200,
          address,
          software: [],
          checks: [],
          headerScore: null,
          notes: [],
          error: null,
          budgetExhausted: null,
          tlsPort: 443,
        },
      ],
    });
    expect(byName.counts.Fixed).toBe(0);
    expect(await byRule(address, 'tls.certificate-name-mismatch')).toMatchObject({ state: 'Open' });
  });

  it("no-https-redirect found through an https URL is filed on its http counterpart's site", async () => {
    const address = '198.18.30.2';
    const https = `https://${address}/`;
    const http = `http://${address}/`;
    const result = (checks: WebUrlResult['checks']): WebUrlResult => ({
      url: https,
      finalUrl: https,
      status: 200,
      address,
      software: [],
      checks,
      headerScore: null,
      notes: [],
      error: null,
      budgetExhausted: null,
      httpCounterpart: http,
    });
    const web = (urls: WebUrlResult[]) =>
      results.ingestWeb(ctx, { scanId: WEB_SCAN, scanName: 'Lab site', runId: runId(), urls });
    await web([
      result([{ checkId: 'web.no-https-redirect', port: null, url: http, evidence: 'HTTP/1.1 200 OK' }]),
    ]);
    const sites = (await t.services.assets.list(ctx, { search: address }, 50)).items;
    const plain = sites.find((a) => a.kind === 'WebApplication' && a.url?.startsWith('http://'));
    expect(plain).toBeDefined();
    const found = (await t.services.findings.listOffset(ctx, { assetId: plain!.id }, 0, 100)).items;
    expect(found).toMatchObject([{ pluginId: 'web.no-https-redirect', state: 'Open' }]);
    // The https URL's next run finds the redirect in place: its counterpart's finding is fixed.
    const fixed = await web([result([])]);
    expect(fixed.counts.Fixed).toBe(1);
  });
});
