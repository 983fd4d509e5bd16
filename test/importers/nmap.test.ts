import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { burpImporter } from '../../src/importers/burp/index.js';
import { NMAP_SEVERITY_BY_CVSS, nmapImporter, severityFromCvss } from '../../src/importers/nmap/index.js';
import type { ImportRecord } from '../../src/importers/types.js';
import { zapImporter } from '../../src/importers/zap/index.js';
import {
  assets,
  failure,
  fixturePath,
  head,
  manifestEntries,
  parseFixture,
  parseText,
  services,
} from './helpers.js';

/** The ReportError a parse fails with (the test fails when it does not). */

describe('nmap importer: DefectDojo samples', () => {
  // DefectDojo makes an "Open port" finding per open port; Rampart makes a service record per
  // open port and findings only from the vulners script, which none of these samples ran. So the
  // samples give no findings, and the services are compared with DefectDojo's count.
  // issue12411.xml: DefectDojo expects 2 because it merges the same port of different hosts into
  // one finding (80/tcp and 443/tcp, each on two hosts); Rampart keeps a service per host and
  // port: 4.
  const rampartServices: Record<string, number> = { 'nmap/issue12411.xml': 4 };

  for (const entry of manifestEntries('nmap')) {
    it(`${entry.file}: ${rampartServices[entry.file] ?? entry.expectedFindings} services, no findings`, async () => {
      const { records, findings } = await parseFixture(nmapImporter, entry.file);
      expect(findings).toHaveLength(0);
      expect(services(records)).toHaveLength(rampartServices[entry.file] ?? entry.expectedFindings);
    });
  }

  it('nmap_multiple_port.xml: the first open port matches DefectDojo (21/tcp on the PTR name)', async () => {
    const [first] = services((await parseFixture(nmapImporter, 'nmap/nmap_multiple_port.xml')).records);
    // DefectDojo: title "Open port: 21/tcp", endpoint tcp://mocha2005.mochahost.com:21, Info.
    expect(first).toMatchObject({ port: 21, protocol: 'tcp', name: 'ftp' });
    expect(first!.asset).toEqual({
      kind: 'Host',
      hostname: 'joaquinlp.me',
      fqdn: 'mocha2005.mochahost.com',
      ipAddresses: ['198.38.82.159'],
    });
    expect(
      services((await parseFixture(nmapImporter, 'nmap/nmap_multiple_port.xml')).records).map((s) => s.port),
    ).toEqual([21, 25, 53, 80, 110, 143, 443, 465, 587, 993, 995, 2525, 3306]);
  });

  it('issue12411.xml: only open ports of each host, with its user and PTR names', async () => {
    const { records } = await parseFixture(nmapImporter, 'nmap/issue12411.xml');
    expect(services(records).map((s) => [s.asset.ipAddresses?.[0], s.port, s.name])).toEqual([
      ['172.217.18.238', 80, 'http'],
      ['172.217.18.238', 443, 'https'],
      ['54.239.28.85', 80, 'http'],
      ['54.239.28.85', 443, 'https'],
    ]);
    // The "custom" hostname type is neither the scanned name nor reverse DNS: not used.
    expect(records[0]!.asset).toEqual({
      kind: 'Host',
      hostname: 'google.com',
      fqdn: 'par10s10-in-f238.1e100.net',
      ipAddresses: ['172.217.18.238'],
    });
    expect(records[2]!.asset).toEqual({
      kind: 'Host',
      hostname: 'amazon.com',
      ipAddresses: ['54.239.28.85'],
    });
  });

  it('nmap_0port.xml: a live host without open ports is still an asset', async () => {
    const { records } = await parseFixture(nmapImporter, 'nmap/nmap_0port.xml');
    expect(records).toEqual([
      {
        type: 'asset',
        asset: { kind: 'Host', fqdn: 'localhost.localdomain', ipAddresses: ['127.0.0.1'] },
      },
    ]);
  });
});

describe('nmap importer: hosts, services and vulners findings', () => {
  const file = 'nmap/handmade-vulners.xml';

  it('reads every address kind, both names and the most accurate OS match', async () => {
    const { records } = await parseFixture(nmapImporter, file);
    expect(records[0]!.asset).toEqual({
      kind: 'Host',
      hostname: 'intranet.example.org',
      fqdn: 'web01.lab.example.org',
      ipAddresses: ['192.168.56.10'],
      macAddresses: ['08:00:27:4E:66:A1'],
      // Listed second, but 98% beats 96%.
      operatingSystem: 'Linux 5.0 - 5.14',
    });
    const ipv6 = services(records).find((s) => s.asset.ipAddresses?.includes('2001:db8:10::22'));
    expect(ipv6?.asset).toEqual({
      kind: 'Host',
      fqdn: 'bastion.lab.example.org',
      ipAddresses: ['2001:db8:10::22'],
    });
  });

  it('makes a service of every open TCP/UDP port with product, version, CPE and banner', async () => {
    const { records, warnings } = await parseFixture(nmapImporter, file);
    const list = services(records).map(({ asset: _asset, type: _type, ...service }) => service);
    expect(list).toEqual([
      {
        port: 22,
        protocol: 'tcp',
        name: 'ssh',
        product: 'OpenSSH',
        version: '8.9p1 Ubuntu 3ubuntu0.6',
        // The application's CPE, not the OS's that follows it.
        cpe: 'cpe:/a:openbsd:openssh:8.9p1',
        banner: 'OpenSSH 8.9p1 Ubuntu 3ubuntu0.6 (Ubuntu Linux; protocol 2.0)',
      },
      {
        port: 25,
        protocol: 'tcp',
        name: 'smtp',
        product: 'Postfix smtpd',
        cpe: 'cpe:/a:postfix:postfix',
        // The banner script's output wins over the version line.
        banner: '220 web01.lab.example.org ESMTP Postfix (Ubuntu)',
      },
      {
        port: 80,
        protocol: 'tcp',
        name: 'http',
        product: 'Apache httpd',
        version: '2.4.52',
        cpe: 'cpe:/a:apache:http_server:2.4.52',
        banner: 'Apache httpd 2.4.52 ((Ubuntu))',
      },
      {
        port: 53,
        protocol: 'udp',
        name: 'domain',
        product: 'ISC BIND',
        version: '9.18.28-0ubuntu0.22.04.1',
        cpe: 'cpe:/a:isc:bind:9.18.28-0ubuntu0.22.04.1',
        banner: 'ISC BIND 9.18.28-0ubuntu0.22.04.1 (Ubuntu Linux)',
      },
      {
        port: 22,
        protocol: 'tcp',
        name: 'ssh',
        product: 'OpenSSH',
        version: '9.6p1 Ubuntu 3ubuntu13.5',
        cpe: 'cpe:/a:openbsd:openssh:9.6p1',
        banner: 'OpenSSH 9.6p1 Ubuntu 3ubuntu13.5 (Ubuntu Linux; protocol 2.0)',
      },
      {
        port: 8443,
        protocol: 'tcp',
        name: 'http',
        product: 'nginx',
        version: '1.24.0',
        cpe: 'cpe:/a:igor_sysoev:nginx:1.24.0',
        banner: 'nginx 1.24.0',
      },
    ]);
    // Closed (443, 8443 on the first host) and filtered (3306) ports are not services; SCTP is
    // skipped with a warning; the down host gives nothing; the host with nothing open is an asset.
    expect(warnings).toEqual(['Open sctp ports were skipped: only TCP and UDP services are recorded.']);
    expect(assets(records).map((a) => a.asset)).toEqual([
      { kind: 'Host', ipAddresses: ['192.168.56.2'], macAddresses: ['52:54:00:12:35:02'] },
    ]);
    expect(records.some((r) => r.asset.ipAddresses?.includes('192.168.56.1'))).toBe(false);
  });

  it('makes a finding of every vulners entry, on its port', async () => {
    const { findings } = await parseFixture(nmapImporter, file);
    expect(findings.map((f) => [f.vulnerability.ruleId, f.location.port, f.severity])).toEqual([
      ['PACKETSTORM:173661', 22, 'Critical'],
      ['CVE-2023-38408', 22, 'Critical'],
      ['B8190CDB-3EB9-5631-9828-8064A1575B23', 22, 'Critical'],
      ['CVE-2024-6387', 22, 'High'],
      ['CVE-2023-48795', 22, 'Medium'],
      ['CVE-2021-36368', 22, 'Low'],
      ['PRION:CVE-2025-26466', 22, 'Info'],
      ['CVE-2024-38476', 80, 'Critical'],
      ['CVE-2023-25690', 80, 'Critical'],
      ['CVE-2022-31813', 80, 'Critical'],
      ['CVE-2022-29404', 80, 'High'],
      ['CVE-2023-31122', 80, 'High'],
    ]);
    const cve = findings.find((f) => f.vulnerability.ruleId === 'CVE-2023-38408')!;
    expect(cve).toMatchObject({
      asset: { kind: 'Host', ipAddresses: ['192.168.56.10'] },
      vulnerability: {
        title: 'CVE-2023-38408 in openssh 8.9p1',
        cveIds: ['CVE-2023-38408'],
        references: ['https://vulners.com/cve/CVE-2023-38408'],
      },
      location: { kind: 'Port', port: 22, protocol: 'tcp' },
      evidence:
        'cpe:/a:openbsd:openssh:8.9p1:\n\tCVE-2023-38408\t9.8\thttps://vulners.com/cve/CVE-2023-38408',
    });
    expect(cve.vulnerability.description).toContain('CVSS 9.8');
    // Exploit entries are not CVEs: their Vulners id is the rule id, and no CVE is claimed.
    const exploit = findings.find((f) => f.vulnerability.ruleId === 'PACKETSTORM:173661')!;
    expect(exploit.vulnerability.cveIds).toBeUndefined();
    expect(exploit.vulnerability.references).toEqual(['https://vulners.com/packetstorm/PACKETSTORM:173661']);
    expect(exploit.vulnerability.description).toContain('public exploit');
    expect(
      findings.find((f) => f.vulnerability.ruleId === 'PRION:CVE-2025-26466')!.vulnerability.cveIds,
    ).toBeUndefined();
  });

  it('reads the entries of an old vulners script from its text output', async () => {
    const { findings } = await parseFixture(nmapImporter, 'nmap/handmade-vulners-text-only.xml');
    expect(findings.map((f) => [f.vulnerability.ruleId, f.vulnerability.cveIds, f.severity])).toEqual([
      ['CVE-2011-2523', ['CVE-2011-2523'], 'Critical'],
      ['EDB-ID:49757', undefined, 'Critical'],
    ]);
    expect(findings[1]!.vulnerability.references).toEqual(['https://vulners.com/exploitdb/EDB-ID:49757']);
    expect(findings[1]!.evidence).toContain('*EXPLOIT*');
  });

  it('maps CVSS scores to severities as documented', () => {
    expect(NMAP_SEVERITY_BY_CVSS.map((band) => band.severity)).toEqual(['Critical', 'High', 'Medium', 'Low']);
    expect([10, 9, 8.9, 7, 6.9, 4, 3.9, 0.1, 0, undefined].map(severityFromCvss)).toEqual([
      'Critical',
      'Critical',
      'High',
      'High',
      'Medium',
      'Medium',
      'Low',
      'Low',
      'Info',
      'Info',
    ]);
  });

  it('cuts text fields and evidence to the import limits', async () => {
    const warnings: string[] = [];
    const records: ImportRecord[] = [];
    const context = { warn: (m: string) => warnings.push(m), maxEvidenceChars: 40, maxFieldChars: 20 };
    for await (const r of nmapImporter.parse(createReadStream(fixturePath(file)), context)) records.push(r);
    const finding = records.find((r) => r.type === 'finding')!;
    expect(finding.type === 'finding' && finding.evidence).toHaveLength(40);
    expect(finding.type === 'finding' && finding.evidence?.endsWith('… [truncated]')).toBe(true);
    expect(finding.type === 'finding' && finding.vulnerability.title.length).toBeLessThanOrEqual(20);
    expect(services(records)[0]!.banner).toHaveLength(20);
    expect(warnings).toContain('Some evidence texts were longer than 40 characters and were cut.');
  });
});

describe('nmap importer: detection', () => {
  for (const entry of manifestEntries('nmap'))
    it(`claims ${entry.file}`, () =>
      expect(nmapImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8));

  it('leaves other formats alone', () => {
    expect(nmapImporter.detect(head('burp/seven_findings.xml'))).toBeLessThan(0.3);
    expect(nmapImporter.detect(head('zap/some_2.9.0.xml'))).toBeLessThan(0.3);
    expect(nmapImporter.detect(head('zap/handmade-traditional.json'))).toBeLessThan(0.3);
    const nessus =
      '<?xml version="1.0" ?>\n<NessusClientData_v2>\n<Report name="scan">\n<ReportHost name="10.0.0.1">';
    expect(nmapImporter.detect(nessus)).toBeLessThan(0.3);
  });

  it('is not claimed by the other importers', () => {
    for (const entry of manifestEntries('nmap')) {
      expect(burpImporter.detect(head(entry.file))).toBeLessThan(0.3);
      expect(zapImporter.detect(head(entry.file))).toBeLessThan(0.3);
    }
  });

  it('gives way to a masscan reader for masscan XML', () => {
    expect(nmapImporter.detect('<?xml version="1.0"?>\n<nmaprun scanner="masscan" start="1">')).toBeLessThan(
      0.8,
    );
  });
});

describe('nmap importer: bad input', () => {
  it('fails on truncated XML with the line and column', async () => {
    const error = await failure(parseFixture(nmapImporter, 'nmap/hostile-truncated.xml'));
    expect(error.message).toMatch(/^Not well-formed XML/);
    expect(error.line).toBe(41);
    expect(error.column).toBeGreaterThan(0);
  });

  it('refuses an external entity (XXE)', async () => {
    const error = await failure(parseFixture(nmapImporter, 'nmap/hostile-xxe.xml'));
    expect(error.message).toMatch(/declares a DTD/);
  });

  it('refuses entity expansion (billion laughs)', async () => {
    const error = await failure(parseFixture(nmapImporter, 'nmap/hostile-billion-laughs.xml'));
    expect(error.message).toMatch(/declares a DTD/);
  });

  it('says an empty file is empty', async () => {
    expect((await failure(parseText(nmapImporter, ''))).message).toMatch(/empty/);
    expect((await failure(parseText(nmapImporter, ' \n\t '))).message).toMatch(/empty/);
  });

  it('says when the file is not Nmap XML', async () => {
    expect((await failure(parseText(nmapImporter, '{"site": []}'))).message).toMatch(/not "<"/);
    const wrongRoot = await failure(parseFixture(nmapImporter, 'zap/some_2.9.0.xml'));
    expect(wrongRoot.message).toMatch(/root element is <OWASPZAPReport>/);
  });
});
