import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_HELD_FINDINGS, MAX_PATHS, SNYK_SEVERITY, snykImporter } from '../../src/importers/snyk/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { locateJsonError } from '../../src/parsing/json.js';
import { failure, head, manifestEntries, type Parsed, parseFixture, parseText } from './helpers.js';

/**
 * Where our count differs from DefectDojo's, and why. DefectDojo makes one finding per
 * dependency path ("a > b > c"); we make one per issue × installed package × version in a
 * project, with the paths in its evidence (the import would merge the per-path findings anyway,
 * keeping only the last path). Every path is still there: see "keeps every dependency path".
 * - all_projects_issue4277.json: 24 + 58 paths of 13 + 37 issues in packages: 50, not 82.
 * - single_project_upgrade_libs.json: 254 paths (77 of them bring in postcss 7.0.35 for one
 *   issue, 77 for another) of 52 issues in packages: 52, not 254.
 * - snykcontainer_issue_9270.json: the image's 25 paths are 18 issues in installed (binary)
 *   packages, e.g. CVE-2023-4039 in libgcc-s1, libgomp1 and libstdc++6; and the 12 issues of the
 *   Node.js application inside the image (`applications[]`), which DefectDojo does not read: 30.
 */
const OUR_COUNT: Record<string, number> = {
  'snyk/all_projects_issue4277.json': 50,
  'snyk/single_project_upgrade_libs.json': 52,
  'snyk/snykcontainer_issue_9270.json': 18 + 12,
};

/** Dependency paths DefectDojo did not read: the applications inside the image. */
const EXTRA_PATHS: Record<string, number> = { 'snyk/snykcontainer_issue_9270.json': 12 };

function byRule(findings: FindingRecord[], ruleId: string, packageName?: string): FindingRecord {
  const found = findings.find(
    (f) => f.vulnerability.ruleId === ruleId && (!packageName || f.location.packageName === packageName),
  );
  expect(found, `${ruleId} ${packageName ?? ''}`).toBeDefined();
  return found!;
}

/** How many dependency paths a finding's evidence lists or counts ("… and 57 more"). */
function pathsIn(finding: FindingRecord): number {
  const listed = finding.evidence?.match(/^- .* > .*$/gm)?.length ?? 0;
  const more = Number(finding.evidence?.match(/^- … and (\d+) more$/m)?.[1] ?? 0);
  return listed + more;
}

const FIRST_FINDING_CHECKS: Record<string, (parsed: Parsed) => void> = {
  'snyk/all_projects_issue4277.json': ({ findings }) => {
    const f = byRule(findings, 'SNYK-DOTNET-MICROSOFTASPNETCORE-174184');
    expect(f.severity).toBe('High');
    expect(f.vulnerability).toMatchObject({
      cveIds: ['CVE-2019-0815'],
      cweIds: ['CWE-200'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
      cvss3Score: 7.5,
    });
    expect(f.location).toEqual({
      kind: 'Package',
      packageName: 'Microsoft.AspNetCore',
      packageVersion: '2.2.0',
      filePath: 'company.Api.project/src/obj/project.assets.json',
    });
  },
  'snyk/single_project_one_vuln.json': ({ findings }) => {
    const f = byRule(findings, 'SNYK-JAVA-ORGAPACHESANTUARIO-460281');
    // DefectDojo's title puts the project first ("com.test:myframework@1.0.0-SNAPSHOT: XML
    // External Entity (XXE) Injection"); here the project is the asset and the title Snyk's.
    expect(f.vulnerability.title).toBe('XML External Entity (XXE) Injection');
    expect(f.asset).toEqual({ kind: 'CodeRepository', repository: 'com.test:myframework' });
    expect(f.severity).toBe('Medium');
    expect(f.vulnerability).toMatchObject({
      cveIds: ['CVE-2019-12400'],
      cweIds: ['CWE-611'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:L',
      solution: 'Upgrade `org.apache.santuario:xmlsec` to version 2.1.4 or higher.',
    });
    // DefectDojo's file_path is the dependency path without versions; here it is in the evidence.
    expect(f.evidence).toContain(
      '- com.test:myframework@1.0.0-SNAPSHOT > org.apache.santuario:xmlsec@2.1.1\n',
    );
    expect(f.evidence).toContain('Upgrade: org.apache.santuario:xmlsec@2.1.4');
    expect(f.fixedIn).toBe('2.1.4');
  },
};

describe('snyk importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('snyk')) {
    const ours = OUR_COUNT[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${ours} findings (DefectDojo ${entry.expectedFindings})`, async () => {
      const parsed = await parseFixture(snykImporter, entry.file);
      expect(parsed.findings).toHaveLength(ours);
      expect(parsed.warnings).toEqual([]);
      if (entry.firstFinding) FIRST_FINDING_CHECKS[entry.file]!(parsed);
    });

    it(`${entry.file}: keeps every dependency path DefectDojo counts`, async () => {
      const { findings } = await parseFixture(snykImporter, entry.file);
      const paths = findings.reduce((sum, f) => sum + pathsIn(f), 0);
      expect(paths).toBe(entry.expectedFindings + (EXTRA_PATHS[entry.file] ?? 0));
    });
  }

  it('has a first-finding check for every sample DefectDojo asserts one for', () => {
    const asserted = manifestEntries('snyk').filter((e) => e.firstFinding);
    expect(asserted.map((e) => e.file).sort()).toEqual(Object.keys(FIRST_FINDING_CHECKS).sort());
  });
});

describe('snyk importer: assets and locations', () => {
  it('files each project of --all-projects under its name, at its manifest', async () => {
    const { findings } = await parseFixture(snykImporter, 'snyk/all-projects_many_vulns.json');
    expect(findings.map((f) => [f.asset, f.location.filePath])).toEqual([
      [{ kind: 'CodeRepository', repository: 'com.test:version-collision' }, 'pom.xml'],
      [{ kind: 'CodeRepository', repository: 'com.test:project-a' }, 'project-a/pom.xml'],
      [{ kind: 'CodeRepository', repository: 'com.test:project-a' }, 'project-a/pom.xml'],
      [{ kind: 'CodeRepository', repository: 'com.test:project-b' }, 'project-b/pom.xml'],
    ]);
  });

  it('reads Snyk Container: the image, its binary packages, and the applications inside it', async () => {
    const { findings } = await parseFixture(snykImporter, 'snyk/snykcontainer_issue_9270.json');
    const image = { kind: 'ContainerImage', image: 'sarim04/juiceshop:latest', operatingSystem: 'debian 11' };
    for (const f of findings) expect(f.asset).toEqual(image);
    const gcc = findings.filter((f) => f.vulnerability.ruleId === 'SNYK-DEBIAN11-GCC10-5901313');
    expect(gcc.map((f) => f.location)).toEqual(
      ['libgcc-s1', 'libgomp1', 'libstdc++6'].map((packageName) => ({
        kind: 'Package',
        packageName,
        packageVersion: '10.2.1-6',
      })),
    );
    expect(gcc[0]!.evidence).toContain('Source package: gcc-10');
    const app = byRule(findings, 'SNYK-JS-JSONWEBTOKEN-3180024');
    expect(app.location).toEqual({
      kind: 'Package',
      packageName: 'jsonwebtoken',
      packageVersion: '0.4.0',
      filePath: '/juice-shop/package.json',
    });
    expect(app.vulnerability).toMatchObject({ cveIds: ['CVE-2022-23541'], aliases: ['GHSA-hjrf-2m68-5959'] });
  });

  it('lists at most MAX_PATHS paths and counts the rest', async () => {
    const { findings } = await parseFixture(snykImporter, 'snyk/single_project_upgrade_libs.json');
    const postcss = byRule(findings, 'SNYK-JS-POSTCSS-1090595', 'postcss');
    expect(postcss.evidence?.match(/^- .* > .*$/gm)).toHaveLength(MAX_PATHS);
    expect(postcss.evidence).toContain(`- … and ${77 - MAX_PATHS} more`);
  });

  it('takes the asset from the dependency path when the report names no project', async () => {
    const text = JSON.stringify({
      vulnerabilities: [issue('SNYK-JS-A-1', { from: ['@acme/shop@2.0.0', 'a@1.0.0'] })],
    });
    const { findings } = await parseText(snykImporter, text);
    expect(findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: '@acme/shop' });
  });
});

/** A minimal Snyk issue. */
function issue(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    title: 'Prototype Pollution',
    severity: 'high',
    packageName: 'a',
    name: 'a',
    version: '1.0.0',
    from: ['shop@1.0.0', 'a@1.0.0'],
    upgradePath: [],
    isUpgradable: false,
    semver: { vulnerable: ['<1.0.1'] },
    ...extra,
  };
}

function project(vulnerabilities: unknown[], rest: object = {}): Record<string, unknown> {
  return { vulnerabilities, ok: false, packageManager: 'npm', projectName: 'shop', ...rest };
}

describe('snyk importer: severities and ids', () => {
  it('documents the severity mapping', () => {
    expect(SNYK_SEVERITY).toEqual({ critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low' });
  });

  it('takes severityWithCritical over severity (older CLIs capped severity at high)', async () => {
    const { findings } = await parseFixture(snykImporter, 'snyk/single_project_many_vulns.json');
    expect(byRule(findings, 'SNYK-JAVA-LOG4J-572732').severity).toBe('Critical');
  });

  it("keeps Snyk's rating of OS packages where DefectDojo takes the CVSS band", async () => {
    const { findings } = await parseFixture(snykImporter, 'snyk/snykcontainer_issue_9270.json');
    const glibc = byRule(findings, 'SNYK-DEBIAN11-GLIBC-521063');
    expect(glibc.vulnerability.cvss3Score).toBe(9.8);
    expect(glibc.severity).toBe('Low');
  });

  it('rates an issue without a Snyk rating by its CVSS score, else Info', async () => {
    const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
    const text = JSON.stringify(
      project([
        issue('SNYK-JS-A-1', { severity: undefined, CVSSv3: vector }),
        issue('SNYK-JS-A-2', { severity: 'unknown' }),
      ]),
    );
    const { findings } = await parseText(snykImporter, text);
    expect(byRule(findings, 'SNYK-JS-A-1')).toMatchObject({
      severity: 'Critical',
      vulnerability: { cvss3Score: 9.8 },
    });
    expect(byRule(findings, 'SNYK-JS-A-2').severity).toBe('Info');
  });

  it('keeps GHSA and other ids as aliases, CVE ids as CVE ids', async () => {
    const identifiers = {
      CVE: ['CVE-2021-23337'],
      CWE: ['CWE-94'],
      GHSA: ['GHSA-35jh-r3h4-6jhm'],
      NSP: [1673],
    };
    const text = JSON.stringify(project([issue('SNYK-JS-LODASH-1040724', { identifiers })]));
    const { vulnerability } = (await parseText(snykImporter, text)).findings[0]!;
    expect(vulnerability).toMatchObject({
      ruleId: 'SNYK-JS-LODASH-1040724',
      cveIds: ['CVE-2021-23337'],
      aliases: ['GHSA-35jh-r3h4-6jhm', 'NSP-1673'],
      cweIds: ['CWE-94'],
      references: ['https://security.snyk.io/vuln/SNYK-JS-LODASH-1040724'],
    });
  });

  it('reads license issues as findings with the license text as reference', async () => {
    const { findings } = await parseFixture(snykImporter, 'snyk/all_projects_issue4277.json');
    const license = byRule(findings, 'snyk:lic:npm:tinymce:LGPL-2.1');
    expect(license).toMatchObject({
      severity: 'Medium',
      vulnerability: {
        title: 'LGPL-2.1 license',
        references: ['https://raw.githubusercontent.com/spdx/license-list/master/LGPL-2.1.txt'],
      },
      location: { packageName: 'tinymce', packageVersion: '5.0.4' },
    });
  });
});

describe('snyk importer: policy ignores and errors', () => {
  const ignored = (id: string, from: string[]) =>
    issue(id, {
      from,
      filtered: {
        ignored: [{ reason: 'Not reachable', expires: '2030-01-01T00:00:00.000Z', source: 'cli' }],
      },
    });

  it('reports issues ignored in the .snyk policy as accepted risks, unless a path is not ignored', async () => {
    const text = JSON.stringify(
      project([issue('SNYK-JS-B-2', { from: ['shop@1.0.0', 'x@1.0.0', 'a@1.0.0'] })], {
        filtered: {
          ignore: [
            ignored('SNYK-JS-A-1', ['shop@1.0.0', 'a@1.0.0']),
            ignored('SNYK-JS-B-2', ['shop@1.0.0', 'a@1.0.0']),
          ],
          patch: [],
        },
      }),
    );
    const { findings } = await parseText(snykImporter, text);
    expect(byRule(findings, 'SNYK-JS-A-1').state).toEqual({
      state: 'RiskAccepted',
      reason: 'Ignored in the Snyk policy: Not reachable (until 2030-01-01T00:00:00.000Z)',
    });
    const open = byRule(findings, 'SNYK-JS-B-2');
    expect(open.state).toBeUndefined();
    expect(open.evidence).toContain('- shop@1.0.0 > a@1.0.0 (ignored)');
  });

  it('warns about a project Snyk could not test, and fails when none was', async () => {
    const failed = { ok: false, error: 'Could not detect supported target files', path: '/src/tools' };
    const { findings, warnings } = await parseText(
      snykImporter,
      JSON.stringify([project([issue('SNYK-JS-A-1')]), failed]),
    );
    expect(findings).toHaveLength(1);
    expect(warnings).toEqual([
      'Snyk could not test a project: /src/tools: Could not detect supported target files',
    ]);
    expect((await failure(parseText(snykImporter, JSON.stringify(failed)))).message).toBe(
      'Snyk could not test the project: /src/tools: Could not detect supported target files',
    );
  });

  it('reads a clean project as no findings', async () => {
    const { records, warnings } = await parseFixture(snykImporter, 'snyk/all-projects_one_vuln.json');
    expect(records).toHaveLength(1); // the other two projects are clean
    expect(warnings).toEqual([]);
    expect((await parseText(snykImporter, JSON.stringify(project([])))).records).toEqual([]);
  });
});

describe('snyk importer: detection', () => {
  // Every sample against every format, both ways: test/importers/registry.test.ts.
  it('knows a report whose first issue is longer than the head', () => {
    const text = `{"vulnerabilities": [{"id": "SNYK-JS-LODASH-567746", "semver": {"vulnerable": ["<4.17.16"]}, "description": "${'x'.repeat(70_000)}`;
    expect(snykImporter.detect(text.slice(0, 64 * 1024))).toBeGreaterThanOrEqual(0.8);
  });

  it('does not take SARIF or CycloneDX written by Snyk', () => {
    expect(
      snykImporter.detect('{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": []}'),
    ).toBe(0);
    expect(snykImporter.detect('{"bomFormat": "CycloneDX", "vulnerabilities": []}')).toBe(0);
  });
});

describe('snyk importer: bad input', () => {
  it('fails on JSON cut in the middle; the position is found by a second read', async () => {
    const text = head('snyk/single_project_one_vuln.json').slice(0, 3000);
    expect((await failure(parseText(snykImporter, text))).message).toMatch(/^Not valid JSON/);
    const at = await locateJsonError(() => Readable.from([Buffer.from(text)]));
    expect(at?.line).toBeGreaterThan(1);
  });

  it('refuses JSON of another shape with a clear message', async () => {
    for (const text of ['{"foo": 1}', '[1, 2, 3]', '{"auditReportVersion": 2, "vulnerabilities": {"a": {}}}'])
      expect((await failure(parseText(snykImporter, text))).message, text).toMatch(/not a Snyk JSON report/);
    expect((await failure(parseText(snykImporter, '{"runs": [{"results": []}]}'))).message).toMatch(
      /"sarif" format/,
    );
    expect((await failure(parseText(snykImporter, '<report/>'))).message).toMatch(/starts with "<"/);
  });

  it('refuses an empty file', async () => {
    expect((await failure(parseText(snykImporter, ' \n'))).message).toMatch(/empty/);
  });

  it('skips issues without an id or a package, and says so', async () => {
    const text = JSON.stringify(project([issue('SNYK-JS-A-1'), { title: 'x' }, 'junk']));
    const { findings, warnings } = await parseText(snykImporter, text);
    expect(findings).toHaveLength(1);
    expect(warnings).toEqual(['2 Snyk issues without an id or a package were skipped.']);
  });

  it('cuts long texts to the limits', async () => {
    const text = JSON.stringify(project([issue('SNYK-JS-A-1', { description: 'x'.repeat(40_000) })]));
    const { findings, warnings } = await parseText(snykImporter, text);
    expect(findings[0]!.vulnerability.description!.length).toBeLessThanOrEqual(32 * 1024);
    expect(warnings).toEqual([expect.stringMatching(/description texts were longer/)]);
  });
});

describe('snyk importer: memory', () => {
  it(`holds at most ${MAX_HELD_FINDINGS} findings until the project is named, and says what it left out`, async () => {
    const one = (n: number) =>
      `{"id":"SNYK-JS-A-${n}","severity":"low","packageName":"a","name":"a","version":"1.0.0","from":["shop@1.0.0","a@1.0.0"]}`;
    const issues = Array.from({ length: MAX_HELD_FINDINGS + 3 }, (_, n) => one(n)).join(',');
    const { findings, warnings } = await parseText(
      snykImporter,
      `{"vulnerabilities":[${issues}],"projectName":"shop"}`,
    );
    expect(findings).toHaveLength(MAX_HELD_FINDINGS);
    expect(findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: 'shop' });
    expect(warnings).toEqual([expect.stringMatching(/^3 Snyk findings were left out/)]);
  });
});
