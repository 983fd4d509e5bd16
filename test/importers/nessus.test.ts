import { describe, expect, it } from 'vitest';
import { nessusImporter } from '../../src/importers/nessus/index.js';
import { NESSUS_SEVERITY } from '../../src/importers/nessus/severity.js';
import { openvasImporter } from '../../src/importers/openvas/index.js';
import { qualysImporter } from '../../src/importers/qualys/index.js';
import {
  assets,
  byTitle,
  failure,
  head,
  manifestEntries,
  parseFixture,
  parseText,
  services,
} from './helpers.js';

/** A one-host .nessus file around some ReportItem XML. */
function nessusFile(items: string): string {
  return `<?xml version="1.0" ?>
<NessusClientData_v2><Report name="t"><ReportHost name="192.0.2.50"><HostProperties>
<tag name="host-ip">192.0.2.50</tag></HostProperties>
${items}
</ReportHost></Report></NessusClientData_v2>`;
}

const JSON_HEAD = '{\n  "SchemaVersion": 2,\n  "ArtifactName": "alpine:3.18",\n  "Results": []\n}\n';
const NMAP_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE nmaprun>
<nmaprun scanner="nmap" args="nmap -sV -oX - 192.0.2.1" start="1700000000" version="7.94" xmloutputversion="1.05">
<host><status state="up"/><address addr="192.0.2.1" addrtype="ipv4"/></host>
</nmaprun>`;

describe('nessus importer: DefectDojo samples', () => {
  // Where Rampart's count differs from DefectDojo's. Rampart yields one finding per result as
  // the tool reports it (host × plugin × port) and leaves merging to the import service;
  // DefectDojo merges in the parser.
  const rampartFindings: Record<string, number> = {
    // Tenable.sc layout: 3 rows, plugin 42873 on 1.2.3.4:443, 2.3.4.5:443 and 1.2.3.4:8443.
    // DefectDojo keys on a "Host" column this layout lacks, so the two port-443 rows of
    // different hosts collapse into one (2).
    'tenable/issue_11102.csv': 3,
    // Nessus Professional CSV: 30 rows; plugin 22964 (Service Detection) reports twice on
    // 52.208.101.182:443/tcp with different output ("A TLSv1 server answered…" and "A web server
    // is running … through TLSv1."). Two results, two findings; DefectDojo merges them (29).
    'tenable/nessus/nessus_many_vuln2-all.csv': 30,
    // 49 ReportItems; plugin 58987 appears twice on port 80. DefectDojo merges by title and
    // severity (48).
    'tenable/nessus/nessus_with_cvssv3.nessus': 49,
  };

  for (const entry of manifestEntries('tenable')) {
    const expected = rampartFindings[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${expected} findings (DefectDojo: ${entry.expectedFindings})`, async () => {
      const { findings, warnings } = await parseFixture(nessusImporter, entry.file);
      expect(findings).toHaveLength(expected);
      expect(warnings).toEqual([]);
    });
  }

  it('issue_6992.nessus: keeps the scanner severity and the CVSS v3 of the plugin', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/nessus/issue_6992.nessus');
    const php = byTitle(findings, 'PHP < 7.3.24 Multiple Vulnerabilities');
    // DefectDojo says High: it re-derives the severity from cvss3_base_score (7.5). Nessus rated
    // the result severity="2" (risk_factor Medium) and Rampart keeps the scanner's rating.
    expect(php.severity).toBe('Medium');
    expect(php.vulnerability).toMatchObject({
      ruleId: '142591',
      cvss3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
      cvss3Score: 7.5,
      references: ['https://www.php.net/ChangeLog-7.php#7.3.24'],
      aliases: ['IAVA:2020-A-0510-S'],
      publishedAt: '2020-10-29',
    });
    expect(php.location).toEqual({ kind: 'Port', port: 80, protocol: 'tcp' });
    expect(php.fixedIn).toBe('7.3.24');
    expect(php.asset).toEqual({
      kind: 'Host',
      name: 'testphp.vulnweb.com',
      ipAddresses: ['44.228.249.3'],
      fqdn: 'testphp.vulnweb.com',
      operatingSystem: 'Linux Kernel 2.6',
    });
  });

  it('nessus_many_vuln.csv (Tenable.sc): first finding as DefectDojo asserts it', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/nessus/nessus_many_vuln.csv');
    const md5 = byTitle(findings, 'SSL Certificate Signed Using Weak Hashing Algorithm');
    expect(md5.severity).toBe('Medium');
    expect(md5.vulnerability.cveIds).toEqual(['CVE-2004-2761']);
    // DefectDojo asserts cwe 0: it does not read "Cross References" ("CERT #836068,CWE #310").
    expect(md5.vulnerability.cweIds).toEqual(['CWE-310']);
    // The BID cell, "1,184,933,065", is a list a spreadsheet turned into a number: left out.
    expect(md5.vulnerability.aliases).toEqual(['CERT:836068']);
    // The export leaves out the "CVSS:3.0/" prefix; Tenable's plugins rate with CVSS 3.0.
    expect(md5.vulnerability.cvss3Vector).toBe('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N/E:P/RL:O/RC:C');
    expect(md5.asset.ipAddresses).toEqual(['10.1.1.1']);
    expect(md5.location).toEqual({ kind: 'Port', port: 443, protocol: 'tcp' });
    // 529 empty rows after the four findings are skipped silently.
    expect(findings.map((f) => f.vulnerability.ruleId)).toEqual(['35291', '51192', '57582', '65821']);
  });

  it('nessus_many_vuln2-all.csv (Nessus Professional): informational results stay, without CVEs', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/nessus/nessus_many_vuln2-all.csv');
    const server = byTitle(findings, 'HTTP Server Type and Version');
    expect(server.severity).toBe('Info');
    expect(server.vulnerability.cveIds).toBeUndefined();
    expect(server.vulnerability.cweIds).toBeUndefined();
    expect(server.vulnerability.aliases).toEqual(['IAVT:0001-T-0931']);
    expect(server.evidence).toBe('The remote web server type is :\n\nCowboy');
    const weakHash = findings.find((f) => f.vulnerability.ruleId === '95631');
    expect(weakHash?.vulnerability.cveIds).toEqual(['CVE-2004-2761']);
  });

  it('nessus_new.csv (Tenable Vulnerability Management, semicolons): first finding', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/nessus/nessus_new.csv');
    // DefectDojo's title for this row is "Blah1": it falls back on the asset.name column when
    // "Name"/"Plugin Name" are missing. Rampart reads definition.name; the host is Blah1.
    const first = findings.find((f) => f.asset.hostname === 'Blah1');
    expect(first?.vulnerability.title).toBe('Network daemons not managed by the package system');
    expect(first?.severity).toBe('Low');
    expect(first?.vulnerability.cvss3Score).toBe(3.1);
    expect(first?.vulnerability.cvss3Vector).toBe('CVSS:3.0/AV:N/AC:H/PR:L/UI:N/S:U/C:N/I:L/A:N');
    expect(first?.asset).toMatchObject({
      kind: 'Host',
      name: 'Blah1',
      fqdn: 'Blah1',
      hostname: 'Blah1',
      ipAddresses: ['10.0.0.1', 'fe80:0:0:0:20d:3aff:fe45:647f'],
      macAddresses: ['00:0d:3a:45:64:7f'],
    });
    expect(first?.toolFindingId).toBe('0012b94a-f4a1-4f2c-babc-6cac61f3cd0a');
    expect(first?.location).toEqual({ kind: 'None' });
    // "CVE=[…], CWE=[192, 330, 400, 770], RHSA=[2022:7002]" style references.
    const withCwe = findings.find((f) => f.vulnerability.aliases?.includes('RHSA:2022:7002'));
    expect(withCwe?.vulnerability.cweIds).toEqual(['CWE-192', 'CWE-330', 'CWE-400', 'CWE-770']);
  });

  it('Web App Scanning exports give WebApplication assets', async () => {
    for (const file of [
      'tenable/nessus_was/nessus_was_one_vuln.xml',
      'tenable/nessus_was/nessus_was_many_vuln.xml',
    ]) {
      const { findings, records } = await parseFixture(nessusImporter, file);
      const xss = byTitle(findings, 'Cross-Site Scripting (XSS)');
      expect(xss.severity).toBe('High');
      expect(xss.asset).toEqual({
        kind: 'WebApplication',
        url: 'http://google.com',
        name: 'http://google.com/',
      });
      // DefectDojo leaves cwe empty (it reads only <cwe>); the xref "CWE:79" names it.
      expect(xss.vulnerability.cweIds).toEqual(['CWE-79']);
      expect(xss.vulnerability.cvss3Score).toBe(7.1);
      expect(services(records)).toEqual([]);
    }
    const empty = await parseFixture(nessusImporter, 'tenable/nessus_was/nessus_was_no_vuln.xml');
    expect(empty.records).toEqual([
      {
        type: 'asset',
        asset: { kind: 'WebApplication', url: 'http://google.com', name: 'http://google.com/' },
      },
    ]);
  });
});

describe('nessus importer: detection', () => {
  it('claims every Tenable sample', () => {
    for (const entry of manifestEntries('tenable')) {
      expect(nessusImporter.detect(head(entry.file)), entry.file).toBeGreaterThanOrEqual(0.8);
    }
    expect(nessusImporter.detect(head('tenable/handmade-hosts.nessus'))).toBe(1);
  });

  it('leaves other formats alone', () => {
    expect(nessusImporter.detect(JSON_HEAD)).toBeLessThan(0.3);
    expect(nessusImporter.detect(NMAP_HEAD)).toBeLessThan(0.3);
    for (const entry of [...manifestEntries('openvas'), ...manifestEntries('qualys')]) {
      expect(nessusImporter.detect(head(entry.file)), entry.file).toBeLessThan(0.3);
    }
  });

  it('is claimed by no other of the scanner-report importers', () => {
    for (const entry of manifestEntries('tenable')) {
      expect(openvasImporter.detect(head(entry.file)), entry.file).toBeLessThan(0.3);
      expect(qualysImporter.detect(head(entry.file)), entry.file).toBeLessThan(0.3);
    }
  });
});

describe('nessus importer: hosts, services, findings', () => {
  it('reads HostProperties into the asset', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/handmade-hosts.nessus');
    expect(findings[0]?.asset).toEqual({
      kind: 'Host',
      name: '192.0.2.10',
      ipAddresses: ['192.0.2.10'],
      fqdn: 'filesrv01.corp.example.com',
      hostname: 'FILESRV01',
      macAddresses: ['00:50:56:ab:12:34', '00:50:56:ab:12:35'],
      // Nessus lists candidates one a line when unsure; the first is its best guess.
      operatingSystem: 'Microsoft Windows Server 2019 Standard',
    });
  });

  it('gives a host without results an asset record', async () => {
    const { records } = await parseFixture(nessusImporter, 'tenable/handmade-hosts.nessus');
    expect(assets(records)).toEqual([
      {
        type: 'asset',
        asset: { kind: 'Host', name: 'printer01', ipAddresses: ['192.0.2.11'], hostname: 'printer01' },
      },
    ]);
  });

  it('reports each port once as a service, with its protocol and name', async () => {
    const { records } = await parseFixture(nessusImporter, 'tenable/handmade-hosts.nessus');
    expect(services(records).map(({ port, protocol, name }) => ({ port, protocol, name }))).toEqual([
      { port: 445, protocol: 'tcp', name: 'cifs' },
      // "snmp?" is Nessus's guess marker.
      { port: 161, protocol: 'udp', name: 'snmp' },
    ]);
  });

  it('maps severity 0–4 one for one', async () => {
    expect(NESSUS_SEVERITY).toEqual({ '0': 'Info', '1': 'Low', '2': 'Medium', '3': 'High', '4': 'Critical' });
    const { findings } = await parseFixture(nessusImporter, 'tenable/handmade-hosts.nessus');
    expect(findings.map((f) => [f.vulnerability.ruleId, f.severity])).toEqual([
      ['19506', 'Info'],
      ['97833', 'Critical'],
      // severity="2" wins over risk_factor High.
      ['41028', 'Medium'],
      ['10550', 'Info'],
    ]);
    const { findings: levels } = await parseText(
      nessusImporter,
      nessusFile(
        [0, 1, 2, 3, 4]
          .map(
            (s) =>
              `<ReportItem port="0" svc_name="general" protocol="tcp" severity="${s}" pluginID="${s}" pluginName="p${s}"/>`,
          )
          .join('\n'),
      ),
    );
    expect(levels.map((f) => f.severity)).toEqual(['Info', 'Low', 'Medium', 'High', 'Critical']);
  });

  it('reads CVEs, other ids, CVSS v3 and references of a plugin', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/handmade-hosts.nessus');
    const ms17 = findings.find((f) => f.vulnerability.ruleId === '97833')!;
    expect(ms17.vulnerability).toMatchObject({
      // Upper case, without repeats.
      cveIds: ['CVE-2017-0143', 'CVE-2017-0144', 'CVE-2017-0145'],
      aliases: [
        'BID:96703',
        'BID:96704',
        'MSFT:MS17-010',
        'IAVA:2017-A-0065',
        'CISA-KNOWN-EXPLOITED:2022/05/03',
      ],
      cweIds: ['CWE-20'],
      cvss3Vector: 'CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cvss3Score: 8.1,
      references: [
        'https://docs.microsoft.com/en-us/security-updates/SecurityBulletins/2017/ms17-010',
        'http://www.nessus.org/u?68fc8eff',
      ],
      publishedAt: '2017-03-14',
    });
    expect(ms17.location).toEqual({ kind: 'Port', port: 445, protocol: 'tcp' });
    const scanInfo = findings.find((f) => f.vulnerability.ruleId === '19506')!;
    // Port 0 ("general") is the host as a whole; "n/a" is no solution.
    expect(scanInfo.location).toEqual({ kind: 'None' });
    expect(scanInfo.vulnerability.solution).toBeUndefined();
  });

  it('cuts evidence to maxEvidenceChars and warns once', async () => {
    const long = 'A'.repeat(70 * 1024);
    const item = (id: number) =>
      `<ReportItem port="80" svc_name="www" protocol="tcp" severity="1" pluginID="${id}" pluginName="Long ${id}"><plugin_output>${long}</plugin_output></ReportItem>`;
    const { findings, warnings, records } = await parseText(nessusImporter, nessusFile(item(1) + item(2)));
    for (const finding of findings) {
      expect(finding.evidence!.length).toBeLessThanOrEqual(64 * 1024);
      expect(finding.evidence!.endsWith('… [truncated]')).toBe(true);
    }
    expect(warnings).toHaveLength(1);
    expect(services(records)).toEqual([
      { type: 'service', asset: findings[0]!.asset, port: 80, protocol: 'tcp', name: 'http' },
    ]);
  });

  it('joins back the rows Nessus Professional writes per CVE of one result', async () => {
    const csv = [
      'Plugin ID,CVE,CVSS v2.0 Base Score,Risk,Host,Protocol,Port,Name,Synopsis,Description,Solution,See Also,Plugin Output',
      '97833,CVE-2017-0143,9.3,Critical,192.0.2.10,tcp,445,MS17-010,s,d,Apply MS17-010.,,Vulnerable.',
      '97833,CVE-2017-0144,9.3,Critical,192.0.2.10,tcp,445,MS17-010,s,d,Apply MS17-010.,,Vulnerable.',
      '97833,CVE-2017-0143,9.3,Critical,192.0.2.11,tcp,445,MS17-010,s,d,Apply MS17-010.,,Vulnerable.',
    ].join('\n');
    const { findings } = await parseText(nessusImporter, csv);
    expect(findings.map((f) => [f.asset.ipAddresses, f.vulnerability.cveIds, f.severity])).toEqual([
      [['192.0.2.10'], ['CVE-2017-0143', 'CVE-2017-0144'], 'Critical'],
      [['192.0.2.11'], ['CVE-2017-0143'], 'Critical'],
    ]);
  });
});

describe('nessus importer: CSV details', () => {
  it('reads Tenable.sc dates, output and accepted risks', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/issue_11102.csv');
    const sweet32 = findings[0]!;
    expect(sweet32.vulnerability.publishedAt).toBe('2016-08-24');
    // Tenable.sc starts each output with "Plugin Output: ".
    expect(sweet32.evidence).toMatch(/^Medium Strength Ciphers/);
    expect(sweet32.asset).toEqual({
      kind: 'Host',
      ipAddresses: ['1.2.3.4'],
      macAddresses: ['fa:16:3e:e6:0b:98'],
    });
    expect(sweet32.state).toBeUndefined();

    const accepted = [
      'Plugin,Plugin Name,Severity,IP Address,Protocol,Port,Plugin Output,Accept Risk Comment',
      '42873,SWEET32,High,192.0.2.4,TCP,443,out,Legacy clients need 3DES until Q3.',
    ].join('\n');
    const { findings: rows } = await parseText(nessusImporter, accepted);
    expect(rows[0]?.state).toEqual({ state: 'RiskAccepted', reason: 'Legacy clients need 3DES until Q3.' });
  });
});

describe('nessus importer: bad input', () => {
  it('fails a truncated file with the line and column', async () => {
    const error = await failure(parseFixture(nessusImporter, 'tenable/hostile-truncated.nessus'));
    expect(error.message).toMatch(/^Not well-formed XML: unclosed tag: description \(line 7, column 1\)/);
    expect(error.line).toBe(7);
    expect(error.column).toBeGreaterThanOrEqual(1);
  });

  it('refuses XXE and entity expansion', async () => {
    for (const file of ['tenable/hostile-xxe.nessus', 'tenable/hostile-billion-laughs.nessus']) {
      const error = await failure(parseFixture(nessusImporter, file));
      expect(error.message).toMatch(/DTD/);
    }
  });

  it('fails an empty file clearly', async () => {
    expect((await failure(parseText(nessusImporter, ''))).message).toMatch(/empty/);
    expect((await failure(parseText(nessusImporter, '\n  \n'))).message).toMatch(/empty/);
  });

  it('fails a CSV with other columns, and XML of another tool', async () => {
    const csv = await failure(parseFixture(nessusImporter, 'tenable/wrong-columns.csv'));
    expect(csv.message).toMatch(/Not a Nessus or Tenable CSV export/);
    expect(csv.line).toBe(1);
    const xml = await failure(parseText(nessusImporter, NMAP_HEAD));
    expect(xml.message).toMatch(/root element is <nmaprun>/);
  });

  it('reads a report without hosts as an empty report', async () => {
    const { records } = await parseText(
      nessusImporter,
      '<NessusClientData_v2><Report name="none"/></NessusClientData_v2>',
    );
    expect(records).toEqual([]);
  });
});

describe('nessus importer: CVSS of every version', () => {
  it('nessus_with_cvssv3.nessus: keeps the CVSS v2 score and vector beside the v3 ones', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/nessus/nessus_with_cvssv3.nessus');
    // Plugin 58988 (PHP CGI query string code execution) has only a CVSS v2 assessment.
    const phpCgi = findings.find((f) => f.vulnerability.ruleId === '58988')!;
    expect(phpCgi.vulnerability).toMatchObject({
      cvss2Score: 7.5,
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
    });
    expect(phpCgi.vulnerability.cvss3Score).toBeUndefined();
    // Plugin 17797 has both, v2 rating it higher than v3: each keeps its own score and vector.
    const both = findings.find((f) => f.vulnerability.ruleId === '17797')!;
    expect(both.vulnerability).toMatchObject({
      cvss2Score: 7.8,
      cvss2Vector: 'AV:N/AC:L/Au:N/C:C/I:N/A:N',
      cvss3Score: 7.5,
      cvss3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    });
    // 49 ReportItems: 27 carry <cvss_base_score> with <cvss_vector>, 9 of them <cvss3_*> too.
    expect(findings.filter((f) => f.vulnerability.cvss2Score !== undefined)).toHaveLength(27);
    expect(findings.filter((f) => f.vulnerability.cvss2Vector !== undefined)).toHaveLength(27);
    expect(findings.filter((f) => f.vulnerability.cvss3Score !== undefined)).toHaveLength(9);
  });

  it('nessus_was_*.xml (Web App Scanning): <cvss> is the v2 base score beside <cvssv3>', async () => {
    for (const file of [
      'tenable/nessus_was/nessus_was_one_vuln.xml',
      'tenable/nessus_was/nessus_was_many_vuln.xml',
    ]) {
      const { findings } = await parseFixture(nessusImporter, file);
      const xss = byTitle(findings, 'Cross-Site Scripting (XSS)');
      expect(xss.vulnerability, file).toMatchObject({ cvss2Score: 7.5, cvss3Score: 7.1 });
      expect(xss.vulnerability.cvss2Vector).toBeUndefined();
    }
  });

  it('reads CVSS v2 from the three CSV layouts, with or without the CVSS2# mark', async () => {
    // Tenable.sc: "CVSS V2 Base Score" and "CVSS V2 Vector", temporal metrics in the vector.
    const sc = await parseFixture(nessusImporter, 'tenable/nessus/nessus_many_vuln.csv');
    expect(
      sc.findings.map((f) => [
        f.vulnerability.ruleId,
        f.vulnerability.cvss2Score,
        f.vulnerability.cvss2Vector,
      ]),
    ).toEqual([
      ['35291', 5, 'AV:N/AC:L/Au:N/C:N/I:P/A:N/E:POC/RL:OF/RC:C'],
      ['51192', 6.4, 'AV:N/AC:L/Au:N/C:P/I:P/A:N'],
      ['57582', 6.4, 'AV:N/AC:L/Au:N/C:P/I:P/A:N'],
      // RL:ND ("not defined") changes nothing and is left out.
      ['65821', 4.3, 'AV:N/AC:M/Au:N/C:P/I:N/A:N/E:U/RC:C'],
    ]);
    // Tenable Vulnerability Management: definition.cvss2.base_score / base_vector ("CVSS2#…").
    const vm = await parseFixture(nessusImporter, 'tenable/nessus/nessus_new.csv');
    const first = vm.findings.find((f) => f.asset.hostname === 'Blah1')!;
    expect(first.vulnerability).toMatchObject({
      cvss2Score: 2.1,
      cvss2Vector: 'AV:N/AC:H/Au:S/C:N/I:P/A:N',
      cvss3Score: 3.1,
    });
    // Nessus Professional: "CVSS v2.0 Base Score", or plain "CVSS" in older exports; no vector.
    const csv = (column: string, value: string) =>
      [
        `Plugin ID,CVE,${column},Risk,Host,Protocol,Port,Name,Synopsis,Description,Solution,See Also,Plugin Output`,
        `97833,CVE-2017-0143,${value},Critical,192.0.2.10,tcp,445,MS17-010,s,d,Apply MS17-010.,,Vulnerable.`,
      ].join('\n');
    for (const column of ['CVSS v2.0 Base Score', 'CVSS']) {
      const { findings } = await parseText(nessusImporter, csv(column, '9.3'));
      expect(findings[0]?.vulnerability.cvss2Score, column).toBe(9.3);
      expect(findings[0]?.vulnerability.cvss2Vector).toBeUndefined();
    }
  });

  it('leaves out a CVSS v2 score or vector that is not valid, and keeps the other', async () => {
    const item = (score: string, vector: string) =>
      `<ReportItem port="80" svc_name="www" protocol="tcp" severity="2" pluginID="1" pluginName="p">
<cvss_base_score>${score}</cvss_base_score><cvss_vector>${vector}</cvss_vector></ReportItem>`;
    const { findings } = await parseText(
      nessusImporter,
      nessusFile(
        item('11.5', 'CVSS2#AV:N/AC:L/Au:N/C:P/I:P/A:P') +
          item('5.0', 'CVSS2#AV:Q/AC:L/Au:N/C:P/I:N/A:N') +
          item('n/a', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'),
      ),
    );
    // A score outside 0–10 is not one; the vector still scores 7.5, which is kept.
    expect(findings[0]?.vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      cvss2Score: 7.5,
    });
    // AV:Q is no access vector: the vector goes, the stated score stays.
    expect(findings[1]?.vulnerability.cvss2Vector).toBeUndefined();
    expect(findings[1]?.vulnerability.cvss2Score).toBe(5);
    // A v3 vector in the v2 field is not taken as v2, nor "n/a" as a score.
    expect(findings[2]?.vulnerability.cvss2Vector).toBeUndefined();
    expect(findings[2]?.vulnerability.cvss2Score).toBeUndefined();
  });
});

describe('nessus importer: text layout', () => {
  /** No line starts or ends with blanks, and no more than one empty line runs. */
  const expectTidy = (text: string | undefined, what: string) => {
    if (text === undefined) return;
    expect(text, what).not.toMatch(/^[ \t]+\S/m);
    expect(text, what).not.toMatch(/[ \t]+$/m);
    expect(text, what).not.toMatch(/\n{3,}/);
  };

  it("nessus_with_cvssv3.nessus: drops the indentation of the file's layout from texts and output, keeping lines and paragraphs", async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/nessus/nessus_with_cvssv3.nessus');
    const cpe = findings.find((f) => f.vulnerability.ruleId === '45590')!;
    expect(cpe.vulnerability.description).toBe(
      'By using information obtained from a Nessus scan, this plugin reports CPE (Common Platform\n' +
        'Enumeration) matches for various hardware and software products found on a host.\n\n' +
        'Note that if an official CPE is not available for the product, this plugin computes the best\n' +
        'possible CPE based on the information available from the scan.',
    );
    expect(cpe.evidence).toMatch(
      /^The remote operating system matched the following CPE :\n\ncpe:\/o:linux:linux_kernel -> Linux Kernel\n\nFollowing application CPE's matched on the remote system :\n\ncpe:\/a:igor_sysoev:nginx:1\.19\.0 -> Nginx\ncpe:\/a:nginx:nginx:1\.19\.0 -> Nginx\n/,
    );
    for (const f of findings) {
      for (const [what, text] of Object.entries({
        description: f.vulnerability.description,
        solution: f.vulnerability.solution,
        evidence: f.evidence,
      }))
        expectTidy(text, `${f.vulnerability.ruleId} ${what}`);
    }
  });

  it('issue_6992.nessus: the output lines up again, and the fixed version is still read from it', async () => {
    const { findings } = await parseFixture(nessusImporter, 'tenable/nessus/issue_6992.nessus');
    expect(findings[0]!.evidence).toBe(
      'URL : http://testphp.vulnweb.com/ (5.1.6 under http://testphp.vulnweb.com/secured/phpinfo.php)\n' +
        'Installed version : 5.1.6\nFixed version : 7.3.24',
    );
    expect(findings[0]!.fixedIn).toBe('7.3.24');
  });

  it('keeps the indentation a plugin gives some lines relative to others', async () => {
    const item = `<ReportItem port="0" svc_name="general" protocol="tcp" severity="0" pluginID="9" pluginName="p">
<plugin_output>
        Supported :
          - TLSv1.2
          - TLSv1.3
      </plugin_output></ReportItem>`;
    const { findings } = await parseText(nessusImporter, nessusFile(item));
    expect(findings[0]!.evidence).toBe('Supported :\n  - TLSv1.2\n  - TLSv1.3');
  });
});
