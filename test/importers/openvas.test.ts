import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nessusImporter } from '../../src/importers/nessus/index.js';
import { openvasImporter } from '../../src/importers/openvas/index.js';
import { OPENVAS_THREAT, openvasSeverity } from '../../src/importers/openvas/severity.js';
import { qualysImporter } from '../../src/importers/qualys/index.js';
import {
  assets,
  byTitle,
  failure,
  fixturePath,
  head,
  manifestEntries,
  parseFixture,
  parseText,
  services,
} from './helpers.js';

/** A GMP report around some <result> XML. */
function gmpReport(results: string): string {
  return `<?xml version="1.0"?>
<report id="r" format_id="a994b278-1f62-11e1-96ac-406186ea4fc5" extension="xml" content_type="text/xml">
<report id="r"><gmp><version>22.4</version></gmp><results start="1" max="-1">
${results}
</results></report></report>`;
}

function gmpResult(id: string, threat: string, severity: string, description = 'Seen.'): string {
  return `<result id="${id}"><name>Result ${id}</name><host>192.0.2.7<asset asset_id=""/><hostname/></host>
<port>443/tcp</port><nvt oid="1.3.6.1.4.1.25623.1.0.${id}"><type>nvt</type><name>Result ${id}</name></nvt>
<threat>${threat}</threat><severity>${severity}</severity><description>${description}</description></result>`;
}

const JSON_HEAD = '{\n  "SchemaVersion": 2,\n  "ArtifactName": "alpine:3.18",\n  "Results": []\n}\n';
const NMAP_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE nmaprun>
<nmaprun scanner="nmap" args="nmap -sV -oX - 192.0.2.1" start="1700000000" version="7.94" xmloutputversion="1.05">
<host><status state="up"/><address addr="192.0.2.1" addrtype="ipv4"/></host>
</nmaprun>`;

describe('openvas importer: DefectDojo samples', () => {
  // One parser reads every layout, so the "v2" entries (DefectDojo's newer OpenVAS parser) and
  // the classic ones are the same files read the same way.
  const rampartFindings: Record<string, number> = {
    // Two rows of the same NVT on the same host (TCP timestamps, no port), with different
    // packet timestamps in "Specific Result": OpenVAS reported it twice. DefectDojo's v2 parser
    // folds them into one finding with nb_occurences 2; Rampart yields both and the import
    // service, which keys findings on asset × NVT × location, merges them.
    'openvas/report_combine_v2.csv': 2,
  };

  for (const entry of manifestEntries('openvas')) {
    const expected = rampartFindings[entry.file] ?? entry.expectedFindings;
    const variant = entry.variant ? ` [${entry.variant}]` : '';
    it(`${entry.file}${variant}: ${expected} findings (DefectDojo: ${entry.expectedFindings})`, async () => {
      const { findings, warnings } = await parseFixture(openvasImporter, entry.file);
      expect(findings).toHaveLength(expected);
      expect(warnings).toEqual([]);
    });
  }

  it('one_vuln.xml: first finding', async () => {
    const { findings, records } = await parseFixture(openvasImporter, 'openvas/one_vuln.xml');
    // DefectDojo appends host and port to the title ("…_10.0.101.2_general/tcp"); they are
    // Rampart's asset and location.
    const firefox = byTitle(findings, 'Mozilla Firefox Security Update (mfsa_2023-32_2023-36) - Windows');
    // Threat "High" with score 10.0: the report uses the NVD classes, which have no Critical.
    expect(firefox.severity).toBe('High');
    expect(firefox.asset).toEqual({ kind: 'Host', ipAddresses: ['10.0.101.2'] });
    expect(firefox.location).toEqual({ kind: 'None' });
    expect(firefox.vulnerability.ruleId).toBe('1.3.6.1.4.1.25623.1.0.832260');
    expect(firefox.vulnerability.cveIds).toHaveLength(12);
    expect(firefox.vulnerability.cveIds).toContain('CVE-2023-4573');
    expect(firefox.vulnerability.references).toEqual([
      'https://www.mozilla.org/en-US/security/advisories/mfsa2023-34/',
    ]);
    expect(firefox.vulnerability.description).toMatch(
      /^Mozilla Firefox is prone to multiple vulnerabilities\./,
    );
    expect(firefox.vulnerability.solution).toBe(
      'Upgrade to version 117 or later,\nPlease see the references for more information.',
    );
    expect(firefox.fixedIn).toBe('117');
    expect(firefox.toolFindingId).toBe('b87d3a32-8ff8-4010-aada-4b4f578b084d');
    // The report-level <host> comes after the results: an asset record.
    expect(assets(records)).toEqual([
      { type: 'asset', asset: { kind: 'Host', ipAddresses: ['10.0.101.2'] } },
    ]);
  });

  it('report_detail_v2.xml: CVSS v3 from <severities>', async () => {
    const { findings, records } = await parseFixture(openvasImporter, 'openvas/report_detail_v2.xml');
    const kb = byTitle(findings, 'Microsoft Windows Multiple Vulnerabilities (KB5062557)');
    expect(kb.vulnerability.cvss3Score).toBe(9.8);
    expect(kb.vulnerability.cvss3Vector).toBe('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
    expect(kb.vulnerability.aliases).toEqual([
      'WID-SEC-2025-1850',
      'WID-SEC-2025-1790',
      'WID-SEC-2025-1495',
      'DFN-CERT-2025-2181',
      'DFN-CERT-2025-1825',
    ]);
    expect(kb.severity).toBe('High');
    expect(kb.asset).toEqual({ kind: 'Host', ipAddresses: ['10.99.99.99'], hostname: 'server99' });
    expect(kb.location).toEqual({ kind: 'Port', port: 42, protocol: 'tcp' });
    expect(services(records).map(({ port, protocol }) => ({ port, protocol }))).toEqual([
      { port: 42, protocol: 'tcp' },
    ]);
  });

  it('report_combine_v2.csv: both occurrences, with their own evidence', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/report_combine_v2.csv');
    expect(
      new Set(findings.map((f) => JSON.stringify([f.asset, f.vulnerability.ruleId, f.location]))).size,
    ).toBe(1);
    expect(findings.map((f) => f.evidence?.match(/Packet 1: (\d+)/)?.[1])).toEqual([
      '1912048204',
      '1912048205',
    ]);
  });

  it('many_vuln.csv: columns into fields', async () => {
    const { findings, records } = await parseFixture(openvasImporter, 'openvas/many_vuln.csv');
    const tls = byTitle(findings, 'SSL/TLS: Deprecated TLSv1.0 and TLSv1.1 Protocol Detection');
    expect(tls.vulnerability.cveIds).toEqual(['CVE-2011-3389', 'CVE-2015-0204']);
    expect(tls.vulnerability.ruleId).toBe('1.3.6.1.4.1.25623.1.0.117274');
    expect(tls.severity).toBe('Medium');
    expect(tls.location).toEqual({ kind: 'Port', port: 9200, protocol: 'tcp' });
    expect(tls.asset).toEqual({ kind: 'Host', ipAddresses: ['192.168.118.212'], hostname: 'LOGSRV' });
    expect(byTitle(findings, 'TCP timestamps').location).toEqual({ kind: 'None' });
    expect(byTitle(findings, 'HTTP Brute Force Logins With Default Credentials Reporting').severity).toBe(
      'High',
    );
    expect(services(records).map(({ port, protocol }) => ({ port, protocol }))).toEqual([
      { port: 9200, protocol: 'tcp' },
    ]);
  });

  it('report_using_openVAS.csv: "Log" results are kept as Info', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/report_using_openVAS.csv');
    expect(findings.filter((f) => f.severity === 'Info')).toHaveLength(12);
    expect(byTitle(findings, 'TCP Timestamps Information Disclosure').severity).toBe('Low');
  });
});

describe('openvas importer: detection', () => {
  it('claims every OpenVAS sample', () => {
    for (const entry of manifestEntries('openvas')) {
      expect(openvasImporter.detect(head(entry.file)), entry.file).toBeGreaterThanOrEqual(0.8);
    }
    expect(openvasImporter.detect(head('openvas/handmade-classic.xml'))).toBeGreaterThanOrEqual(0.8);
  });

  it('leaves other formats alone', () => {
    expect(openvasImporter.detect(JSON_HEAD)).toBeLessThan(0.3);
    expect(openvasImporter.detect(NMAP_HEAD)).toBeLessThan(0.3);
    for (const entry of [...manifestEntries('tenable'), ...manifestEntries('qualys')]) {
      expect(openvasImporter.detect(head(entry.file)), entry.file).toBeLessThan(0.3);
    }
  });

  it('is claimed by no other of the scanner-report importers', () => {
    for (const entry of manifestEntries('openvas')) {
      expect(nessusImporter.detect(head(entry.file)), entry.file).toBeLessThan(0.3);
      expect(qualysImporter.detect(head(entry.file)), entry.file).toBeLessThan(0.3);
    }
  });
});

describe('openvas importer: classic layout, hosts and services', () => {
  it('reads the classic <cve>/<bid>/<xref> lists, placeholders left out', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/handmade-classic.xml');
    const ciphers = byTitle(findings, 'SSL/TLS: Report Vulnerable Cipher Suites for HTTPS');
    expect(ciphers.vulnerability).toMatchObject({
      ruleId: '1.3.6.1.4.1.25623.1.0.108031',
      cveIds: ['CVE-2016-2183', 'CVE-2016-6329'],
      aliases: ['CB-K16/1828'],
      references: ['https://sweet32.info/', 'https://www.openssl.org/blog/blog/2016/08/24/sweet32/'],
    });
    // A CVSS v2 vector is not a v3 one.
    expect(ciphers.vulnerability.cvss3Vector).toBeUndefined();
    expect(ciphers.location).toEqual({ kind: 'Port', port: 443, protocol: 'tcp' });
    const timestamps = byTitle(findings, 'TCP timestamps');
    expect(timestamps.vulnerability.cveIds).toBeUndefined();
    expect(timestamps.vulnerability.aliases).toBeUndefined();
  });

  it('takes a CVSS v3 vector from the tags', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/handmade-classic.xml');
    const ssh = byTitle(findings, "OpenSSH 'sftp-server' Security Bypass Vulnerability (Linux)");
    expect(ssh.vulnerability).toMatchObject({
      cvss3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:L/A:N',
      cvss3Score: 5.3,
      aliases: ['BID:101552', 'DFN-CERT-2017-2236'],
    });
  });

  it('keeps a result overridden to False Positive, at its original level, as a false positive', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/handmade-classic.xml');
    const ssh = byTitle(findings, "OpenSSH 'sftp-server' Security Bypass Vulnerability (Linux)");
    expect(ssh.severity).toBe('Medium');
    expect(ssh.state?.state).toBe('FalsePositive');
    expect(ssh.fixedIn).toBe('7.6');
  });

  it('gives each report-level host an asset record with its details', async () => {
    const { records } = await parseFixture(openvasImporter, 'openvas/handmade-classic.xml');
    expect(assets(records)).toEqual([
      {
        type: 'asset',
        asset: {
          kind: 'Host',
          ipAddresses: ['192.168.1.10'],
          fqdn: 'web01.example.com',
          operatingSystem: 'Ubuntu 16.04',
          macAddresses: ['00:50:56:aa:bb:cc'],
        },
      },
      // No results: the asset record is all the report says of it.
      {
        type: 'asset',
        asset: { kind: 'Host', ipAddresses: ['192.168.1.11'], operatingSystem: 'HP JetDirect' },
      },
    ]);
  });

  it('reports the ports of the report as services, each once', async () => {
    const { records } = await parseFixture(openvasImporter, 'openvas/handmade-classic.xml');
    expect(services(records).map(({ port, protocol, name }) => ({ port, protocol, name }))).toEqual([
      { port: 443, protocol: 'tcp', name: 'https' },
      { port: 22, protocol: 'tcp', name: 'ssh' },
    ]);
  });
});

// issue 12: an anonymised report (result names replaced by hashes) and an address that is not
// one. The title is the NVT's; the bad address is refused with a warning and the machine stays
// one asset, known by its name.
describe('openvas importer: anonymised names and invalid addresses', () => {
  it('titles a finding with its NVT name, not the result name', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/issue-12-anonymised.xml');
    expect(findings.map((f) => f.vulnerability.title)).toEqual([
      'Microsoft Windows Multiple Vulnerabilities (KB5062557)',
    ]);
    // Without an NVT name the result's name still serves.
    const bare = gmpReport(
      '<result id="x1"><name>Result name only</name><host>192.0.2.7</host><port>general/tcp</port><nvt oid="1.3.6.1.4.1.25623.1.0.1"/><threat>Low</threat><severity>2.0</severity></result>',
    );
    expect((await parseText(openvasImporter, bare)).findings[0]!.vulnerability.title).toBe(
      'Result name only',
    );
  });

  it('refuses an address that is not one, says so naming the host, and keeps one asset per machine', async () => {
    const { records, warnings } = await parseFixture(openvasImporter, 'openvas/issue-12-anonymised.xml');
    const server99 = { kind: 'Host', hostname: 'server99' };
    expect(records.filter((r) => r.type === 'finding').map((r) => r.asset)).toEqual([server99]);
    expect(services(records).map(({ asset, port }) => ({ asset, port }))).toEqual([
      { asset: server99, port: 42 },
      { asset: server99, port: 3389 },
    ]);
    expect(assets(records).map((r) => r.asset)).toEqual([
      {
        ...server99,
        operatingSystem: 'Microsoft Windows Server 2019',
        macAddresses: ['00:50:56:8a:1b:2c'],
      },
    ]);
    expect(JSON.stringify(records)).not.toContain('192.168.1.1001');
    expect(warnings).toEqual([
      "Host 'server99': the address '192.168.1.1001' is not an IP address and was left out.",
    ]);
  });

  it('skips, with a warning, what only an invalid address names', async () => {
    const report = gmpReport(
      '<result id="x2"><name>x</name><host>10.0.0.300</host><port>22/tcp</port><nvt oid="1.3.6.1.4.1.25623.1.0.2"><name>SSH weak ciphers</name></nvt><threat>Medium</threat><severity>5.0</severity></result>',
    );
    const { records, warnings } = await parseText(openvasImporter, report);
    expect(records).toEqual([]);
    expect(warnings).toEqual([
      "What the report says of '10.0.0.300' was skipped: it is not an IP address, and the report names no host for it.",
    ]);
  });

  it('does the same in the CSV export, where a later row of the address may leave the name out', async () => {
    const csv = [
      'IP,Hostname,Port,Port Protocol,CVSS,Severity,Solution Type,NVT Name,Summary,Specific Result,NVT OID,CVEs',
      '192.168.1.1001,server99,42,tcp,9.8,High,VendorFix,Windows KB5062557,Missing update,Seen,1.3.6.1.4.1.25623.1.0.836484,',
      '192.168.1.1001,,22,tcp,5.0,Medium,Mitigation,SSH weak ciphers,Weak,Seen,1.3.6.1.4.1.25623.1.0.2,',
      '10.0.0.300,,22,tcp,5.0,Medium,Mitigation,SSH weak ciphers,Weak,Seen,1.3.6.1.4.1.25623.1.0.2,',
    ].join('\n');
    const { records, warnings } = await parseText(openvasImporter, csv);
    expect(records.map((r) => [r.type, r.asset])).toEqual([
      ['service', { kind: 'Host', hostname: 'server99' }],
      ['finding', { kind: 'Host', hostname: 'server99' }],
      ['service', { kind: 'Host', hostname: 'server99' }],
      ['finding', { kind: 'Host', hostname: 'server99' }],
    ]);
    expect(warnings).toEqual([
      "Host 'server99': the address '192.168.1.1001' is not an IP address and was left out.",
      "What the report says of '10.0.0.300' was skipped: it is not an IP address, and the report names no host for it.",
    ]);
  });
});

describe('openvas importer: severity', () => {
  it('follows the threat level, then the score', async () => {
    expect(OPENVAS_THREAT).toEqual({
      critical: 'Critical',
      high: 'High',
      medium: 'Medium',
      low: 'Low',
      log: 'Info',
      debug: 'Info',
    });
    expect(openvasSeverity(undefined, '9.8')).toBe('Critical');
    expect(openvasSeverity(undefined, '0.0')).toBe('Info');
    expect(openvasSeverity('Log', '0.0')).toBe('Info');
    const { findings } = await parseText(
      openvasImporter,
      gmpReport(
        [
          gmpResult('1', 'Critical', '9.8'),
          gmpResult('2', 'High', '9.8'),
          gmpResult('3', 'Medium', '5.0'),
          gmpResult('4', 'Low', '2.6'),
          gmpResult('5', 'Log', '0.0'),
          gmpResult('6', '', '7.5'),
        ].join('\n'),
      ),
    );
    expect(findings.map((f) => f.severity)).toEqual(['Critical', 'High', 'Medium', 'Low', 'Info', 'High']);
  });

  it('cuts evidence to maxEvidenceChars and warns once', async () => {
    const long = 'B'.repeat(70 * 1024);
    const { findings, warnings } = await parseText(
      openvasImporter,
      gmpReport(gmpResult('1', 'Low', '2.0', long) + gmpResult('2', 'Low', '2.0', long)),
    );
    for (const finding of findings) {
      expect(finding.evidence!.length).toBeLessThanOrEqual(64 * 1024);
      expect(finding.evidence!.endsWith('… [truncated]')).toBe(true);
    }
    expect(warnings).toHaveLength(1);
  });
});

describe('openvas importer: bad input', () => {
  it('fails a truncated file with the line and column', async () => {
    const error = await failure(parseFixture(openvasImporter, 'openvas/hostile-truncated.xml'));
    expect(error.message).toMatch(/^Not well-formed XML: unclosed tag: nvt \(line 10, column 1\)/);
    expect(error.line).toBe(10);
    expect(error.column).toBeGreaterThanOrEqual(1);
  });

  it('refuses XXE and entity expansion', async () => {
    for (const file of ['openvas/hostile-xxe.xml', 'openvas/hostile-billion-laughs.xml']) {
      expect((await failure(parseFixture(openvasImporter, file))).message).toMatch(/DTD/);
    }
  });

  it('fails an empty file clearly', async () => {
    expect((await failure(parseText(openvasImporter, ''))).message).toMatch(/empty/);
  });

  it('fails a CSV with other columns, and XML of another tool', async () => {
    const csv = await failure(parseFixture(openvasImporter, 'openvas/wrong-columns.csv'));
    expect(csv.message).toMatch(/Not an OpenVAS CSV report/);
    expect((await failure(parseText(openvasImporter, NMAP_HEAD))).message).toMatch(
      /root element is <nmaprun>/,
    );
  });

  it('reads a header-only CSV as an empty report', async () => {
    const { records } = await parseFixture(openvasImporter, 'openvas/no_vuln.csv');
    expect(records).toEqual([]);
  });
});

describe('openvas importer: CVSS of every version', () => {
  /** A GMP report of one result whose NVT has `nvt` inside (cvss_base, tags, severities). */
  const gmpReport = (
    gmpVersion: string,
    nvt: string,
  ) => `<report id="r"><report id="r"><gmp><version>${gmpVersion}</version></gmp>
<results><result id="x"><name>n</name><host>192.0.2.7</host><port>80/tcp</port>
<nvt oid="1.3.6.1.4.1.25623.1.0.1"><name>Check</name>${nvt}</nvt><threat>High</threat><severity>7.5</severity>
</result></results></report></report>`;

  it('one_vuln.xml (GMP 9.0, NVTs rated with CVSS v2 only): <cvss_base> is the v2 score', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/one_vuln.xml');
    const firefox = byTitle(findings, 'Mozilla Firefox Security Update (mfsa_2023-32_2023-36) - Windows');
    expect(firefox.vulnerability.cvss2Score).toBe(10);
    // The report has no vector to break the score down.
    expect(firefox.vulnerability.cvss2Vector).toBeUndefined();
    expect(firefox.vulnerability.cvss3Score).toBeUndefined();
  });

  it('report_detail_v2.xml (GMP 21.4+): the v3.1 vector and score, and no v2', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/report_detail_v2.xml');
    const rated = findings.filter((f) => f.vulnerability.cvss3Vector);
    expect(rated.length).toBeGreaterThan(0);
    for (const f of rated) {
      expect(f.vulnerability.cvss3Vector).toMatch(/^CVSS:3\.1\//);
      expect(f.vulnerability.cvss2Score).toBeUndefined();
    }
  });

  it('takes a CVSS v2 vector of the tags with <cvss_base> as its score', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/handmade-classic.xml');
    const ciphers = byTitle(findings, 'SSL/TLS: Report Vulnerable Cipher Suites for HTTPS');
    expect(ciphers.vulnerability).toMatchObject({ cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:N/A:N', cvss2Score: 5 });
    const timestamps = byTitle(findings, 'TCP timestamps');
    expect(timestamps.vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:H/Au:N/C:P/I:N/A:N',
      cvss2Score: 2.6,
    });
    // The v3 one stays v3 only.
    const ssh = byTitle(findings, "OpenSSH 'sftp-server' Security Bypass Vulnerability (Linux)");
    expect(ssh.vulnerability.cvss2Score).toBeUndefined();
  });

  it('reads <severities> of every version, and guesses no version for a bare score of a recent report', async () => {
    const severities = `<cvss_base>7.5</cvss_base><severities score="7.5">
<severity type="cvss_base_v2"><value>AV:N/AC:L/Au:N/C:P/I:P/A:P</value><score>7.5</score></severity>
<severity type="cvss_base_v3"><value>CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N</value><score>7.5</score></severity>
</severities><tags>summary=s</tags>`;
    const both = (await parseText(openvasImporter, gmpReport('22.4', severities))).findings[0]!;
    expect(both.vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      cvss2Score: 7.5,
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
      cvss3Score: 7.5,
    });
    // GMP 22.4 rates with v2, v3 or v4: a score without a vector has no version to file it under.
    const bare = (await parseText(openvasImporter, gmpReport('22.4', '<cvss_base>7.5</cvss_base>')))
      .findings[0]!;
    expect(bare.vulnerability.cvss2Score).toBeUndefined();
    expect(bare.vulnerability.cvss3Score).toBeUndefined();
    // A broken v2 vector is left out, not scored.
    const broken = (
      await parseText(
        openvasImporter,
        gmpReport(
          '9.0',
          '<cvss_base>7.5</cvss_base><tags>cvss_base_vector=AV:N/AC:L/Au:N/C:P/I:P/A:Z</tags>',
        ),
      )
    ).findings[0]!;
    expect(broken.vulnerability.cvss2Vector).toBeUndefined();
    expect(broken.vulnerability.cvss3Vector).toBeUndefined();
  });
});

describe('openvas importer: text layout', () => {
  /** No line of a text starts or ends with blanks, and no more than one empty line runs. */
  const expectTidy = (text: string | undefined) => {
    expect(text).toBeDefined();
    expect(text).not.toMatch(/^[ \t]+\S/m);
    expect(text).not.toMatch(/[ \t]+$/m);
    expect(text).not.toMatch(/\n{3,}/);
  };

  it('report_using_openVAS.csv: joins a wrapped list item indented four spaces, keeping paragraphs and items', async () => {
    const { findings } = await parseFixture(openvasImporter, 'openvas/report_using_openVAS.csv');
    const cgi = byTitle(findings, 'CGI Scanning Consolidation');
    expectTidy(cgi.vulnerability.description);
    const lines = cgi.vulnerability.description!.split('\n');
    expect(lines).toContain(
      "- The configured 'Enable CGI scanning', 'Enable generic web application scanning' and 'Add historic /scripts and /cgi-bin to directories for CGI scanning' within the 'Global variable settings' of the scan config in use",
    );
    expect(lines).toContain('- No 404 check (OID: 1.3.6.1.4.1.25623.1.0.10386)');
    expect(cgi.vulnerability.description).toMatch(
      /^The script consolidates various information for CGI \(Web application\) scanning\.\n\n/,
    );
    for (const f of findings) {
      expectTidy(f.vulnerability.description);
      if (f.vulnerability.solution) expectTidy(f.vulnerability.solution);
    }
  });

  it('the same in XML: a wrapped list item of the tags is one line, the list and its paragraphs stay', async () => {
    const report = readFileSync(fixturePath('openvas/report_detail_v2.xml'), 'utf8').replace(
      '  - Microsoft Windows Server 2019|impact=',
      '  - Microsoft Windows Server 2019 and Microsoft Windows Server 2019\n    (Server Core installation)|impact=',
    );
    const { findings } = await parseText(openvasImporter, report);
    const kb = findings[0]!;
    expectTidy(kb.vulnerability.description);
    expect(kb.vulnerability.description).toContain(
      'Affected software/OS: - Microsoft Windows 10 Version 1809 for 32-bit Systems\n\n' +
        '- Microsoft Windows 10 Version 1809 for x64-based Systems\n\n' +
        '- Microsoft Windows Server 2019 and Microsoft Windows Server 2019 (Server Core installation)\n\n',
    );
    expect(kb.vulnerability.solution).toBe(
      'The vendor has released updates. Please see the references for more information.',
    );
    // Evidence keeps its own alignment (the result's columns), only the trailing blank lines go.
    expect(kb.evidence).toBe(
      'Vulnerable range:  10.0.17763.0 - 10.0.17763.7557\nFile checked:      C:\\Windows\\system32\\Ntoskrnl.exe\nFile version:      10.0.17763.7434',
    );
  });
});
