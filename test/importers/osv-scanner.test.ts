import { describe, expect, it } from 'vitest';
import { cyclonedxImporter } from '../../src/importers/cyclonedx/index.js';
import { grypeImporter } from '../../src/importers/grype/index.js';
import { OSV_SEVERITY, osvScannerImporter } from '../../src/importers/osv-scanner/index.js';
import { trivyImporter } from '../../src/importers/trivy/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { failure, head, manifestEntries, type Parsed, parseFixture, parseText } from './helpers.js';

function byId(findings: FindingRecord[], id: string, packageName?: string): FindingRecord {
  const found = findings.find(
    (f) => f.vulnerability.ruleId === id && (!packageName || f.location.packageName === packageName),
  );
  expect(found, `a finding for ${id}`).toBeDefined();
  return found!;
}

/** A report of one lockfile with one package, for the cases the sample does not have. */
function report(vulnerabilities: object[], groups: object[] = []): string {
  return JSON.stringify({
    results: [
      {
        source: { path: '/home/ci/work/shop/package-lock.json', type: 'lockfile' },
        packages: [
          { package: { name: 'lodash', version: '4.17.15', ecosystem: 'npm' }, vulnerabilities, groups },
        ],
      },
    ],
  });
}

const EMPTY_SAMPLE = 'osv_scanner/no_findings.json';

const FIRST_FINDING_CHECKS: Record<string, (parsed: Parsed) => void> = {
  'osv_scanner/many_findings.json': ({ findings }) => {
    // DefectDojo's title "GHSA-25mq-v84q-4j7r_guzzlehttp/guzzle" is the rule id and the package
    // here; its `cve` is empty because the id is not a CVE, while Rampart also keeps the CVE the
    // advisory names as its alias.
    const f = byId(findings, 'GHSA-25mq-v84q-4j7r');
    expect(f.severity).toBe('High');
    expect(f.location.packageName).toBe('guzzlehttp/guzzle');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2022-31090']);
  },
};

describe('osv-scanner importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('osv_scanner').filter((e) => e.file !== EMPTY_SAMPLE)) {
    it(`${entry.file}: ${entry.expectedFindings} findings, as DefectDojo`, async () => {
      const parsed = await parseFixture(osvScannerImporter, entry.file);
      expect(parsed.findings).toHaveLength(entry.expectedFindings);
      expect(parsed.warnings).toEqual([]);
      if (entry.firstFinding) FIRST_FINDING_CHECKS[entry.file]!(parsed);
    });
  }

  it(`${EMPTY_SAMPLE}: refused (DefectDojo: 0 findings)`, async () => {
    // The sample is a zero-byte file. DefectDojo swallows the JSON error and imports nothing;
    // Rampart refuses it, as an empty upload is more likely a failed scan or a lost file than a
    // clean one (osv-scanner writes {"results": []} when it finds nothing, read below).
    expect(manifestEntries('osv_scanner').find((e) => e.file === EMPTY_SAMPLE)?.expectedFindings).toBe(0);
    const error = await failure(parseFixture(osvScannerImporter, EMPTY_SAMPLE));
    expect(error.message).toMatch(/empty/);
  });

  it('has a first-finding check for every sample DefectDojo asserts one for', () => {
    const asserted = manifestEntries('osv_scanner').filter((e) => e.firstFinding);
    expect(asserted.map((e) => e.file).sort()).toEqual(Object.keys(FIRST_FINDING_CHECKS).sort());
  });
});

describe('osv-scanner importer: detection', () => {
  it('knows its report and no other tool claims it', () => {
    const text = head('osv_scanner/many_findings.json');
    expect(osvScannerImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
    for (const other of [trivyImporter, grypeImporter, cyclonedxImporter])
      expect(other.detect(text)).toBeLessThan(0.5);
  });

  it('does not claim the other formats, nor an empty file', () => {
    for (const file of [
      'trivy/scheme_2_many_vulns.json',
      'anchore_grype/many_vulns3.json',
      'cyclonedx/jake2.json',
      EMPTY_SAMPLE,
    ]) {
      expect(osvScannerImporter.detect(head(file)), file).toBeLessThan(0.5);
    }
    expect(osvScannerImporter.detect('<?xml version="1.0" ?><NessusClientData_v2>')).toBeLessThan(0.3);
  });
});

describe('osv-scanner importer: findings', () => {
  it('files each source under its folder and locates findings at the package in the lockfile', async () => {
    const { findings } = await parseFixture(osvScannerImporter, 'osv_scanner/many_findings.json');
    expect(new Set(findings.map((f) => f.asset.repository))).toEqual(
      new Set([
        '/tmpcardmarket-api',
        '/tmpgapps',
        '/tmphumble',
        '/tmprengine',
        '/tmprengine/web',
        '/tmptrivy-dojo-report-operator',
      ]),
    );
    expect(byId(findings, 'GHSA-25mq-v84q-4j7r').location).toEqual({
      kind: 'Package',
      packageName: 'guzzlehttp/guzzle',
      packageVersion: '6.3.3',
      filePath: '/tmpcardmarket-api/composer.lock',
    });
  });

  it('locates a git source by its repository and commit', async () => {
    const { findings } = await parseFixture(osvScannerImporter, 'osv_scanner/many_findings.json');
    const f = byId(findings, 'CVE-2023-50094');
    expect(f.asset).toEqual({ kind: 'CodeRepository', repository: '/tmprengine' });
    expect(f.location).toMatchObject({
      packageName: 'https://github.com/yogeshojha/rengine',
      packageVersion: 'f5f3c22f3ed5a6804a2a8d9ee9fa43044cfa24a6',
    });
  });

  it('gives the fix of the installed release line', async () => {
    const { findings } = await parseFixture(osvScannerImporter, 'osv_scanner/many_findings.json');
    expect(byId(findings, 'GHSA-25mq-v84q-4j7r').fixedIn).toBe('6.5.8'); // not 7.4.5
    expect(byId(findings, 'PYSEC-2021-439').fixedIn).toBe('3.2.10'); // Django 3.2.4; not 2.2.25 or 3.1.14
    expect(byId(findings, 'PYSEC-2023-212').fixedIn).toBe('1.26.18'); // not the commit
  });

  it('splits ids into CVE ids and aliases', async () => {
    const { findings } = await parseFixture(osvScannerImporter, 'osv_scanner/many_findings.json');
    expect(byId(findings, 'PYSEC-2023-212').vulnerability).toMatchObject({
      cveIds: ['CVE-2023-45803'],
      aliases: ['GHSA-g4mx-q9vg-27p4'],
    });
    expect(byId(findings, 'GHSA-q7rv-6hp3-vh96').vulnerability).toMatchObject({
      cveIds: ['CVE-2022-24775', 'CVE-2023-29197', 'CVE-2023-29530'],
      aliases: ['BIT-drupal-2022-24775', 'GHSA-wxmh-65f7-jcvw', 'GHSA-xv3h-4844-9h36'],
    });
  });

  it('keeps the advisory text, CWEs, CVSS v3 and dates', async () => {
    const { findings } = await parseFixture(osvScannerImporter, 'osv_scanner/many_findings.json');
    expect(byId(findings, 'GHSA-25mq-v84q-4j7r').vulnerability).toMatchObject({
      title: 'CURLOPT_HTTPAUTH option not cleared on change of origin',
      cweIds: ['CWE-200', 'CWE-212'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:N/A:N',
      cvss3Score: 7.7,
      publishedAt: '2022-06-21T16:57:10Z',
      references: expect.arrayContaining(['https://nvd.nist.gov/vuln/detail/CVE-2022-31090']),
    });
  });

  it('keeps a CVSS v4 vector', async () => {
    const vector = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N';
    const { findings } = await parseText(
      osvScannerImporter,
      report([
        {
          id: 'GHSA-aaaa-bbbb-cccc',
          severity: [{ type: 'CVSS_V4', score: vector }],
          database_specific: { severity: 'HIGH' },
        },
      ]),
    );
    expect(findings[0]!.vulnerability.cvss4Vector).toBe(vector);
    expect(findings[0]!.severity).toBe('High');
  });
});

describe('osv-scanner importer: severity', () => {
  it('documents the mapping of GitHub ratings', () => {
    expect(OSV_SEVERITY).toMatchObject({
      CRITICAL: 'Critical',
      HIGH: 'High',
      MODERATE: 'Medium',
      LOW: 'Low',
    });
  });

  it('takes the band of the CVSS v3 score when the advisory has no rating', async () => {
    const { findings } = await parseFixture(osvScannerImporter, 'osv_scanner/many_findings.json');
    const f = byId(findings, 'CVE-2023-50094'); // CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H
    expect(f.vulnerability.cvss3Score).toBe(8.8);
    expect(f.severity).toBe('High');
  });

  it('lends an unrated advisory the rating of its alias in the same package', async () => {
    const { findings } = await parseFixture(osvScannerImporter, 'osv_scanner/many_findings.json');
    // PYSEC-2023-74 has no severity at all; its group holds GHSA-j8r2-6x86-q33q (MODERATE)
    expect(byId(findings, 'PYSEC-2023-74', 'requests').severity).toBe('Medium');
    expect(byId(findings, 'PYSEC-2024-28').severity).toBe('Medium'); // GHSA-xxj9-f6rv-m3x4
  });

  it("uses the group's max_severity, else Info", async () => {
    const { findings } = await parseText(
      osvScannerImporter,
      report(
        [{ id: 'PYSEC-2024-1' }, { id: 'PYSEC-2024-2' }],
        [
          { ids: ['PYSEC-2024-1'], aliases: ['PYSEC-2024-1'], max_severity: '9.1' },
          { ids: ['PYSEC-2024-2'] },
        ],
      ),
    );
    expect(byId(findings, 'PYSEC-2024-1').severity).toBe('Critical');
    expect(byId(findings, 'PYSEC-2024-2').severity).toBe('Info');
  });
});

describe('osv-scanner importer: limits and bad input', () => {
  it('cuts long texts', async () => {
    const { findings, warnings } = await parseText(
      osvScannerImporter,
      report([
        { id: 'GHSA-aaaa-bbbb-cccc', details: 'x'.repeat(50_000), database_specific: { severity: 'LOW' } },
      ]),
    );
    expect(findings[0]!.vulnerability.description).toHaveLength(32 * 1024);
    expect(findings[0]!.vulnerability.description!.endsWith('… [truncated]')).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  it('fails on JSON cut in the middle', async () => {
    const error = await failure(
      parseText(osvScannerImporter, head('osv_scanner/many_findings.json').slice(0, 7000)),
    );
    expect(error.message).toMatch(/Not valid JSON/);
  });

  it('refuses JSON of another shape with a clear message', async () => {
    expect((await failure(parseText(osvScannerImporter, '{"foo": 1}'))).message).toMatch(
      /not an OSV-Scanner JSON report/,
    );
    expect((await failure(parseText(osvScannerImporter, '[1, 2, 3]'))).message).toMatch(
      /not an OSV-Scanner JSON report/,
    );
  });

  it('reads a clean scan as no findings', async () => {
    expect((await parseText(osvScannerImporter, '{"results": []}')).records).toEqual([]);
  });
});

describe('osv-scanner importer: CVSS v2', () => {
  /** One advisory on one npm package, with `severity` as OSV lists it. */
  const report = (severity: unknown[]) =>
    JSON.stringify({
      results: [
        {
          source: { path: '/src/app/package-lock.json', type: 'lockfile' },
          packages: [
            {
              package: { name: 'left-pad', version: '1.0.0', ecosystem: 'npm' },
              vulnerabilities: [{ id: 'GHSA-aaaa-bbbb-cccc', aliases: ['CVE-2014-0001'], severity }],
            },
          ],
        },
      ],
    });

  it('scores a CVSS_V2 vector (OSV gives vectors only) beside a CVSS_V3 one', async () => {
    const { findings } = await parseText(
      osvScannerImporter,
      report([
        { type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
        { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
      ]),
    );
    expect(findings[0]!.vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      cvss2Score: 7.5,
      cvss3Score: 9.8,
    });
  });

  it('leaves out a CVSS_V2 entry that is not a v2 vector', async () => {
    const { findings } = await parseText(osvScannerImporter, report([{ type: 'CVSS_V2', score: '7.5' }]));
    expect(findings[0]!.vulnerability.cvss2Vector).toBeUndefined();
    expect(findings[0]!.vulnerability.cvss2Score).toBeUndefined();
  });
});
