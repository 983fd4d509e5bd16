import { describe, expect, it } from 'vitest';
import { CYCLONEDX_SEVERITY, cyclonedxImporter } from '../../src/importers/cyclonedx/index.js';
import { grypeImporter } from '../../src/importers/grype/index.js';
import { osvScannerImporter } from '../../src/importers/osv-scanner/index.js';
import { trivyImporter } from '../../src/importers/trivy/index.js';
import type { FindingRecord, SoftwareRecord } from '../../src/importers/types.js';
import { failure, head, manifestEntries, type Parsed, parseFixture, parseText } from './helpers.js';

function byId(findings: FindingRecord[], id: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.ruleId === id);
  expect(found, `a finding for ${id}`).toBeDefined();
  return found!;
}

function software(parsed: Parsed): SoftwareRecord[] {
  return parsed.records.filter((r): r is SoftwareRecord => r.type === 'software');
}

const LIBRARY = {
  'bom-ref': 'pkg:npm/lodash@4.17.15',
  type: 'library',
  name: 'lodash',
  version: '4.17.15',
  purl: 'pkg:npm/lodash@4.17.15',
};

/** A 1.5 JSON BOM of a web application with one library, for the cases the samples lack. */
function bom(vulnerabilities: object[], components: object[] = [LIBRARY]): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    metadata: { component: { type: 'application', group: 'example', name: 'shop-web', version: '2.3.0' } },
    components,
    vulnerabilities,
  });
}

function vulnerability(id: string, extra: object = {}): object {
  return {
    id,
    ratings: [
      {
        method: 'CVSSv31',
        score: 7.5,
        severity: 'high',
        vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
      },
    ],
    affects: [{ ref: 'pkg:npm/lodash@4.17.15' }],
    ...extra,
  };
}

/**
 * What DefectDojo asserts about each sample's first finding, in Rampart's fields. DefectDojo's
 * title ("log4j-core:2.13.2 | CVE-2021-44228") is the package and the id, kept apart here.
 * Where DefectDojo writes "CVSS:3.1/" before a bare vector rated with method "CVSSv3",
 * Rampart writes "CVSS:3.0/": CycloneDX defines CVSSv3 as CVSS 3.0 (CVSSv31 is 3.1).
 */
const FIRST_FINDING_CHECKS: Record<string, (parsed: Parsed) => void> = {
  'cyclonedx/grype_dd_1_14_1.xml': ({ findings }) => {
    // DefectDojo also asserts the date, the BOM's timestamp: Rampart dates findings at import.
    expect(findings[0]).toMatchObject({
      severity: 'Low',
      location: { kind: 'Package', packageName: 'Django', packageVersion: '2.2.18' },
    });
  },
  'cyclonedx/log4j.xml': ({ findings }) => log4jChecks(findings),
  'cyclonedx/nested-component-log4j.json': ({ findings }) => log4jChecks(findings),
  'cyclonedx/spec1_lowfirst.xml': ({ findings }) => {
    // The first rating is an OWASP "Low"; the CVSS v3 rating (Critical) wins.
    const f = byId(findings, 'CVE-2018-7489');
    expect(f.severity).toBe('Critical');
    expect(f.vulnerability).toMatchObject({
      cveIds: ['CVE-2018-7489'],
      cvss3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cvss3Score: 9.8,
      cweIds: ['CWE-184', 'CWE-502'],
    });
    expect(f.location).toEqual({ kind: 'Package', packageName: 'jackson-databind', packageVersion: '2.9.9' });
  },
  'cyclonedx/valid-vulnerability-1.4.xml': ({ findings }) => {
    const f = byId(findings, 'SNYK-JAVA-COMFASTERXMLJACKSONCORE-32111');
    expect(f.severity).toBe('Critical');
    // DefectDojo lists CVE-2018-7489 twice, as the BOM does; ids are kept once here.
    expect(f.vulnerability).toMatchObject({
      cveIds: ['CVE-2018-7489'],
      cweIds: ['CWE-184', 'CWE-502'],
      cvss3Vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    });
    expect(f.location).toEqual({ kind: 'Package', packageName: 'jackson-databind', packageVersion: '2.9.4' });
    // active: false, is_mitigated: true — the VEX analysis says not_affected
    expect(f.state).toEqual({
      state: 'FalsePositive',
      reason:
        'not_affected (code_not_reachable): An optional explanation of why the application is not affected by the vulnerable component.',
    });
  },
};

function log4jChecks(findings: FindingRecord[]): void {
  const f = byId(findings, 'CVE-2021-44228');
  expect(f.severity).toBe('Critical');
  expect(f.vulnerability.cvss3Vector).toBe('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H');
  expect(f.location).toEqual({ kind: 'Package', packageName: 'log4j-core', packageVersion: '2.13.2' });
}

describe('cyclonedx importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('cyclonedx')) {
    it(`${entry.file}: ${entry.expectedFindings} findings, as DefectDojo`, async () => {
      const parsed = await parseFixture(cyclonedxImporter, entry.file);
      expect(parsed.findings).toHaveLength(entry.expectedFindings);
      if (entry.firstFinding) FIRST_FINDING_CHECKS[entry.file]!(parsed);
    });
  }

  it('has a first-finding check for every sample DefectDojo asserts one for', () => {
    const asserted = manifestEntries('cyclonedx').filter((e) => e.firstFinding);
    expect(asserted.map((e) => e.file).sort()).toEqual(Object.keys(FIRST_FINDING_CHECKS).sort());
  });
});

describe('cyclonedx importer: detection', () => {
  const others = [trivyImporter, grypeImporter, osvScannerImporter];

  for (const entry of manifestEntries('cyclonedx')) {
    it(`${entry.file} is CycloneDX and nothing else`, () => {
      const text = head(entry.file);
      expect(cyclonedxImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
      for (const other of others) expect(other.detect(text), other.format).toBeLessThan(0.5);
    });
  }

  it('does not take Trivy, Grype or Nessus files for its own', () => {
    for (const file of [
      'trivy/scheme_2_many_vulns.json',
      'trivy/issue_9170.json',
      'anchore_grype/many_vulns3.json',
      'osv_scanner/many_findings.json',
    ]) {
      expect(cyclonedxImporter.detect(head(file)), file).toBeLessThan(0.5);
    }
    const nessus =
      '<?xml version="1.0" ?>\n<NessusClientData_v2>\n<Policy><policyName>Basic</policyName></Policy>';
    expect(cyclonedxImporter.detect(nessus)).toBeLessThan(0.3);
  });
});

describe('cyclonedx importer: assets', () => {
  it('files a container BOM under its image', async () => {
    const trivy = await parseFixture(cyclonedxImporter, 'cyclonedx/issue_9277.json');
    expect(trivy.findings[0]!.asset).toEqual({ kind: 'ContainerImage', image: 'ubuntu:latest' });
    const grype = await parseFixture(cyclonedxImporter, 'cyclonedx/grype_dd_1_14_1.xml');
    expect(grype.findings[0]!.asset).toEqual({
      kind: 'ContainerImage',
      image: 'defectdojo/defectdojo-django:1.14.1',
    });
  });

  it('files any other BOM under the project it describes', async () => {
    const { findings } = await parseText(cyclonedxImporter, bom([vulnerability('CVE-2021-23337')]));
    expect(findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: 'example/shop-web' });
  });

  it('says so when the BOM does not describe its subject', async () => {
    const { findings, warnings } = await parseFixture(cyclonedxImporter, 'cyclonedx/jake2.json');
    expect(findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: '(unknown)' });
    expect(warnings).toEqual([expect.stringMatching(/does not describe its subject/)]);
  });
});

describe('cyclonedx importer: software', () => {
  it('lists the components, OS packages apart from libraries', async () => {
    const parsed = await parseFixture(cyclonedxImporter, 'cyclonedx/issue_9277.json');
    const list = software(parsed);
    expect(list).toHaveLength(102);
    expect(list.find((s) => s.name === 'ubuntu')).toMatchObject({
      category: 'OperatingSystem',
      version: '22.04',
    });
    expect(list.find((s) => s.name === 'libpcre3')).toMatchObject({
      category: 'OsPackage',
      purl: expect.stringMatching(/^pkg:deb\/ubuntu\/libpcre3@/),
    });
    const python = software(await parseFixture(cyclonedxImporter, 'cyclonedx/jake2.json'));
    expect(python.find((s) => s.name === 'urllib3')).toEqual({
      type: 'software',
      asset: { kind: 'CodeRepository', repository: '(unknown)' },
      name: 'urllib3',
      version: '1.26.8',
      category: 'Library',
      purl: 'pkg:pypi/urllib3@1.26.8',
    });
  });

  it('reads nested components, and leaves out the container that holds them', async () => {
    const parsed = await parseFixture(cyclonedxImporter, 'cyclonedx/nested-component-log4j.json');
    expect(software(parsed).map((s) => s.name)).toEqual(['log4j-core']);
  });
});

describe('cyclonedx importer: VEX', () => {
  it('maps analysis states to finding states', async () => {
    const analysed = (id: string, analysis: object) => vulnerability(id, { analysis });
    const { findings } = await parseText(
      cyclonedxImporter,
      bom([
        analysed('CVE-2024-0001', {
          state: 'not_affected',
          justification: 'code_not_reachable',
          detail: 'Only the CLI calls it.',
        }),
        analysed('CVE-2024-0002', { state: 'false_positive' }),
        analysed('CVE-2024-0003', { state: 'resolved', detail: 'Patched in our fork.' }),
        analysed('CVE-2024-0004', { state: 'exploitable', response: ['update'] }),
        analysed('CVE-2024-0005', { state: 'in_triage' }),
      ]),
    );
    expect(findings.map((f) => [f.vulnerability.ruleId, f.state])).toEqual([
      [
        'CVE-2024-0001',
        { state: 'FalsePositive', reason: 'not_affected (code_not_reachable): Only the CLI calls it.' },
      ],
      ['CVE-2024-0002', { state: 'FalsePositive', reason: 'false_positive' }],
      ['CVE-2024-0003', { state: 'Fixed', reason: 'resolved: Patched in our fork.' }],
      ['CVE-2024-0004', undefined],
      ['CVE-2024-0005', undefined],
    ]);
  });

  it('leaves in_triage open (log4j sample)', async () => {
    const { findings } = await parseFixture(cyclonedxImporter, 'cyclonedx/log4j.xml');
    expect(findings.every((f) => f.state === undefined)).toBe(true);
  });
});

describe('cyclonedx importer: severity and CVSS', () => {
  it('documents the mapping', () => {
    expect(CYCLONEDX_SEVERITY).toEqual({
      critical: 'Critical',
      high: 'High',
      medium: 'Medium',
      low: 'Low',
      info: 'Info',
      none: 'Info',
    });
  });

  it('prefers the CVSS v3 rating, bands its score when it has no severity word, else Info', async () => {
    const { findings } = await parseText(
      cyclonedxImporter,
      bom([
        vulnerability('CVE-2024-0001', {
          ratings: [
            { severity: 'low', method: 'other' },
            { method: 'CVSSv3', score: 9.1 },
          ],
        }),
        vulnerability('CVE-2024-0002', { ratings: [{ severity: 'medium' }] }),
        vulnerability('CVE-2024-0003', { ratings: [{ severity: 'unknown' }] }),
        vulnerability('CVE-2024-0004', { ratings: [] }),
        vulnerability('CVE-2024-0005', { ratings: [{ severity: 'none' }] }),
      ]),
    );
    expect(findings.map((f) => f.severity)).toEqual(['Critical', 'Medium', 'Info', 'Info', 'Info']);
  });

  it('keeps CVSS v3 with its prefix, and CVSS v4', async () => {
    const v4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
    const { findings } = await parseText(
      cyclonedxImporter,
      bom([
        vulnerability('CVE-2024-0001', {
          ratings: [
            { method: 'CVSSv31', vector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
            { method: 'CVSSv4', score: 9.3, severity: 'critical', vector: v4 },
          ],
        }),
      ]),
    );
    expect(findings[0]!.vulnerability).toMatchObject({
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cvss3Score: 9.8, // computed from the vector
      cvss4Vector: v4,
      cvss4Score: 9.3,
    });
    expect(findings[0]!.severity).toBe('Critical');
  });
});

describe('cyclonedx importer: findings', () => {
  it('gives one finding per affected component', async () => {
    const { findings } = await parseFixture(cyclonedxImporter, 'cyclonedx/issue_9277.json');
    expect(
      findings.filter((f) => f.vulnerability.ruleId === 'CVE-2022-27943').map((f) => f.location.packageName),
    ).toEqual(['gcc-12-base', 'libgcc-s1', 'libstdc++6']);
  });

  it('locates a reference to no component by the package URL it is', async () => {
    const { findings, warnings } = await parseFixture(cyclonedxImporter, 'cyclonedx/issue_9277.json');
    expect(byId(findings, 'TEMP-0290435-0B57B5').location).toEqual({
      kind: 'Package',
      packageName: 'tar',
      packageVersion: '1.30+dfsg-6',
    });
    expect(warnings).toEqual([expect.stringMatching(/^1 affected references name no component/)]);
  });

  it('splits reference ids into CVE ids and aliases', async () => {
    const jake = await parseFixture(cyclonedxImporter, 'cyclonedx/jake2.json');
    expect(byId(jake.findings, 'c7129ff8-08bc-4afe-82ec-7d97b9491741').vulnerability.cveIds).toEqual([
      'CVE-2021-33203',
    ]);
    const { findings } = await parseText(
      cyclonedxImporter,
      bom([
        vulnerability('CVE-2021-23337', {
          references: [
            {
              id: 'GHSA-35jh-r3h4-6jhm',
              source: { url: 'https://github.com/advisories/GHSA-35jh-r3h4-6jhm' },
            },
          ],
        }),
      ]),
    );
    expect(findings[0]!.vulnerability).toMatchObject({
      cveIds: ['CVE-2021-23337'],
      aliases: ['GHSA-35jh-r3h4-6jhm'],
      references: ['https://github.com/advisories/GHSA-35jh-r3h4-6jhm'],
    });
  });

  it('keeps the description, detail, recommendation and fixed version', async () => {
    const { findings } = await parseText(
      cyclonedxImporter,
      bom([
        vulnerability('CVE-2021-23337', {
          description: 'Command injection via template.',
          detail: 'The variable option is not sanitised.',
          recommendation: 'Upgrade to 4.17.21.',
          published: '2021-02-15T13:15:00Z',
          cwes: [94],
          affects: [
            {
              ref: 'pkg:npm/lodash@4.17.15',
              versions: [
                { version: '4.17.15', status: 'affected' },
                { version: '4.17.21', status: 'unaffected' },
              ],
            },
          ],
        }),
      ]),
    );
    expect(findings[0]).toMatchObject({
      vulnerability: {
        description: 'Command injection via template.\n\nThe variable option is not sanitised.',
        solution: 'Upgrade to 4.17.21.',
        publishedAt: '2021-02-15T13:15:00Z',
        cweIds: ['CWE-94'],
      },
      fixedIn: '4.17.21',
    });
  });

  it('cuts long texts', async () => {
    const { findings, warnings } = await parseText(
      cyclonedxImporter,
      bom([vulnerability('CVE-2024-0001', { detail: 'y'.repeat(40_000) })]),
    );
    expect(findings[0]!.vulnerability.description).toHaveLength(32 * 1024);
    expect(findings[0]!.vulnerability.description!.endsWith('… [truncated]')).toBe(true);
    expect(warnings).toHaveLength(1);
  });
});

describe('cyclonedx importer: bad input', () => {
  it('fails on JSON cut in the middle', async () => {
    const error = await failure(parseText(cyclonedxImporter, head('cyclonedx/jake2.json').slice(0, 3000)));
    expect(error.message).toMatch(/Not valid JSON/);
  });

  it('fails on XML cut in the middle, with the line', async () => {
    const error = await failure(parseText(cyclonedxImporter, head('cyclonedx/log4j.xml').slice(0, 3000)));
    expect(error.message).toMatch(/Not well-formed XML/);
    expect(error.line).toBeGreaterThan(0);
  });

  it('refuses JSON of another shape with a clear message', async () => {
    expect((await failure(parseText(cyclonedxImporter, '{"foo": 1}'))).message).toMatch(
      /not a CycloneDX JSON BOM/,
    );
    expect((await failure(parseText(cyclonedxImporter, '[1, 2, 3]'))).message).toMatch(/not a CycloneDX BOM/);
  });

  it('refuses XML that is not a BOM', async () => {
    const nessus = '<?xml version="1.0" ?><NessusClientData_v2><Report name="x"/></NessusClientData_v2>';
    expect((await failure(parseText(cyclonedxImporter, nessus))).message).toMatch(
      /root element is <NessusClientData_v2>/,
    );
    const foreign = '<bom xmlns="http://example.com/other"><components/></bom>';
    expect((await failure(parseText(cyclonedxImporter, foreign))).message).toMatch(
      /not in a CycloneDX namespace/,
    );
  });

  it('refuses XXE and entity expansion', async () => {
    for (const file of ['cyclonedx/hostile-xxe.xml', 'cyclonedx/hostile-billion-laughs.xml']) {
      const error = await failure(parseFixture(cyclonedxImporter, file));
      expect(error.message, file).toMatch(/DTD/);
    }
  });

  it('refuses an empty file', async () => {
    expect((await failure(parseText(cyclonedxImporter, ''))).message).toMatch(/empty/);
  });
});

describe('cyclonedx importer: CVSS v2', () => {
  it('nested-component-log4j.json: the CVSSv2 rating of CVE-2021-44228 is kept beside the CVSSv31 one', async () => {
    const { findings } = await parseFixture(cyclonedxImporter, 'cyclonedx/nested-component-log4j.json');
    const log4shell = byId(findings, 'CVE-2021-44228');
    // The BOM states 10 for the vector NVD scores 9.3: the stated score is kept, as for v3.
    expect(log4shell.vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:M/Au:N/C:C/I:C/A:C',
      cvss2Score: 10,
    });
    expect(log4shell.vulnerability.cvss3Vector).toMatch(/^CVSS:3\.1\//);
  });
});
