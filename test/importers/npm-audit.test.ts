import { describe, expect, it } from 'vitest';
import { NPM_AUDIT_SEVERITY, npmAuditImporter } from '../../src/importers/npm-audit/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const ENTRIES = [...manifestEntries('npm_audit'), ...manifestEntries('npm_audit_7_plus')];

/**
 * Where our count differs from DefectDojo's, and why:
 * - npm_audit/multiple_cwes2.json: advisory GHSA-93q8-gq69-wqmw (ansi-regex) is installed at two
 *   versions, 3.0.0 and 4.1.0. DefectDojo makes one finding per advisory; we make one per
 *   advisory × installed version, so each version is its own package location: 7, not 6.
 * - npm_audit_7_plus/one_vuln.json: the package debug has two advisories in `via`
 *   (GHSA-gxpj-cx7g-858c and GHSA-9vvw-cc9w-f27h). DefectDojo makes one finding per package; we
 *   make one per advisory × package, so each advisory keeps its own id, CWE and CVSS: 2, not 1.
 */
const OUR_COUNT: Record<string, number> = {
  'npm_audit/multiple_cwes2.json': 7,
  'npm_audit_7_plus/one_vuln.json': 2,
};

function byRule(findings: FindingRecord[], ruleId: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.ruleId === ruleId);
  expect(found, ruleId).toBeDefined();
  return found!;
}

describe('npm-audit importer: DefectDojo samples', () => {
  for (const entry of ENTRIES) {
    const ours = OUR_COUNT[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${ours} findings (DefectDojo ${entry.expectedFindings})`, async () => {
      const { findings, warnings } = await parseFixture(npmAuditImporter, entry.file);
      expect(findings).toHaveLength(ours);
      expect(warnings).toEqual([]);
      for (const f of findings)
        expect(f.asset).toEqual({ kind: 'CodeRepository', repository: 'npm project' });
    });
  }

  it('npm 6: one_vuln.json (growl 1.9.2, CWE-94, as DefectDojo)', async () => {
    const { findings } = await parseFixture(npmAuditImporter, 'npm_audit/one_vuln.json');
    const f = findings[0]!;
    expect(f.vulnerability.ruleId).toBe('npm-advisory-146');
    expect(f.vulnerability.title).toBe('Command Injection');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2017-16042']);
    expect(f.vulnerability.cweIds).toEqual(['CWE-94']);
    expect(f.location).toEqual({ kind: 'Package', packageName: 'growl', packageVersion: '1.9.2' });
    expect(f.severity).toBe('Critical');
    expect(f.fixedIn).toBe('>=1.10.2');
    expect(f.vulnerability.references).toContain('https://github.com/tj/node-growl/issues/60');
  });

  it('npm 6: cwe_null.json has no CWE (DefectDojo puts its default 1035)', async () => {
    const { findings } = await parseFixture(npmAuditImporter, 'npm_audit/cwe_null.json');
    expect(findings[0]!.vulnerability.cweIds).toBeUndefined();
    expect(findings[0]!.location).toMatchObject({ packageName: 'growl', packageVersion: '1.9.2' });
  });

  it('npm 6: multiple_cwes2.json keeps both CWEs, the GHSA id and each installed version', async () => {
    const { findings } = await parseFixture(npmAuditImporter, 'npm_audit/multiple_cwes2.json');
    const ansi = findings.filter((f) => f.vulnerability.ruleId === 'GHSA-93q8-gq69-wqmw');
    expect(ansi.map((f) => f.location.packageVersion)).toEqual(['3.0.0', '4.1.0']);
    expect(ansi[0]!.vulnerability.cweIds).toEqual(['CWE-918', 'CWE-1333']);
    expect(ansi[0]!.vulnerability.cveIds).toEqual(['CVE-2021-3807']);
    expect(ansi[0]!.vulnerability.aliases).toEqual(['npm-advisory-1064843']);
    expect(ansi[0]!.vulnerability.cvss3Vector).toBe('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H');
    expect(ansi[0]!.severity).toBe('Medium');
  });

  it('npm 7+: one_vuln.json, one finding per advisory of debug', async () => {
    const { findings } = await parseFixture(npmAuditImporter, 'npm_audit_7_plus/one_vuln.json');
    const first = byRule(findings, 'GHSA-gxpj-cx7g-858c');
    // DefectDojo rates the finding High, the package's severity; we keep each advisory's own.
    expect(first.severity).toBe('Medium');
    expect(first.vulnerability.cweIds).toEqual(['CWE-400']);
    expect(first.vulnerability.cvss3Vector).toBe('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L');
    expect(first.vulnerability.cvss3Score).toBe(5.3);
    expect(first.location).toEqual({ kind: 'Package', packageName: 'debug' });
    expect(first.fixedIn).toBe('express@4.18.3');
    expect(first.vulnerability.description).toContain('<2.6.9');
    expect(first.vulnerability.description).toContain('node_modules/debug');
    expect(byRule(findings, 'GHSA-9vvw-cc9w-f27h').severity).toBe('High');
  });

  it('npm 7+: multiple_cwes_fabricated.json and issue_10801.json', async () => {
    const multi = (await parseFixture(npmAuditImporter, 'npm_audit_7_plus/multiple_cwes_fabricated.json'))
      .findings[0]!;
    expect(multi.vulnerability.cweIds).toEqual(['CWE-400', 'CWE-1333']);
    const got = (await parseFixture(npmAuditImporter, 'npm_audit_7_plus/issue_10801.json')).findings[0]!;
    expect(got.severity).toBe('Medium');
    expect(got.vulnerability.cweIds).toBeUndefined();
    expect(got.fixedIn).toBe('nodemon@3.1.4 (semver-major)');
  });

  it('npm 7+: a via entry naming a dependency makes no finding; fixAvailable true is "npm audit fix"', async () => {
    const report = {
      auditReportVersion: 2,
      vulnerabilities: {
        express: {
          name: 'express',
          severity: 'high',
          via: ['debug'],
          range: '<4.0.0',
          nodes: ['node_modules/express'],
          fixAvailable: true,
        },
        debug: {
          name: 'debug',
          severity: 'critical',
          via: [
            {
              source: 1,
              name: 'debug',
              title: 'Bad',
              url: 'https://example.com/1',
              severity: 'critical',
              cwe: [],
            },
          ],
          fixAvailable: true,
        },
      },
    };
    const { findings } = await parseText(npmAuditImporter, JSON.stringify(report));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'Critical', fixedIn: 'npm audit fix' });
    expect(findings[0]!.vulnerability.ruleId).toBe('npm-advisory-1');
  });

  it('documents its severity', () => {
    expect(NPM_AUDIT_SEVERITY).toEqual({
      critical: 'Critical',
      high: 'High',
      moderate: 'Medium',
      low: 'Low',
      info: 'Info',
    });
  });
});

describe('npm-audit importer: detection', () => {
  for (const entry of ENTRIES) {
    it(`${entry.file} is claimed as npm audit (the registry test checks no other format claims it)`, () => {
      const text = head(entry.file);
      expect(npmAuditImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
    });
  }

  it('does not claim other JSON reports', () => {
    for (const file of [
      'trivy/scheme_2_many_vulns.json',
      'sarif/appendix_k.sarif',
      'generic/generic_report1.json',
      'cyclonedx/issue_9277.json',
      'gitleaks/gitleaks8_many.json',
      'semgrep/one_finding.json',
      'semgrep/sca-deployments-vulns.json',
      'masscan/masscan_many_vuln.json',
    ])
      expect(npmAuditImporter.detect(head(file)), file).toBeLessThan(0.5);
  });
});

describe('npm-audit importer: bad input', () => {
  it('reads reports without vulnerabilities as empty', async () => {
    const npm6 = '{"actions": [], "advisories": {}, "muted": [], "metadata": {}}';
    const npm7 = '{"auditReportVersion": 2, "vulnerabilities": {}, "metadata": {}}';
    expect((await parseText(npmAuditImporter, npm6)).records).toEqual([]);
    expect((await parseText(npmAuditImporter, npm7)).records).toEqual([]);
  });

  it('fails on an empty file', async () => {
    expect((await failure(parseText(npmAuditImporter, ''))).message).toMatch(/empty/);
  });

  it('fails on malformed JSON', async () => {
    await failure(parseText(npmAuditImporter, '{"advisories": {"1": {'));
  });

  it("fails with npm's own message on an error report", async () => {
    const error = '{"error": {"code": "ENOLOCK", "summary": "This command requires an existing lockfile."}}';
    expect((await failure(parseText(npmAuditImporter, error))).message).toMatch(/ENOLOCK.*lockfile/);
  });

  it('fails on JSON of another shape', async () => {
    for (const text of [
      '[]',
      '{"results": []}',
      '{"vulnerabilities": [{"id": "CVE-2020-1"}]}',
      '{"vulnerabilities": {"x": {"id": 1}}}',
    ])
      expect((await failure(parseText(npmAuditImporter, text))).message, text).toMatch(/not an npm audit/);
  });
});
