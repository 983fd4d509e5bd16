import { describe, expect, it } from 'vitest';
import { SEMGREP_SEVERITY, semgrepImporter } from '../../src/importers/semgrep/index.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

/** A native `semgrep --json` supply-chain result (no DefectDojo sample has one). */
const SCA_RESULT = {
  check_id: 'ssc-1b8a1b3c-0000-4000-8000-000000000001',
  path: 'package-lock.json',
  start: { line: 120, col: 1, offset: 0 },
  end: { line: 120, col: 1, offset: 0 },
  extra: {
    message: 'lodash before 4.17.21 is vulnerable to Command Injection via template.',
    severity: 'ERROR',
    metadata: {
      'sca-severity': 'CRITICAL',
      'sca-vuln-database-identifier': 'CVE-2021-23337',
      'sca-fix-versions': [{ lodash: '4.17.21' }],
      cwe: ['CWE-94: Improper Control of Generation of Code'],
      references: ['https://github.com/advisories/GHSA-35jh-r3h4-6jhm'],
    },
    sca_info: {
      reachable: true,
      reachability_rule: true,
      sca_finding_schema: 20220913,
      dependency_match: {
        dependency_pattern: { ecosystem: 'npm', package: 'lodash', semver_range: '< 4.17.21' },
        found_dependency: {
          package: 'lodash',
          version: '4.17.19',
          ecosystem: 'npm',
          transitivity: 'direct',
          line_number: 1180,
          lockfile_path: 'package-lock.json',
        },
        lockfile: 'package-lock.json',
      },
    },
    fingerprint: 'abc123',
    lines: 'requires login',
    is_ignored: false,
  },
};

describe('semgrep importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('semgrep')) {
    it(`${entry.file}: ${entry.expectedFindings} findings, as DefectDojo`, async () => {
      const { findings, warnings } = await parseFixture(semgrepImporter, entry.file);
      expect(findings).toHaveLength(entry.expectedFindings);
      expect(warnings).toEqual([]);
    });
  }

  it('cwe_list.json: INFO is Low, CWE-352 at index.js:12 (as DefectDojo)', async () => {
    const f = (await parseFixture(semgrepImporter, 'semgrep/cwe_list.json')).findings[0]!;
    expect(f.severity).toBe('Low');
    expect(f.vulnerability.ruleId).toBe(
      'javascript.express.security.audit.express-check-csurf-middleware-usage.express-check-csurf-middleware-usage',
    );
    expect(f.vulnerability.cweIds).toEqual(['CWE-352']);
    expect(f.location).toEqual({ kind: 'File', filePath: 'index.js', line: 12 });
    expect(f.toolFindingId).toBe('143cb0c62f3740d62180cbde3ffa976e');
    expect(f.evidence).toBe('const app = express();');
    expect(f.asset).toEqual({ kind: 'CodeRepository', repository: 'semgrep workspace' });
  });

  it('fingerprint_test.json: "requires login" is neither an id nor evidence (as DefectDojo)', async () => {
    const f = (await parseFixture(semgrepImporter, 'semgrep/fingerprint_test.json')).findings[0]!;
    expect(f.location).toEqual({ kind: 'File', filePath: 'sample/brute.py', line: 31 });
    expect(f.toolFindingId).toBeUndefined();
    expect(f.evidence).toBeUndefined();
    // impact MEDIUM rates it, not severity ERROR
    expect(f.severity).toBe('Medium');
  });

  it('many_vulns.json: ERROR is High (as DefectDojo)', async () => {
    const f = (await parseFixture(semgrepImporter, 'semgrep/many_vulns.json')).findings[0]!;
    expect(f.severity).toBe('High');
    expect(f.vulnerability.ruleId).toBe('python.lang.correctness.tempfile.flush.tempfile-without-flush');
    expect(f.location).toEqual({ kind: 'File', filePath: 'tasks.py', line: 186 });
  });

  it('one_finding.json: WARNING is Medium, CWE-696, the fix as solution (as DefectDojo)', async () => {
    const f = (await parseFixture(semgrepImporter, 'semgrep/one_finding.json')).findings[0]!;
    expect(f.severity).toBe('Medium');
    expect(f.vulnerability.cweIds).toEqual(['CWE-696']);
    expect(f.vulnerability.solution).toContain('AES/GCM/NoPadding');
    expect(f.vulnerability.references).toEqual([
      'https://capec.mitre.org/data/definitions/463.html',
      'https://find-sec-bugs.github.io/bugs.htm#PADDING_ORACLE',
    ]);
    expect(f.location).toEqual({
      kind: 'File',
      filePath: 'src/main/java/org/owasp/benchmark/testcode/BenchmarkTest02194.java',
      line: 64,
    });
  });

  it('issue_8435.json: impact MEDIUM wins over severity ERROR', async () => {
    const f = (await parseFixture(semgrepImporter, 'semgrep/issue_8435.json')).findings[0]!;
    expect(f.severity).toBe('Medium');
    expect(f.vulnerability.cweIds).toEqual(['CWE-798']);
  });

  it('sca-deployments-vulns.json: 22 API entries, identical repeats once: 18 (as DefectDojo)', async () => {
    const { findings } = await parseFixture(semgrepImporter, 'semgrep/sca-deployments-vulns.json');
    const f = findings[0]!;
    expect(f.severity).toBe('High');
    expect(f.vulnerability.cweIds).toEqual(['CWE-617']);
    expect(f.vulnerability.cveIds).toEqual(['CVE-2023-1428']);
    expect(f.vulnerability.aliases).toEqual(['GHSA-6628-q6j9-w8vg']);
    expect(f.location).toEqual({
      kind: 'Package',
      packageName: 'grpcio',
      packageVersion: '1.47.0',
      filePath: 'requirements3.txt',
      line: 222,
    });
    expect(f.fixedIn).toBe('1.53.0');
    expect(f.asset).toEqual({ kind: 'CodeRepository', repository: 'example/rfv' });
    expect(findings.at(-1)!.severity).toBe('Critical');
  });

  it('reads a native supply-chain result at its dependency', async () => {
    const { findings } = await parseText(
      semgrepImporter,
      JSON.stringify({ results: [SCA_RESULT], errors: [] }),
    );
    const f = findings[0]!;
    expect(f.location).toEqual({
      kind: 'Package',
      packageName: 'lodash',
      packageVersion: '4.17.19',
      filePath: 'package-lock.json',
      line: 1180,
    });
    expect(f.severity).toBe('Critical');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2021-23337']);
    expect(f.vulnerability.cweIds).toEqual(['CWE-94']);
    expect(f.fixedIn).toBe('4.17.21');
    expect(f.vulnerability.description).toContain('Reachable: yes.');
    expect(f.toolFindingId).toBe('abc123');
  });

  it('keeps nosemgrep results as accepted risks and warns about scan errors', async () => {
    const ignored = { ...SCA_RESULT, extra: { ...SCA_RESULT.extra, sca_info: undefined, is_ignored: true } };
    const { findings, warnings } = await parseText(
      semgrepImporter,
      JSON.stringify({ results: [ignored], errors: [{ message: 'parse error' }] }),
    );
    expect(findings[0]!.state?.state).toBe('RiskAccepted');
    expect(findings[0]!.location).toEqual({ kind: 'File', filePath: 'package-lock.json', line: 120 });
    expect(warnings).toEqual([expect.stringMatching(/1 errors/)]);
  });

  it('documents its severity', () => {
    expect(SEMGREP_SEVERITY).toMatchObject({ ERROR: 'High', WARNING: 'Medium', INFO: 'Low' });
  });
});

describe('semgrep importer: detection', () => {
  for (const entry of manifestEntries('semgrep')) {
    it(`${entry.file} is claimed as Semgrep (the registry test checks no other format claims it)`, () => {
      const text = head(entry.file);
      expect(semgrepImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
    });
  }

  it('does not claim other JSON reports', () => {
    for (const file of [
      'trivy/scheme_2_many_vulns.json',
      'sarif/appendix_k.sarif',
      'generic/generic_report1.json',
      'gitleaks/gitleaks8_many.json',
      'npm_audit/one_vuln.json',
      'npm_audit_7_plus/one_vuln.json',
      'masscan/masscan_many_vuln.json',
    ])
      expect(semgrepImporter.detect(head(file)), file).toBeLessThan(0.5);
  });
});

describe('semgrep importer: bad input', () => {
  it('reads a clean run as an empty report', async () => {
    const clean = '{"results": [], "errors": [], "paths": {"scanned": []}, "version": "1.50.0"}';
    expect((await parseText(semgrepImporter, clean)).records).toEqual([]);
  });

  it('fails on an empty file', async () => {
    expect((await failure(parseText(semgrepImporter, ''))).message).toMatch(/empty/);
  });

  it('fails on malformed JSON', async () => {
    await failure(parseText(semgrepImporter, '{"results": [{"check_id": "x",'));
  });

  it('fails on JSON of another shape', async () => {
    for (const text of ['[]', '{"findings": []}', '{"results": [{"ruleId": "x"}]}', '{"runs": []}'])
      expect((await failure(parseText(semgrepImporter, text))).message, text).toMatch(/not a Semgrep/);
  });
});
