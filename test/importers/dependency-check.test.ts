import { describe, expect, it } from 'vitest';
import {
  DEPENDENCY_CHECK_DEFAULT_SEVERITY,
  DEPENDENCY_CHECK_SEVERITY,
  dependencyCheckImporter,
} from '../../src/importers/dependency-check/index.js';
import { IMPORTERS } from '../../src/importers/index.js';
import type { SoftwareRecord } from '../../src/importers/types.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const OTHER_SAMPLES = [
  'nikto/nikto-output.xml',
  'nikto/issue_9274.json',
  'testssl/defectdojo_many_vuln.csv',
  'sslscan/sslscan_many_vuln.xml',
  'cyclonedx/cyclonedx_bom.xml',
  'zap/0_zap_sample.xml',
];

const XML_HEAD =
  '<?xml version="1.0"?>\n<analysis xmlns="https://jeremylong.github.io/DependencyCheck/dependency-check.2.5.xsd">\n';

describe('dependency-check importer: DefectDojo samples', () => {
  // One finding per dependency × vulnerability, suppressed ones included, as DefectDojo.
  for (const entry of manifestEntries('dependency_check'))
    it(`${entry.file}: ${entry.expectedFindings} findings`, async () => {
      const { findings, warnings } = await parseFixture(dependencyCheckImporter, entry.file);
      expect(findings).toHaveLength(entry.expectedFindings);
      expect(warnings).toEqual([]);
    });

  it("PR6439.xml: DefectDojo's first finding, a suppressed one", async () => {
    const { findings } = await parseFixture(dependencyCheckImporter, 'dependency_check/PR6439.xml');
    const [first] = findings;
    expect(first).toMatchObject({
      type: 'finding',
      asset: { kind: 'CodeRepository', repository: 'Business Process Center - Runtime Environment' },
      vulnerability: {
        ruleId: 'CVE-2015-3208',
        cveIds: ['CVE-2015-3208'],
        cweIds: ['CWE-611'],
        cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
        cvss3Score: 9.8,
      },
      location: {
        kind: 'Package',
        packageName: 'org.apache.activemq:activemq-broker',
        packageVersion: '5.16.5',
      },
      severity: 'Critical',
      evidence:
        'File: /var/lib/jenkins/.m2/repository/org/apache/activemq/activemq-broker/5.16.5/activemq-broker-5.16.5.jar',
      state: {
        state: 'RiskAccepted',
        reason:
          'Suppressed in Dependency-Check: Ist eine Dependency vom CXF. Der im Finding erwähnte Bug ist seit Version 1.0 in activemq-broker behoben.',
      },
    });
    expect(first!.vulnerability.references).toContain('https://bugzilla.redhat.com/show_bug.cgi?id=1225252');
    expect(findings.filter((f) => f.state?.state === 'RiskAccepted')).toHaveLength(8);
    const count = (s: string) => findings.filter((f) => f.severity === s).length;
    expect([count('Critical'), count('High'), count('Medium'), count('Low')]).toEqual([7, 8, 18, 1]);
  });

  it("version-6.5.3.xml: DefectDojo's first finding, severity from cvssV3 (cvssV2 says MEDIUM)", async () => {
    const { findings, records } = await parseFixture(
      dependencyCheckImporter,
      'dependency_check/version-6.5.3.xml',
    );
    expect(findings[0]).toMatchObject({
      // The report's <name /> is empty.
      asset: { kind: 'CodeRepository', repository: 'dependency-check project' },
      severity: 'Low',
      vulnerability: {
        ruleId: 'CVE-2020-9488',
        cvss3Vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
        cvss3Score: 3.7,
        cweIds: ['CWE-295'],
      },
      location: { packageName: 'org.apache.logging.log4j:log4j-api', packageVersion: '2.12.4' },
    });
    expect(findings[0]!.state).toBeUndefined();
    const software = records.filter((r): r is SoftwareRecord => r.type === 'software');
    expect(software[0]).toMatchObject({
      name: 'org.apache.logging.log4j:log4j-api',
      version: '2.12.4',
      purl: 'pkg:maven/org.apache.logging.log4j/log4j-api@2.12.4',
      category: 'Library',
    });
  });

  it('falls back to cvssV2 severity, then to the file name as the package', async () => {
    const text = `${XML_HEAD}<projectInfo><name>shop</name></projectInfo><dependencies>
<dependency><fileName>lib.dll</fileName><vulnerabilities>
<vulnerability source="NVD"><name>CVE-2019-0001</name><cvssV2><score>9.3</score><severity>HIGH</severity></cvssV2><cwes><cwe>NVD-CWE-Other</cwe><cwe>CWE-20</cwe></cwes></vulnerability>
<vulnerability source="NPM"><name>GHSA-aaaa-bbbb-cccc</name></vulnerability>
</vulnerabilities></dependency></dependencies></analysis>`;
    const { findings } = await parseText(dependencyCheckImporter, text);
    expect(findings.map((f) => [f.vulnerability.ruleId, f.severity, f.vulnerability.cveIds])).toEqual([
      ['CVE-2019-0001', 'High', ['CVE-2019-0001']],
      ['GHSA-aaaa-bbbb-cccc', DEPENDENCY_CHECK_DEFAULT_SEVERITY, undefined],
    ]);
    expect(findings[0]).toMatchObject({
      asset: { repository: 'shop' },
      location: { kind: 'Package', packageName: 'lib.dll' },
      vulnerability: { cweIds: ['CWE-20'] },
    });
  });
});

describe('dependency-check importer: severities', () => {
  it('maps as documented', () => {
    expect(DEPENDENCY_CHECK_SEVERITY).toEqual({
      CRITICAL: 'Critical',
      HIGH: 'High',
      MEDIUM: 'Medium',
      MODERATE: 'Medium',
      LOW: 'Low',
      INFO: 'Info',
      INFORMATIONAL: 'Info',
      NONE: 'Info',
    });
    expect(DEPENDENCY_CHECK_DEFAULT_SEVERITY).toBe('Medium');
  });
});

describe('dependency-check importer: detection', () => {
  for (const entry of manifestEntries('dependency_check'))
    it(`claims ${entry.file}`, () =>
      expect(dependencyCheckImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8));

  it("leaves other formats' samples alone", () => {
    for (const file of OTHER_SAMPLES)
      expect(dependencyCheckImporter.detect(head(file)), file).toBeLessThan(0.5);
  });

  it('is not claimed by the other importers', () => {
    for (const entry of manifestEntries('dependency_check'))
      for (const other of IMPORTERS.filter((i) => i.format !== 'dependency-check'))
        expect(other.detect(head(entry.file)), `${other.format} on ${entry.file}`).toBeLessThan(0.5);
  });
});

describe('dependency-check importer: bad input', () => {
  it('fails on truncated XML with the line and column', async () => {
    const text = `${XML_HEAD}<dependencies>\n<dependency><fileName>a.jar</fileName>\n<vulnerabilities><vulnerability><name>CVE-2020-1</name>`;
    const error = await failure(parseText(dependencyCheckImporter, text));
    expect(error.message).toMatch(/^Not well-formed XML/);
    expect(error.line).toBe(5);
    expect(error.column).toBeGreaterThan(0);
  });

  it('refuses an external entity (XXE)', async () => {
    const text = `<?xml version="1.0"?>\n<!DOCTYPE analysis [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<analysis><projectInfo><name>&xxe;</name></projectInfo></analysis>`;
    expect((await failure(parseText(dependencyCheckImporter, text))).message).toMatch(/declares a DTD/);
  });

  it('says an empty file is empty', async () => {
    expect((await failure(parseText(dependencyCheckImporter, ''))).message).toMatch(/empty/);
  });

  it('says when the file is not a Dependency-Check XML report', async () => {
    expect((await failure(parseText(dependencyCheckImporter, '{"dependencies": []}'))).message).toMatch(
      /not XML/,
    );
    const wrongRoot = await failure(parseFixture(dependencyCheckImporter, 'nikto/tdh.xml'));
    expect(wrongRoot.message).toMatch(/root element is <niktoscan>/);
  });
});

describe('dependency-check importer: CVSS v2', () => {
  it('version-6.5.3.xml: CVE-2020-9488 keeps <cvssV2> (its <authenticationr> too) beside <cvssV3>', async () => {
    const { findings } = await parseFixture(dependencyCheckImporter, 'dependency_check/version-6.5.3.xml');
    const log4j = findings.find((f) => f.vulnerability.ruleId === 'CVE-2020-9488')!;
    expect(log4j.vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:M/Au:N/C:P/I:N/A:N',
      cvss2Score: 4.3,
      cvss3Score: 3.7,
    });
  });

  it('PR6439.xml: every <cvssV2> gives a v2 score and vector', async () => {
    const { findings } = await parseFixture(dependencyCheckImporter, 'dependency_check/PR6439.xml');
    const rated = findings.filter((f) => f.vulnerability.cvss2Score !== undefined);
    expect(rated.length).toBeGreaterThan(0);
    for (const f of rated) expect(f.vulnerability.cvss2Vector).toMatch(/^AV:[NAL]\/AC:[LMH]\/Au:[NSM]\//);
    // CVE-2020-0187's <cvssV2> holds its v3 rating (5.5, impacts "H", no authentication): not v2.
    const misfiled = findings.find((f) => f.vulnerability.ruleId === 'CVE-2020-0187')!;
    expect(misfiled.vulnerability.cvss2Score).toBeUndefined();
    expect(misfiled.vulnerability.cvss2Vector).toBeUndefined();
  });
});
