import { describe, expect, it } from 'vitest';
import { GITLEAKS_SEVERITY, gitleaksImporter, maskSecret } from '../../src/importers/gitleaks/index.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

/**
 * Our counts against DefectDojo's. DefectDojo merges leaks of the same rule at the same file and
 * line found in several commits into one finding (nb_occurences): gitleaks8_many.json holds 4
 * leaks (the AWS key in /conf/aws.tf twice), version_7.5.0.json 8 (each of 4 leaks in two
 * commits). We keep one record per leak (each names its own commit in its description); the
 * import merges records with the same asset, rule and location, so the number of distinct
 * (rule, file, line) keys — what is stored — equals DefectDojo's count, which the test checks.
 */
const OUR_COUNT: Record<string, number> = {
  'gitleaks/gitleaks8_many.json': 4,
  'gitleaks/version_7.5.0.json': 8,
};

describe('gitleaks importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('gitleaks')) {
    const ours = OUR_COUNT[entry.file] ?? entry.expectedFindings;
    it(`${entry.file}: ${ours} findings (DefectDojo ${entry.expectedFindings})`, async () => {
      const { findings, warnings } = await parseFixture(gitleaksImporter, entry.file);
      expect(findings).toHaveLength(ours);
      const keys = new Set(
        findings.map((f) => `${f.vulnerability.ruleId}|${f.location.filePath}|${f.location.line}`),
      );
      expect(keys.size).toBe(entry.expectedFindings);
      expect(warnings).toEqual([]);
      for (const f of findings) expect(f.severity).toBe('High');
    });
  }

  it('reads a Gitleaks 7 leak (first finding as DefectDojo: .bashrc, no line)', async () => {
    const { findings } = await parseFixture(gitleaksImporter, 'gitleaks/data_many.json');
    const f = findings[0]!;
    expect(f.vulnerability.ruleId).toBe('Github');
    expect(f.vulnerability.title).toBe('Hard-coded secret: Github');
    expect(f.location).toEqual({ kind: 'File', filePath: '.bashrc' });
    expect(f.asset).toEqual({ kind: 'CodeRepository', repository: 'gitleaks workspace' });
    expect(f.evidence).toBe('GITH…');
  });

  it('reads a Gitleaks 7.5 leak with its line number', async () => {
    const { findings } = await parseFixture(gitleaksImporter, 'gitleaks/version_7.5.0.json');
    const f = findings[0]!;
    expect(f.vulnerability.ruleId).toBe('AWS Access Key');
    expect(f.location).toEqual({
      kind: 'File',
      filePath:
        'dojo/unittests/scans/gitlab_secret_detection_report/gitlab_secret_detection_report_1_vuln.json',
      line: 13,
    });
    expect(f.evidence).toBe('AKIA…');
  });

  it('reads a Gitleaks 8 leak (first finding as DefectDojo: /conf/aws.tf line 2)', async () => {
    const { findings } = await parseFixture(gitleaksImporter, 'gitleaks/gitleaks8_many.json');
    const f = findings[0]!;
    expect(f.vulnerability.ruleId).toBe('aws-access-token');
    expect(f.vulnerability.title).toBe('Hard-coded secret: AWS');
    expect(f.vulnerability.cweIds).toEqual(['CWE-798']);
    expect(f.location).toEqual({ kind: 'File', filePath: '/conf/aws.tf', line: 2 });
    expect(f.evidence).toBe('secr…');
    const generic = findings.find((x) => x.vulnerability.ruleId === 'generic-api-key')!;
    expect(generic.evidence).toBe('apikey = "dfjk…"');
    expect(generic.vulnerability.description).toContain('Commit: 69235ea9');
  });

  it('never stores a whole secret anywhere in a record', async () => {
    const secrets = [
      'c77e01c1e89682e4d4b94a059a7fd2b37ab326ed',
      '38c47f19e349153fa963bb3b3212fe8e-us11',
      'AKIAIOSFODNN7EXAMPLE',
      'secretAWSsecret',
      'dfjksdjfs3294dfjlsdaf213',
    ];
    for (const file of [
      'gitleaks/data_many.json',
      'gitleaks/version_7.5.0.json',
      'gitleaks/gitleaks8_many.json',
    ]) {
      const { records } = await parseFixture(gitleaksImporter, file);
      const all = JSON.stringify(records);
      for (const secret of secrets) expect(all, `${file} ${secret}`).not.toContain(secret);
    }
  });

  it('names the repository when the report does and keeps the fingerprint', async () => {
    const v7 = JSON.stringify([
      { rule: 'AWS', offender: 'AKIAXXXXXXXXXXXXXXXX', file: 'a.txt', lineNumber: 3, repo: 'shop-api' },
      {
        rule: 'AWS',
        offender: 'AKIAYYYYYYYYYYYYYYYY',
        file: 'b.txt',
        repoURL: 'https://ci:glpat-0123456789@git.example.com/shop',
      },
    ]);
    const { findings } = await parseText(gitleaksImporter, v7);
    expect(findings.map((f) => f.asset.repository)).toEqual(['shop-api', 'https://git.example.com/shop']);
    const v8 = JSON.stringify([
      {
        RuleID: 'jwt',
        Description: 'JWT',
        File: 'x.js',
        StartLine: 0,
        Match: 'eyJhbGciOi',
        Fingerprint: 'abc:x.js:jwt:1',
      },
    ]);
    const [f] = (await parseText(gitleaksImporter, v8)).findings;
    expect(f!.toolFindingId).toBe('abc:x.js:jwt:1');
    expect(f!.location).toEqual({ kind: 'File', filePath: 'x.js' });
    // No Secret field: the whole match is masked.
    expect(f!.evidence).toBe('eyJh…');
    const linked = JSON.stringify([
      {
        RuleID: 'aws-access-token',
        File: 'conf/aws.tf',
        StartLine: 2,
        Secret: 'AKIAZZZZZZZZZZZZZZZZ',
        Match: 'key = AKIAZZZZZZZZZZZZZZZZ',
        Link: 'https://github.com/acme/shop/blob/74d53286c550/conf/aws.tf#L2',
      },
    ]);
    const [l] = (await parseText(gitleaksImporter, linked)).findings;
    expect(l!.asset).toEqual({ kind: 'CodeRepository', repository: 'https://github.com/acme/shop' });
    expect(l!.evidence).toBe('key = AKIA…');
    expect(l!.vulnerability.references).toEqual([
      'https://github.com/acme/shop/blob/74d53286c550/conf/aws.tf#L2',
    ]);
  });

  it('masks to at most 4 characters', () => {
    expect(maskSecret('ab')).toBe('a…');
    expect(maskSecret('abcd')).toBe('ab…');
    expect(maskSecret('abcdefgh')).toBe('abcd…');
  });

  it('documents its severity', () => {
    expect(GITLEAKS_SEVERITY).toEqual({ leak: 'High' });
  });
});

describe('gitleaks importer: detection', () => {
  for (const entry of manifestEntries('gitleaks')) {
    // no_findings.json is the bare text `null`: nothing in it says Gitleaks.
    if (entry.file === 'gitleaks/no_findings.json') continue;
    it(`${entry.file} is claimed as Gitleaks (the registry test checks no other format claims it)`, () => {
      const text = head(entry.file);
      expect(gitleaksImporter.detect(text)).toBeGreaterThanOrEqual(0.8);
    });
  }

  it('does not claim other JSON reports', () => {
    for (const file of [
      'trivy/scheme_2_many_vulns.json',
      'sarif/appendix_k.sarif',
      'generic/generic_report1.json',
      'semgrep/one_finding.json',
      'npm_audit/one_vuln.json',
      'npm_audit_7_plus/one_vuln.json',
      'masscan/masscan_many_vuln.json',
      'gitleaks/no_findings.json',
    ])
      expect(gitleaksImporter.detect(head(file)), file).toBeLessThan(0.5);
  });
});

describe('gitleaks importer: bad input', () => {
  it('reads `null` and `[]` as empty reports', async () => {
    expect((await parseText(gitleaksImporter, 'null')).records).toEqual([]);
    expect((await parseText(gitleaksImporter, ' [ ] ')).records).toEqual([]);
  });

  it('fails on an empty file', async () => {
    expect((await failure(parseText(gitleaksImporter, '  \n'))).message).toMatch(/empty/);
  });

  it('fails on malformed JSON', async () => {
    await failure(parseText(gitleaksImporter, '[{"RuleID": "x", '));
  });

  it('fails on JSON of another shape', async () => {
    expect((await failure(parseText(gitleaksImporter, '{"results": []}'))).message).toMatch(/not a Gitleaks/);
    expect((await failure(parseText(gitleaksImporter, '[{"check_id": "x"}]'))).message).toMatch(
      /not a Gitleaks/,
    );
    expect((await failure(parseText(gitleaksImporter, '"text"'))).message).toMatch(/not a Gitleaks/);
  });
});
