import { describe, expect, it } from 'vitest';
import { cyclonedxImporter } from '../../src/importers/cyclonedx/index.js';
import { GRYPE_SEVERITY, grypeImporter, MAX_HELD_MATCHES } from '../../src/importers/grype/index.js';
import { osvScannerImporter } from '../../src/importers/osv-scanner/index.js';
import { trivyImporter } from '../../src/importers/trivy/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { failure, head, manifestEntries, type Parsed, parseFixture, parseText } from './helpers.js';

function byId(findings: FindingRecord[], id: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.ruleId === id);
  expect(found, `a finding for ${id}`).toBeDefined();
  return found!;
}

function match(
  id: string,
  extra: { vulnerability?: object; artifact?: object; related?: object[] } = {},
): object {
  return {
    vulnerability: {
      id,
      severity: 'High',
      urls: [],
      fix: { versions: [], state: 'not-fixed' },
      ...extra.vulnerability,
    },
    relatedVulnerabilities: extra.related ?? [],
    matchDetails: [
      { type: 'exact-direct-match', matcher: 'java-matcher', found: { versionConstraint: '<2.17.1' } },
    ],
    artifact: {
      name: 'log4j-core',
      version: '2.14.1',
      type: 'java-archive',
      locations: [{ path: '/app/lib/log4j-core-2.14.1.jar' }],
      purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      ...extra.artifact,
    },
  };
}

const IMAGE_SOURCE = {
  type: 'image',
  target: { userInput: 'registry.example.com/shop/api:1.4.2', tags: [] },
};

/** A report in Grype's order: matches, then source and distro. */
function report(
  matches: object[],
  rest: object = { source: IMAGE_SOURCE, distro: { name: 'alpine', version: '3.19.1' } },
) {
  return JSON.stringify({ matches, ...rest, descriptor: { name: 'grype', version: '0.87.0' } });
}

/**
 * Rampart reads every Grype report the per-path ("detailed") way: one finding per match, as
 * Grype reports a package found at two paths as two matches. The default reading of
 * DefectDojo folds them into one finding; the import's deduplication, not the parser, decides
 * that here.
 */
const RAMPART_FINDINGS: Record<string, number> = {
  'anchore_grype/same_cve_different_paths.json': 2, // DefectDojo default: 1, detailed: 2
};

const FIRST_FINDING_CHECKS: Record<string, (parsed: Parsed) => void> = {
  'anchore_grype/anchore_grype_epss_problem.json': ({ findings }) => {
    // EPSS has no field in Rampart's records (vulnerability intelligence brings it): only the
    // ids are asserted. The CVE comes from the related vulnerability.
    const f = byId(findings, 'GHSA-4374-p667-p6c8');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2023-39325']);
    expect(f.location).toMatchObject({
      kind: 'Package',
      packageName: 'golang.org/x/net',
      packageVersion: 'v0.9.0',
    });
  },
  'anchore_grype/fix_available.json': ({ findings }) => {
    expect(byId(findings, 'CVE-2009-3882').fixedIn).toBe('1.2.3');
  },
  'anchore_grype/many_vulns_with_epss_values.json': ({ findings }) => {
    const f = byId(findings, 'CVE-2022-28391');
    expect(f.severity).toBe('High');
    expect(f.vulnerability.cvss3Vector).toBe('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H');
    expect(f.vulnerability.cvss3Score).toBe(8.8);
    expect(f.location).toMatchObject({ packageName: 'busybox', packageVersion: '1.32.1' });
  },
  'anchore_grype/same_cve_different_paths.json': ({ findings }) => {
    // DefectDojo: one finding with nb_occurences 2; here the two occurrences, one per path.
    expect(findings.map((f) => [f.vulnerability.ruleId, f.location.filePath])).toEqual([
      ['CVE-2021-33574', '/usr/lib/x86_64-linux-gnu/libc.so.6'],
      ['CVE-2021-33574', '/lib/x86_64-linux-gnu/libc.so.6'],
    ]);
  },
};

describe('grype importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('anchore_grype')) {
    const expected = RAMPART_FINDINGS[entry.file] ?? entry.expectedFindings;
    const name = `${entry.file}${entry.variant ? ` (${entry.variant})` : ''}`;
    it(`${name}: ${expected} findings (DefectDojo: ${entry.expectedFindings})`, async () => {
      const parsed = await parseFixture(grypeImporter, entry.file);
      expect(parsed.findings).toHaveLength(expected);
      if (entry.firstFinding) FIRST_FINDING_CHECKS[entry.file]!(parsed);
    });
  }

  it('has a first-finding check for every sample DefectDojo asserts one for', () => {
    const asserted = manifestEntries('anchore_grype').filter((e) => e.firstFinding);
    expect([...new Set(asserted.map((e) => e.file))].sort()).toEqual(
      Object.keys(FIRST_FINDING_CHECKS).sort(),
    );
  });

  it('matches the detailed reading of DefectDojo', () => {
    const detailed = manifestEntries('anchore_grype').find((e) => e.variant === 'detailed')!;
    expect(RAMPART_FINDINGS[detailed.file]).toBe(detailed.expectedFindings);
  });
});

describe('grype importer: detection', () => {
  const others = [trivyImporter, cyclonedxImporter, osvScannerImporter];

  for (const entry of manifestEntries('anchore_grype').filter((e) => !e.variant)) {
    it(`${entry.file} is Grype and nothing else`, () => {
      const text = head(entry.file);
      expect(grypeImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
      for (const other of others) expect(other.detect(text), other.format).toBeLessThan(0.5);
    });
  }

  it('does not take Trivy, CycloneDX (even from Grype) or Nessus files for its own', () => {
    for (const file of [
      'trivy/scheme_2_many_vulns.json',
      'trivy/legacy_many_vulns.json',
      'cyclonedx/log4j.xml',
      'cyclonedx/nested-component-log4j.json',
    ]) {
      expect(grypeImporter.detect(head(file)), file).toBeLessThan(0.5);
    }
    expect(grypeImporter.detect('<?xml version="1.0" ?><NessusClientData_v2><Report name="x">')).toBeLessThan(
      0.3,
    );
  });
});

describe('grype importer: assets', () => {
  it('files the matches under the image Grype was given, with its distribution', async () => {
    const { findings, warnings } = await parseFixture(grypeImporter, 'anchore_grype/many_vulns.json');
    expect(new Set(findings.map((f) => JSON.stringify(f.asset)))).toEqual(
      new Set([
        JSON.stringify({ kind: 'ContainerImage', image: 'python:3.6', operatingSystem: 'debian 10' }),
      ]),
    );
    expect(warnings).toEqual([]);
  });

  it('streams the matches when source comes first', async () => {
    const text = JSON.stringify({
      source: { type: 'directory', target: '/src/shop' },
      matches: [match('CVE-2021-44228')],
    });
    const { findings } = await parseText(grypeImporter, text);
    expect(findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: '/src/shop' });
  });

  it('says so when the report does not name what was scanned', async () => {
    const { findings, warnings } = await parseFixture(
      grypeImporter,
      'anchore_grype/anchore_grype_epss_problem.json',
    );
    expect(findings[0]!.asset).toEqual({ kind: 'ContainerImage', image: '(unknown)' });
    expect(warnings).toEqual([expect.stringMatching(/does not say what Grype scanned/)]);
  });
});

describe('grype importer: findings', () => {
  it('locates each match at its package and first path, with how it matched', async () => {
    const { findings } = await parseText(grypeImporter, report([match('CVE-2021-44228')]));
    expect(findings[0]).toMatchObject({
      location: {
        kind: 'Package',
        packageName: 'log4j-core',
        packageVersion: '2.14.1',
        filePath: '/app/lib/log4j-core-2.14.1.jar',
      },
      evidence: expect.stringContaining('java-matcher (exact-direct-match), constraint <2.17.1'),
    });
  });

  it('documents the severity mapping: Negligible is Info', async () => {
    expect(GRYPE_SEVERITY).toEqual({
      critical: 'Critical',
      high: 'High',
      medium: 'Medium',
      low: 'Low',
      negligible: 'Info',
    });
    const { findings } = await parseFixture(grypeImporter, 'anchore_grype/many_vulns.json');
    const count = (severity: string) => findings.filter((f) => f.severity === severity).length;
    // 681 Negligible and 76 Unknown (no CVSS in this old report) → Info
    expect([count('High'), count('Medium'), count('Low'), count('Info')]).toEqual([32, 613, 107, 681 + 76]);
  });

  it('rates Unknown or missing by the related vulnerability, else by CVSS v3', async () => {
    const related = [{ id: 'CVE-2024-0001', severity: 'Critical', urls: [] }];
    const cvss = [
      { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', metrics: { baseScore: 5.3 } },
    ];
    const { findings } = await parseText(
      grypeImporter,
      report([
        match('GHSA-aaaa-bbbb-cccc', { vulnerability: { severity: 'Unknown' }, related }),
        match('CVE-2024-0002', { vulnerability: { severity: 'Unknown', cvss } }),
        match('CVE-2024-0003', { vulnerability: { severity: undefined } }),
      ]),
    );
    expect(byId(findings, 'GHSA-aaaa-bbbb-cccc').severity).toBe('Critical');
    expect(byId(findings, 'CVE-2024-0002').severity).toBe('Medium');
    expect(byId(findings, 'CVE-2024-0003').severity).toBe('Info');
    // issue_9618 has a match without severity whose related GHSA is High
    const sample = await parseFixture(grypeImporter, 'anchore_grype/issue_9618.json');
    expect(byId(sample.findings, 'CVE-2024-26308').severity).toBe('High');
  });

  it('keeps the CVE of a GHSA match, and the GHSA of a CVE match as an alias', async () => {
    const { findings } = await parseText(
      grypeImporter,
      report([
        match('GHSA-jfh8-c2jp-5v3q', { related: [{ id: 'CVE-2021-44228' }] }),
        match('CVE-2021-45046', { related: [{ id: 'GHSA-7rjr-3q55-vv33' }] }),
      ]),
    );
    expect(byId(findings, 'GHSA-jfh8-c2jp-5v3q').vulnerability).toMatchObject({ cveIds: ['CVE-2021-44228'] });
    expect(byId(findings, 'GHSA-jfh8-c2jp-5v3q').vulnerability.aliases).toBeUndefined();
    expect(byId(findings, 'CVE-2021-45046').vulnerability).toMatchObject({
      cveIds: ['CVE-2021-45046'],
      aliases: ['GHSA-7rjr-3q55-vv33'],
    });
  });

  it('gives every fix version', async () => {
    const fix = { versions: ['2.17.1', '2.12.4'], state: 'fixed' };
    const { findings } = await parseText(
      grypeImporter,
      report([match('CVE-2021-44832', { vulnerability: { fix } })]),
    );
    expect(findings[0]!.fixedIn).toBe('2.17.1, 2.12.4');
  });

  it('removes control characters that cannot be stored', async () => {
    const { findings } = await parseFixture(grypeImporter, 'anchore_grype/fix_available.json');
    expect(findings[0]!.location.packageVersion).toBe('17.0.10+7-J-ms8m'); // "17.0.10+7\u0000-J-ms8m" in the report
  });
});

describe('grype importer: ignored matches', () => {
  it('carries VEX statements and ignore rules; leaves filters out', async () => {
    const ignored = (id: string, rules: object[]) => ({ ...match(id), appliedIgnoreRules: rules });
    const text = JSON.stringify({
      matches: [],
      ignoredMatches: [
        ignored('CVE-2024-0001', [
          {
            namespace: 'vex',
            'vex-status': 'not_affected',
            'vex-justification': 'vulnerable_code_not_present',
          },
        ]),
        ignored('CVE-2024-0002', [{ vulnerability: 'CVE-2024-0002', reason: 'compensating WAF rule' }]),
        ignored('CVE-2024-0003', [{ 'fix-state': 'not-fixed' }]),
      ],
      source: IMAGE_SOURCE,
    });
    const { findings } = await parseText(grypeImporter, text);
    expect(findings.map((f) => [f.vulnerability.ruleId, f.state])).toEqual([
      [
        'CVE-2024-0001',
        { state: 'FalsePositive', reason: 'Not affected (VEX): vulnerable_code_not_present' },
      ],
      ['CVE-2024-0002', { state: 'RiskAccepted', reason: 'compensating WAF rule' }],
    ]);
  });
});

describe('grype importer: bad input', () => {
  it('fails on JSON cut in the middle', async () => {
    const error = await failure(
      parseText(grypeImporter, head('anchore_grype/many_vulns3.json').slice(0, 9000)),
    );
    expect(error.message).toMatch(/Not valid JSON/);
  });

  it('refuses JSON of another shape with a clear message', async () => {
    expect((await failure(parseText(grypeImporter, '{"foo": 1}'))).message).toMatch(
      /not a Grype JSON report/,
    );
    expect((await failure(parseText(grypeImporter, '[1, 2, 3]'))).message).toMatch(/not a Grype JSON report/);
  });

  it('refuses an empty file', async () => {
    expect((await failure(parseText(grypeImporter, ''))).message).toMatch(/empty/);
  });

  it('reads a clean scan as no findings', async () => {
    expect((await parseText(grypeImporter, report([]))).records).toEqual([]);
  });
});

describe('grype importer: memory', () => {
  it(`holds at most ${MAX_HELD_MATCHES} matches until the asset is known, and says what it left out`, async () => {
    const one =
      '{"vulnerability":{"id":"CVE-2024-0001","severity":"Low"},"artifact":{"name":"zlib","version":"1.3"}}';
    const text = `{"matches":[${Array.from({ length: MAX_HELD_MATCHES + 3 }, () => one).join(',')}],"source":${JSON.stringify(IMAGE_SOURCE)}}`;
    const { findings, warnings } = await parseText(grypeImporter, text);
    expect(findings).toHaveLength(MAX_HELD_MATCHES);
    expect(warnings).toEqual([expect.stringMatching(/^3 matches were left out/)]);
  });
});

describe('grype importer: CVSS v2', () => {
  it("fix_available.json: CVE-2009-3882 has only NVD's CVSS v2, kept with its vector", async () => {
    const { findings } = await parseFixture(grypeImporter, 'anchore_grype/fix_available.json');
    const f = byId(findings, 'CVE-2009-3882');
    expect(f.vulnerability).toMatchObject({ cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', cvss2Score: 7.5 });
    expect(f.vulnerability.cvss3Score).toBeUndefined();
  });
});
