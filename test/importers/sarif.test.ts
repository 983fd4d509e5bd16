import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { genericImporter } from '../../src/importers/generic/index.js';
import { SARIF_LEVEL_SEVERITY, sarifImporter } from '../../src/importers/sarif/index.js';
import { Spool } from '../../src/importers/sarif/spool.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { locateJsonError } from '../../src/parsing/json.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const K = 'sarif/appendix_k.sarif';
const FLAWFINDER = 'sarif/flawfinder.sarif';
const NJSSCAN = 'sarif/njsscan.sarif';
const BASH = 'sarif/bash-report.sarif';
const SEMGREP = 'sarif/issue_10191.json';
const CODEQL = 'sarif/codeQL-output.sarif';

/** A SARIF log of one run with these rules and results, in the usual order (tool first). */
function log(rules: unknown[], results: unknown[], run: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'TestTool', rules } }, ...run, results }],
  });
}

function byRule(findings: FindingRecord[], ruleId: string): FindingRecord[] {
  return findings.filter((f) => f.vulnerability.ruleId === ruleId);
}

describe('SARIF: every sample', () => {
  // Every sample gives DefectDojo's count: one finding per location of each result of kind
  // "fail" (njsscan's hard-coded password result names two lines: two findings), suppressed
  // results included (appendix_k's one result), two empty runs give none (appendix_k1_double).
  it.each(manifestEntries('sarif'))('$file gives $expectedFindings findings', async (entry) => {
    const { findings } = await parseFixture(sarifImporter, entry.file);
    expect(findings).toHaveLength(entry.expectedFindings);
    for (const finding of findings) {
      expect(finding.vulnerability.ruleId).not.toBe('');
      expect(finding.vulnerability.title).not.toBe('');
      expect(finding.asset.kind).toBe('CodeRepository');
    }
  });

  it.each(manifestEntries('sarif'))('$file is detected as SARIF and not as generic', (entry) => {
    expect(sarifImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8);
    expect(genericImporter.detect(head(entry.file))).toBeLessThan(0.3);
  });
});

describe('SARIF: the first findings DefectDojo checks', () => {
  it('appendix_k: severity, file and line (the run date is not a finding field in Rampart)', async () => {
    const [finding] = byRule((await parseFixture(sarifImporter, K)).findings, 'C2001');
    expect(finding?.severity).toBe('High');
    expect(finding?.location).toEqual({ kind: 'File', filePath: 'collections/list.h', line: 15 });
  });

  it('appendix_k3: a result without a rule is titled by its message', async () => {
    const { findings } = await parseFixture(sarifImporter, 'sarif/appendix_k3.sarif');
    expect(findings.map((f) => f.vulnerability.title)).toContain(
      'The insecure method "Crypto.Sha1.Encrypt" should not be used.',
    );
    expect(findings[0]?.location).toEqual({ kind: 'None' });
    expect(findings[0]?.evidence).toContain('In: Example.Worker.DoWork');
  });

  it('bash-report: the file URI as written, no CVE', async () => {
    const { findings } = await parseFixture(sarifImporter, BASH);
    const finding = findings.find((f) => f.location.filePath === 'file:///home/damien/dd/docker/setEnv.sh');
    expect(finding).toBeDefined();
    expect(finding?.vulnerability.cveIds).toBeUndefined();
  });

  it('dependency_check: a location without a region has a file and no line', async () => {
    const { findings } = await parseFixture(sarifImporter, 'sarif/dependency_check.sarif');
    const path =
      'file:////src/.venv/lib/python3.9/site-packages/tastypie_swagger/static/tastypie_swagger/js/lib/handlebars-1.0.0.js';
    expect(findings.map((f) => f.location)).toContainEqual({ kind: 'File', filePath: path });
  });

  it('flawfinder: rule FF1048', async () => {
    const [finding] = byRule((await parseFixture(sarifImporter, FLAWFINDER)).findings, 'FF1048');
    // DefectDojo titles a finding by the result's message; Rampart's title belongs to the rule
    // (its short description), and the message is the evidence.
    expect(finding?.vulnerability.title).toBe(
      'This function is not sufficiently random for security-related functions such as key and nonce creation (CWE-327).',
    );
    expect(finding?.evidence).toMatch(
      /^random\/setstate:This function is not sufficiently random for security-related functions such as key and nonce creation \(CWE-327\)\./,
    );
    expect(finding?.severity).toBe('High');
    expect(finding?.vulnerability.cweIds).toEqual(['CWE-327']);
    expect(finding?.location).toEqual({ kind: 'File', filePath: 'src/tree/param.cc', line: 29 });
    expect(finding?.toolFindingId).toBe('e6c1ad2b1d96ffc4035ed8df070600566ad240b8ded025dac30620f3fd4aa9fd');
  });

  it('njsscan: the CWE from the result properties, the file URI, no CVE', async () => {
    const [finding] = byRule(
      (await parseFixture(sarifImporter, NJSSCAN)).findings,
      'node_insecure_random_generator',
    );
    expect(finding?.vulnerability.cweIds).toEqual(['CWE-327']);
    expect(finding?.location.filePath).toBe('file:///src/index.js');
    expect(finding?.vulnerability.cveIds).toBeUndefined();
  });

  it('taint-python-report: the file URI as written, no CVE (rule tags are not kept)', async () => {
    const { findings } = await parseFixture(sarifImporter, 'sarif/taint-python-report.sarif');
    const finding = findings.find(
      (f) => f.location.filePath === 'file:///home/damien/dd/dojo/tools/veracode/parser.py',
    );
    expect(finding?.vulnerability.cveIds).toBeUndefined();
  });
});

describe('SARIF: results', () => {
  it('splits a result with two locations into two findings with their own ids', async () => {
    const findings = byRule((await parseFixture(sarifImporter, NJSSCAN)).findings, 'node_password');
    expect(findings.map((f) => f.location.line)).toEqual([235, 239]);
    expect(findings.map((f) => f.severity)).toEqual(['High', 'High']);
    expect(findings[0]?.vulnerability.cweIds).toEqual(['CWE-798']);
  });

  it('skips results whose kind is not "fail", with a warning', async () => {
    const { findings, warnings } = await parseFixture(sarifImporter, FLAWFINDER);
    // 54 results, one of kind "pass" (FF1013, with no location).
    expect(findings).toHaveLength(53);
    expect(findings.every((f) => f.location.kind === 'File')).toBe(true);
    expect(warnings).toContainEqual(expect.stringContaining('pass: 1'));
  });

  it('fills message placeholders from the rule and keeps snippet and code flow as evidence', async () => {
    const [finding] = (await parseFixture(sarifImporter, K)).findings;
    expect(finding?.evidence).toContain(
      'Variable "ptr" was used without being initialized. It was declared here.',
    );
    expect(finding?.evidence).toContain('Snippet:\nadd_core(ptr, offset, val);');
    expect(finding?.evidence).toContain('Code flow:\n1. collections/list.h:15 — Variable "ptr" declared.');
    expect(finding?.fixedIn).toBe('Initialize the variable to null');
  });

  it('reads CWE ids from CodeQL tags and rules found by index only', async () => {
    const { findings } = await parseFixture(sarifImporter, CODEQL);
    const [finding] = byRule(findings, 'py/empty-except');
    expect(finding?.vulnerability.title).toBe('Empty except');
    expect(finding?.vulnerability.cweIds).toEqual(['CWE-390']);
    const text = log(
      [
        { id: 'A', shortDescription: { text: 'Rule A' } },
        { id: 'B', shortDescription: { text: 'Rule B' } },
      ],
      [{ ruleIndex: 1, message: { text: 'm' } }],
    );
    const [byIndex] = (await parseText(sarifImporter, text)).findings;
    expect(byIndex?.vulnerability).toMatchObject({ ruleId: 'B', title: 'Rule B' });
  });

  it('finds rules in tool extensions (CodeQL query packs)', async () => {
    const text = JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          tool: {
            driver: { name: 'CodeQL' },
            extensions: [
              {
                name: 'pack',
                rules: [
                  {
                    id: 'js/xss',
                    properties: { 'security-severity': '6.1', tags: ['external/cwe/cwe-079'] },
                  },
                ],
              },
            ],
          },
          results: [
            {
              ruleId: 'js/xss',
              rule: { id: 'js/xss', index: 0, toolComponent: { index: 0 } },
              message: { text: 'XSS' },
            },
          ],
        },
      ],
    });
    const [finding] = (await parseText(sarifImporter, text)).findings;
    expect(finding?.severity).toBe('Medium');
    expect(finding?.vulnerability.cweIds).toEqual(['CWE-79']);
  });

  it('takes CVE ids from the rule id, upper case', async () => {
    const text = log([], [{ ruleId: 'cve-2021-44228', level: 'error', message: { text: 'log4shell' } }]);
    const [finding] = (await parseText(sarifImporter, text)).findings;
    expect(finding?.vulnerability.cveIds).toEqual(['CVE-2021-44228']);
  });
});

describe('SARIF: assets', () => {
  it('is the versionControlProvenance repository', async () => {
    const [finding] = (await parseFixture(sarifImporter, K)).findings;
    expect(finding?.asset).toEqual({
      kind: 'CodeRepository',
      repository: 'https://github.com/example-corp/browser',
    });
  });

  it('waits for a repository written after the results', async () => {
    // bash-report's run lists versionControlProvenance after its results.
    const { findings } = await parseFixture(sarifImporter, BASH);
    const repositories = new Set(findings.map((f) => f.asset.repository));
    expect([...repositories]).toEqual(['https://github.com/damiencarol/django-DefectDojo']);
  });

  it('falls back to the source root, then to "<tool> workspace"', async () => {
    const run = { originalUriBaseIds: { SRCROOT: { uri: 'file:///home/runner/work/app/app/' } } };
    const [rooted] = (await parseText(sarifImporter, log([], [{ ruleId: 'X', message: { text: 'm' } }], run)))
      .findings;
    expect(rooted?.asset).toEqual({
      kind: 'CodeRepository',
      repository: 'file:///home/runner/work/app/app/',
    });
    const [bare] = (await parseFixture(sarifImporter, CODEQL)).findings;
    expect(bare?.asset).toEqual({ kind: 'CodeRepository', repository: 'CodeQL workspace' });
  });
});

describe('SARIF: severity', () => {
  it('maps levels when there is no security-severity', async () => {
    expect(SARIF_LEVEL_SEVERITY).toEqual({ error: 'High', warning: 'Medium', note: 'Info', none: 'Info' });
    const results = ['error', 'warning', 'note', 'none', undefined].map((level, i) => ({
      ruleId: `R${i}`,
      ...(level ? { level } : {}),
      message: { text: 'm' },
    }));
    const { findings } = await parseText(sarifImporter, log([], results));
    expect(findings.map((f) => f.severity)).toEqual(['High', 'Medium', 'Info', 'Info', 'Medium']);
  });

  it('uses the rule default level, then security-severity bands over any level', async () => {
    const scores = ['9.8', '7.0', '5.3', '0.1', '0.0'];
    const rules = [
      { id: 'D', defaultConfiguration: { level: 'error' } },
      ...scores.map((score, i) => ({ id: `S${i}`, properties: { 'security-severity': score } })),
      { id: 'W', properties: { 'security-severity': 'MEDIUM' } },
    ];
    const results = rules.map((rule) => ({ ruleId: rule.id, level: 'note', message: { text: 'm' } }));
    results[0] = { ruleId: 'D', message: { text: 'm' } } as (typeof results)[number];
    const { findings } = await parseText(sarifImporter, log(rules, results));
    expect(findings.map((f) => f.severity)).toEqual([
      'High',
      'Critical',
      'High',
      'Medium',
      'Low',
      'Info',
      'Medium',
    ]);
  });

  it('applies rules that come after the results (Semgrep writes results first)', async () => {
    const { findings } = await parseFixture(sarifImporter, SEMGREP);
    // Semgrep results carry no level: without their rules every one would be Medium.
    const severities = new Set(findings.map((f) => f.severity));
    expect(severities).toEqual(new Set(['Critical', 'High', 'Medium']));
    const text = JSON.stringify({
      version: '2.1.0',
      runs: [
        {
          results: [{ ruleId: 'late', message: { text: 'm' } }],
          tool: {
            driver: {
              name: 'T',
              rules: [
                {
                  id: 'late',
                  defaultConfiguration: { level: 'error' },
                  shortDescription: { text: 'Late rule' },
                },
              ],
            },
          },
        },
      ],
    });
    const [late] = (await parseText(sarifImporter, text)).findings;
    expect(late).toMatchObject({ severity: 'High', vulnerability: { title: 'Late rule' } });
  });
});

describe('SARIF: states', () => {
  it('files an accepted suppression as a false positive with its justification', async () => {
    const [k] = (await parseFixture(sarifImporter, K)).findings;
    expect(k?.state?.state).toBe('FalsePositive');
    const results = [
      {
        ruleId: 'A',
        message: { text: 'm' },
        suppressions: [{ kind: 'inSource', status: 'accepted', justification: 'Test data only' }],
      },
      { ruleId: 'B', message: { text: 'm' }, suppressions: [{ kind: 'external', status: 'underReview' }] },
      { ruleId: 'C', message: { text: 'm' }, suppressions: [{ kind: 'external', status: 'rejected' }] },
      { ruleId: 'D', message: { text: 'm' }, baselineState: 'absent' },
    ];
    const { findings } = await parseText(sarifImporter, log([], results));
    expect(findings.map((f) => f.state)).toEqual([
      { state: 'FalsePositive', reason: 'Test data only' },
      undefined,
      undefined,
      { state: 'Fixed', reason: expect.stringContaining('absent') },
    ]);
  });
});

describe('SARIF: limits', () => {
  it('cuts evidence and text fields, with a marker', async () => {
    const rules = [
      { id: 'R', shortDescription: { text: 'Big' }, fullDescription: { text: 'd'.repeat(40_000) } },
    ];
    const results = [{ ruleId: 'R', message: { text: 'm'.repeat(70_000) } }];
    const { findings, warnings } = await parseText(sarifImporter, log(rules, results));
    const [finding] = findings;
    expect(finding?.evidence).toHaveLength(64 * 1024);
    expect(finding?.evidence?.endsWith('… [truncated]')).toBe(true);
    expect(finding?.vulnerability.description).toHaveLength(32 * 1024);
    expect(finding?.vulnerability.description?.endsWith('… [truncated]')).toBe(true);
    expect(warnings.length).toBeGreaterThan(0);
  });
});

describe('SARIF: unreadable reports', () => {
  it('fails on malformed JSON, saying what is wrong and where', async () => {
    const text = '{"version": "2.1.0", "runs": [ {';
    const error = await failure(parseText(sarifImporter, text));
    expect(error.message).toMatch(/^Not valid JSON: .*expected an object key/);
    // The import service finds the place by reading the file again, and adds it to the message.
    expect(await locateJsonError(() => Readable.from([text]))).toMatchObject({ line: 1, column: 33 });
  });

  it('fails clearly on JSON of another shape', async () => {
    await expect(parseText(sarifImporter, '{"SchemaVersion": 2, "Results": []}')).rejects.toThrow(
      /no "runs" array/,
    );
    await expect(parseText(sarifImporter, '[{"runs": []}]')).rejects.toThrow(/not a JSON object/);
    await expect(parseText(sarifImporter, '{"version": "2.1.0", "runs": {"a": {}}}')).rejects.toThrow(
      /no "runs" array/,
    );
  });

  it('fails on an empty file and on SARIF 1', async () => {
    await expect(parseText(sarifImporter, '')).rejects.toThrow(/empty/);
    await expect(parseText(sarifImporter, ' \n ')).rejects.toThrow(/empty/);
    await expect(parseText(sarifImporter, '{"version": "1.0.0", "runs": []}')).rejects.toThrow(
      /only SARIF 2\.1\.0/,
    );
  });

  it('reads an empty run list as no findings', async () => {
    expect((await parseText(sarifImporter, '{"version": "2.1.0", "runs": []}')).findings).toEqual([]);
  });

  it('does not take a Trivy report for SARIF', () => {
    const trivy =
      '{"SchemaVersion": 2, "ArtifactName": "alpine:3.18", "ArtifactType": "container_image", "Results": []}';
    expect(sarifImporter.detect(trivy)).toBeLessThan(0.3);
    expect(sarifImporter.detect('{"findings": [{"title": "t", "severity": "High"}]}')).toBeLessThan(0.3);
  });
});

describe('SARIF: spool', () => {
  it('keeps order when values go to a temporary file, and removes it after', async () => {
    const spool = new Spool(100);
    const values = Array.from({ length: 50 }, (_, i) => ({ i, text: 'x'.repeat(20) }));
    for (const value of values) await spool.push(value);
    const directory = spool.spillDirectory;
    expect(directory && existsSync(directory)).toBe(true);
    const out: unknown[] = [];
    for await (const value of spool.drain()) out.push(value);
    expect(out).toEqual(values);
    expect(existsSync(directory!)).toBe(false);
  });

  it('removes the temporary file when reading stops early', async () => {
    const spool = new Spool(10);
    for (let i = 0; i < 5; i++) await spool.push({ i });
    const directory = spool.spillDirectory!;
    for await (const value of spool.drain()) {
      expect(value).toEqual({ i: 0 });
      break;
    }
    expect(existsSync(directory)).toBe(false);
  });
});
