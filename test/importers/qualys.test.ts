import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { nessusImporter } from '../../src/importers/nessus/index.js';
import { openvasImporter } from '../../src/importers/openvas/index.js';
import { qualysImporter } from '../../src/importers/qualys/index.js';
import { QUALYS_SEVERITY, qualysSeverity } from '../../src/importers/qualys/severity.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { assets, failure, head, manifestEntries, parseFixture, parseText, services } from './helpers.js';

function byQid(findings: FindingRecord[], qid: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.ruleId === qid);
  expect(found, `a finding of QID ${qid}`).toBeDefined();
  return found!;
}

const spillDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('rampart-spill-'));

/** A scan report (SCAN layout) of one IP around some VULNS XML. */
function scanReport(vulns: string): string {
  return `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE SCAN SYSTEM "https://qualysapi.qualys.com/scan-1.dtd">
<SCAN value="scan/1"><HEADER><KEY value="USERNAME">u</KEY></HEADER>
<IP value="192.0.2.9" name="app.example.com"><VULNS><CAT value="Web server" port="443" protocol="tcp">
${vulns}
</CAT></VULNS></IP></SCAN>`;
}

const JSON_HEAD = '{\n  "SchemaVersion": 2,\n  "ArtifactName": "alpine:3.18",\n  "Results": []\n}\n';
const NMAP_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE nmaprun>
<nmaprun scanner="nmap" args="nmap -sV -oX - 192.0.2.1" start="1700000000" version="7.94" xmloutputversion="1.05">
<host><status state="up"/><address addr="192.0.2.1" addrtype="ipv4"/></host>
</nmaprun>`;

describe('qualys importer: DefectDojo samples', () => {
  const rampartFindings: Record<string, number> = {
    // Six rows: QID 105971 on four hosts, QIDs 105970 and 91762 on one. DefectDojo merges
    // the rows of one QID into one finding with several endpoints (3); Rampart yields one
    // finding per host × QID × port, as Qualys reports them.
    'qualys/Qualys_Sample_Report.csv': 6,
  };

  for (const entry of manifestEntries('qualys')) {
    const expected = rampartFindings[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${expected} findings (DefectDojo: ${entry.expectedFindings})`, async () => {
      const { findings, warnings } = await parseFixture(qualysImporter, entry.file);
      expect(findings).toHaveLength(expected);
      expect(warnings).toEqual([]);
    });
  }

  it('Qualys_Sample_Report.csv: first finding', async () => {
    const { findings } = await parseFixture(qualysImporter, 'qualys/Qualys_Sample_Report.csv');
    // DefectDojo's title is "QID-105971 | EOL/Obsolete Software: …"; the QID is our rule id.
    const eol = findings.find(
      (f) =>
        f.vulnerability.ruleId === '105971' && f.asset.fqdn === 'ip-10-98-57-180.eu-west-1.compute.internal',
    );
    expect(eol?.vulnerability.title).toBe('EOL/Obsolete Software: Microsoft ASP.NET 1.0 Detected');
    expect(eol?.severity).toBe('Critical');
    // Base and temporal metrics joined, as DefectDojo asserts.
    expect(eol?.vulnerability.cvss3Vector).toBe('CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:U/RC:C');
    expect(eol?.vulnerability.cvss3Score).toBe(8.1);
    expect(eol?.asset).toEqual({
      kind: 'Host',
      ipAddresses: ['10.98.57.180'],
      fqdn: 'ip-10-98-57-180.eu-west-1.compute.internal',
      hostname: 'EC2AMAZ-IU0C43L',
      operatingSystem: 'Windows Server 2016 Datacenter 64 bit Edition Version 1607',
    });
    expect(eol?.vulnerability.aliases).toEqual(['Microsoft ASP.NET End of Life']);
    expect(eol?.location).toEqual({ kind: 'None' });
    const may = byQid(findings, '91762');
    expect(may.vulnerability.cveIds).toHaveLength(23);
    expect(may.vulnerability.cveIds?.[0]).toBe('CVE-2021-31192');
  });

  it('monthly_pci_issue6932.csv: the Qualys level (Q_SEVERITY), not the PCI rating', async () => {
    const { findings, records } = await parseFixture(qualysImporter, 'qualys/monthly_pci_issue6932.csv');
    const web = byQid(findings, '86476');
    expect(web.vulnerability.title).toBe('Web Server Stopped Responding');
    expect(web.severity).toBe('Medium');
    expect(web.location).toEqual({ kind: 'Port', port: 80, protocol: 'tcp' });
    expect(web.asset).toEqual({
      kind: 'Host',
      ipAddresses: ['192.168.0.1'],
      fqdn: 'abv.xyw.com.fj',
      operatingSystem: 'Linux 2.x',
    });
    // "-" is Qualys's "none".
    expect(web.vulnerability.aliases).toBeUndefined();
    expect(web.evidence).toMatch(/^The web server did not respond/);
    expect(services(records)).toHaveLength(1);
  });
});

describe('qualys importer: detection', () => {
  it('claims every Qualys sample', () => {
    const files = [
      ...manifestEntries('qualys').map((e) => e.file),
      'qualys/handmade-scan.xml',
      'qualys/handmade-asset-data-report.xml',
      'qualys/handmade-scan-report.csv',
    ];
    for (const file of files) expect(qualysImporter.detect(head(file)), file).toBeGreaterThanOrEqual(0.8);
  });

  it('leaves other formats alone', () => {
    expect(qualysImporter.detect(JSON_HEAD)).toBeLessThan(0.3);
    expect(qualysImporter.detect(NMAP_HEAD)).toBeLessThan(0.3);
    for (const entry of [...manifestEntries('tenable'), ...manifestEntries('openvas')]) {
      expect(qualysImporter.detect(head(entry.file)), entry.file).toBeLessThan(0.3);
    }
  });

  it('is claimed by no other of the scanner-report importers', () => {
    const files = [
      ...manifestEntries('qualys').map((e) => e.file),
      'qualys/handmade-scan.xml',
      'qualys/handmade-asset-data-report.xml',
    ];
    for (const file of files) {
      expect(nessusImporter.detect(head(file)), file).toBeLessThan(0.3);
      expect(openvasImporter.detect(head(file)), file).toBeLessThan(0.3);
    }
  });
});

describe('qualys importer: scan report (SCAN)', () => {
  it('reads each IP into an asset, its services and findings', async () => {
    const { findings, records } = await parseFixture(qualysImporter, 'qualys/handmade-scan.xml');
    expect(findings[0]?.asset).toEqual({
      kind: 'Host',
      ipAddresses: ['198.51.100.20'],
      fqdn: 'web01.dmz.example.com',
      hostname: 'WEB01',
      operatingSystem: 'Ubuntu / Linux 4.x',
    });
    // The open TCP services list (QID 82023) names the services.
    expect(services(records).map(({ port, protocol, name }) => ({ port, protocol, name }))).toEqual([
      { port: 22, protocol: 'tcp', name: 'ssh' },
      { port: 443, protocol: 'tcp', name: 'http over ssl' },
    ]);
    // A live IP without results gets an asset record ("No registered hostname" is no name); a
    // host that was down gets nothing.
    expect(assets(records)).toEqual([
      {
        type: 'asset',
        asset: { kind: 'Host', ipAddresses: ['198.51.100.21'], operatingSystem: 'Cisco IOS 15.x' },
      },
    ]);
    expect(findings.map((f) => [f.vulnerability.ruleId, f.severity])).toEqual([
      // Information gathered: Info whatever its level.
      ['82023', 'Info'],
      ['38657', 'Medium'],
      ['11827', 'Critical'],
      // A potential vulnerability (PRACTICE) of level 4.
      ['38739', 'High'],
    ]);
  });

  it('reads the knowledge-base text of a QID', async () => {
    const { findings } = await parseFixture(qualysImporter, 'qualys/handmade-scan.xml');
    const sweet32 = byQid(findings, '38657');
    expect(sweet32.vulnerability).toMatchObject({
      title:
        'Birthday attacks against Transport Layer Security (TLS) ciphers with 64bit block size vulnerability (Sweet32)',
      cveIds: ['CVE-2016-2183', 'CVE-2016-6329'],
      aliases: ['BID:92630', 'OpenSSL Security Advisory 20160922'],
      cvss3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N/E:U/RL:O/RC:C',
      cvss3Score: 7.5,
      solution:
        'Disable and stop using DES, 3DES, IDEA or RC2 ciphers. More information can be found at Sweet32.',
    });
    expect(sweet32.vulnerability.references).toContain('https://sweet32.info/');
    expect(sweet32.vulnerability.description).toMatch(
      /CBC mode\.\n\nAll versions[\s\S]*\n\nImpact: Remote attackers/,
    );
    expect(sweet32.location).toEqual({ kind: 'Port', port: 443, protocol: 'tcp' });
    expect(sweet32.evidence).toMatch(/^CIPHER\tKEY-EXCHANGE/);
    // A bare score keeps no vector; CVSS3_VERSION does not matter then.
    expect(byQid(findings, '11827').vulnerability).toMatchObject({ cvss3Score: 9.8 });
    expect(byQid(findings, '11827').vulnerability.cvss3Vector).toBeUndefined();
  });

  it('cuts evidence to maxEvidenceChars and warns once', async () => {
    const long = 'C'.repeat(70 * 1024);
    const vuln = (n: number) =>
      `<VULN number="${n}" severity="2"><TITLE>T${n}</TITLE><PCI_FLAG>0</PCI_FLAG><RESULT>${long}</RESULT></VULN>`;
    const { findings, warnings } = await parseText(qualysImporter, scanReport(vuln(1) + vuln(2)));
    expect(findings.map((f) => f.severity)).toEqual(['Low', 'Low']);
    for (const finding of findings) {
      expect(finding.evidence!.length).toBeLessThanOrEqual(64 * 1024);
      expect(finding.evidence!.endsWith('… [truncated]')).toBe(true);
    }
    expect(warnings).toHaveLength(1);
  });
});

describe('qualys importer: Asset Data Report', () => {
  it('names detections from the glossary that follows the host list', async () => {
    const before = spillDirs();
    const { findings, records, warnings } = await parseFixture(
      qualysImporter,
      'qualys/handmade-asset-data-report.xml',
    );
    expect(findings.map((f) => [f.vulnerability.ruleId, f.vulnerability.title, f.severity])).toEqual([
      ['82023', 'Open TCP Services List', 'Info'],
      [
        '91345',
        'Microsoft SMB Server Remote Code Execution Vulnerability (MS17-010) and Shadow Brokers',
        'Critical',
      ],
      ['105632', 'EOL/Obsolete Software: Microsoft SQL Server 2012 Detected', 'High'],
      // Not in the glossary: kept, named by its QID, with a warning.
      ['999999', 'Qualys QID 999999', 'Info'],
    ]);
    expect(warnings).toEqual(['The glossary does not describe QID 999999; their findings have no title.']);
    // The temporary file is gone.
    expect(spillDirs()).toEqual(before);

    const ms17 = byQid(findings, '91345');
    expect(ms17.vulnerability).toMatchObject({
      cveIds: ['CVE-2017-0143', 'CVE-2017-0144'],
      aliases: ['BID:96703', 'MS17-010'],
      cvss3Vector: 'CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H/E:H/RL:O/RC:C',
      cvss3Score: 8.1,
    });
    expect(ms17.vulnerability.references).toContain(
      'https://technet.microsoft.com/en-us/security/bulletin/MS17-010',
    );
    expect(ms17.location).toEqual({ kind: 'Port', port: 445, protocol: 'tcp' });
    expect(ms17.asset).toEqual({
      kind: 'Host',
      ipAddresses: ['10.20.0.5'],
      fqdn: 'db01.corp.example.com',
      hostname: 'DB01',
      operatingSystem: 'Windows Server 2019 Datacenter 64 bit Edition Version 1809',
    });
    expect(byQid(findings, '105632').state).toEqual({ state: 'Fixed', reason: 'Qualys reports it fixed.' });

    expect(services(records).map(({ port, protocol, name }) => ({ port, protocol, name }))).toEqual([
      { port: 135, protocol: 'tcp', name: 'msrpc' },
      { port: 1433, protocol: 'tcp', name: 'ms-sql-s' },
      { port: 445, protocol: 'tcp', name: 'microsoft-ds' },
    ]);
    expect(assets(records)).toEqual([
      { type: 'asset', asset: { kind: 'Host', ipAddresses: ['10.20.0.6'], operatingSystem: 'Linux 3.x' } },
    ]);
  });

  it('names detections at once when the glossary comes first', async () => {
    const report = `<ASSET_DATA_REPORT><GLOSSARY><VULN_DETAILS_LIST>
<VULN_DETAILS id="qid_12345"><QID id="qid_12345">12345</QID><TITLE><![CDATA[Test Vulnerability]]></TITLE><SEVERITY>3</SEVERITY></VULN_DETAILS>
</VULN_DETAILS_LIST></GLOSSARY><HOST_LIST><HOST><IP>192.168.1.1</IP><DNS><![CDATA[testhost.example.com]]></DNS><VULN_INFO_LIST>
<VULN_INFO><QID id="qid_12345">12345</QID><TYPE>Practice</TYPE><PORT>80</PORT><PROTOCOL>tcp</PROTOCOL><RESULT>port 80</RESULT></VULN_INFO>
<VULN_INFO><QID id="qid_12345">12345</QID><TYPE>Practice</TYPE><PORT>443</PORT><PROTOCOL>tcp</PROTOCOL><RESULT>port 443</RESULT></VULN_INFO>
</VULN_INFO_LIST></HOST></HOST_LIST></ASSET_DATA_REPORT>`;
    const { findings } = await parseText(qualysImporter, report);
    expect(findings.map((f) => [f.vulnerability.title, f.severity, f.location.port, f.evidence])).toEqual([
      ['Test Vulnerability', 'Medium', 80, 'port 80'],
      ['Test Vulnerability', 'Medium', 443, 'port 443'],
    ]);
  });
});

describe('qualys importer: CSV with a title block', () => {
  it('finds the header row after the report title rows', async () => {
    const { findings, records } = await parseFixture(qualysImporter, 'qualys/handmade-scan-report.csv');
    expect(findings.map((f) => [f.vulnerability.ruleId, f.severity])).toEqual([
      ['38657', 'Medium'],
      ['82023', 'Info'],
      ['38739', 'High'],
    ]);
    const sweet32 = byQid(findings, '38657');
    // "CVSS3.1 Base" columns: a 3.1 vector.
    expect(sweet32.vulnerability.cvss3Vector).toBe(
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N/E:U/RL:O/RC:C',
    );
    expect(sweet32.vulnerability.references).toEqual(['https://sweet32.info/']);
    expect(sweet32.evidence).toBe(
      'CIPHER\tKEY-EXCHANGE\tAUTHENTICATION\tMAC\tENCRYPTION(KEY-STRENGTH)\tGRADE\nDES-CBC3-SHA\tRSA\tRSA\tSHA1\t3DES(168)\tMEDIUM',
    );
    expect(services(records).map(({ port }) => port)).toEqual([443, 22]);
  });
});

describe('qualys importer: severity', () => {
  it('maps levels 1–5 in order, information gathered to Info', () => {
    expect(QUALYS_SEVERITY).toEqual({ '1': 'Info', '2': 'Low', '3': 'Medium', '4': 'High', '5': 'Critical' });
    expect(['1', '2', '3', '4', '5'].map((level) => qualysSeverity(level, 'Vuln'))).toEqual([
      'Info',
      'Low',
      'Medium',
      'High',
      'Critical',
    ]);
    expect(qualysSeverity('4', 'Practice')).toBe('High');
    expect(qualysSeverity('5', 'Ig')).toBe('Info');
    expect(qualysSeverity(undefined, 'Vuln')).toBe('Info');
  });
});

describe('qualys importer: bad input', () => {
  it('fails a truncated file with the line and column', async () => {
    const before = spillDirs();
    const error = await failure(parseFixture(qualysImporter, 'qualys/hostile-truncated.xml'));
    expect(error.message).toMatch(/^Not well-formed XML: unclosed tag: TYPE \(line 10, column 1\)/);
    expect(error.line).toBe(10);
    expect(error.column).toBeGreaterThanOrEqual(1);
    expect(spillDirs()).toEqual(before);
  });

  it('refuses XXE and entity expansion', async () => {
    for (const file of ['qualys/hostile-xxe.xml', 'qualys/hostile-billion-laughs.xml']) {
      expect((await failure(parseFixture(qualysImporter, file))).message).toMatch(/DTD/);
    }
  });

  it('fails an empty file clearly', async () => {
    expect((await failure(parseText(qualysImporter, ''))).message).toMatch(/empty/);
  });

  it('fails a CSV with other columns, and XML of another tool', async () => {
    const csv = await failure(parseFixture(qualysImporter, 'qualys/wrong-columns.csv'));
    expect(csv.message).toMatch(/Not a Qualys CSV report/);
    expect((await failure(parseText(qualysImporter, NMAP_HEAD))).message).toMatch(
      /root element is <nmaprun>/,
    );
  });

  it('reads a header-only CSV as an empty report', async () => {
    const { records } = await parseFixture(qualysImporter, 'qualys/empty.csv');
    expect(records).toEqual([]);
  });
});

describe('qualys importer: CVSS v2', () => {
  it('monthly_pci_issue6932.csv: CVSS_BASE is the v2 score, beside no v3', async () => {
    const { findings } = await parseFixture(qualysImporter, 'qualys/monthly_pci_issue6932.csv');
    expect(byQid(findings, '86476').vulnerability).toMatchObject({ cvss2Score: 6.4 });
    expect(byQid(findings, '86476').vulnerability.cvss3Score).toBeUndefined();
  });

  it('reads CVSS_BASE of scan reports and Asset Data Reports, and "CVSS Base" of CSV exports', async () => {
    const scan = await parseFixture(qualysImporter, 'qualys/handmade-scan.xml');
    expect(byQid(scan.findings, '38657').vulnerability).toMatchObject({ cvss2Score: 5, cvss3Score: 7.5 });
    const adr = await parseFixture(qualysImporter, 'qualys/handmade-asset-data-report.xml');
    expect(
      adr.findings.some((f) => f.vulnerability.cvss2Score === 9.3 && f.vulnerability.cvss3Score === 8.1),
    ).toBe(true);
    const csv = await parseFixture(qualysImporter, 'qualys/handmade-scan-report.csv');
    expect(byQid(csv.findings, '38657').vulnerability).toMatchObject({ cvss2Score: 5, cvss3Score: 7.5 });
  });

  it('keeps a v2 vector written beside the score, and leaves out "-" and what is not a score', async () => {
    const csv = (base: string, temporal: string) =>
      [
        'IP,HOSTNAME,QID,VULN TITLE,TYPE,SEVERITY,PORT,PROTOCOL,CVSS_BASE,CVSS_TEMPORAL',
        `192.0.2.9,h,38657,Sweet32,VULN,3,443,tcp,"${base}","${temporal}"`,
      ].join('\n');
    const read = async (base: string, temporal = '') =>
      (await parseText(qualysImporter, csv(base, temporal))).findings[0]!.vulnerability;
    expect(await read('5.0 (AV:N/AC:L/Au:N/C:P/I:N/A:N)', '4.3 (E:U/RL:OF/RC:C)')).toMatchObject({
      cvss2Score: 5,
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:N/A:N/E:U/RL:OF/RC:C',
    });
    // A temporal part that does not parse leaves the base vector alone.
    expect(await read('5.0 (AV:N/AC:L/Au:N/C:P/I:N/A:N)', '4.3 (E:Q)')).toMatchObject({
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:N/A:N',
    });
    for (const bad of ['-', 'high', '12.5']) {
      const v = await read(bad);
      expect(v.cvss2Score, bad).toBeUndefined();
      expect(v.cvss2Vector, bad).toBeUndefined();
    }
  });
});
