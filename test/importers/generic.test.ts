import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GENERIC_SEVERITY, genericImporter } from '../../src/importers/generic/index.js';
import { nucleiImporter } from '../../src/importers/nuclei/index.js';
import { sarifImporter } from '../../src/importers/sarif/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { locateJsonError } from '../../src/parsing/json.js';
import { ReportError } from '../../src/parsing/report-error.js';
import { failure, head, manifestEntries, parseFixture, parseText } from './helpers.js';

/** A JSON report of these findings, each over a minimal valid one. */
function report(...findings: Record<string, unknown>[]): string {
  return JSON.stringify({
    findings: findings.map((f) => ({ title: 'A finding', severity: 'High', description: 'd', ...f })),
  });
}

function byTitle(findings: FindingRecord[], title: string): FindingRecord[] {
  return findings.filter((f) => f.vulnerability.title === title);
}

describe('generic: every sample', () => {
  // No sample repeats a severity, title and description in its CSV rows, so DefectDojo's merging
  // of such rows (which Rampart leaves to the import service) changes no count.
  it.each(manifestEntries('generic'))('$file gives $expectedFindings findings', async (entry) => {
    const { findings } = await parseFixture(genericImporter, entry.file);
    expect(findings).toHaveLength(entry.expectedFindings);
  });

  it.each(manifestEntries('generic'))('$file is detected as generic, not as SARIF or Nuclei', (entry) => {
    expect(genericImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8);
    expect(sarifImporter.detect(head(entry.file))).toBeLessThan(0.3);
    expect(nucleiImporter.detect(head(entry.file))).toBeLessThan(0.3);
  });
});

describe('generic: the first findings DefectDojo checks', () => {
  it('generic_csv_with_epss: read (EPSS is not a finding field: Rampart takes it from its intel feeds)', async () => {
    const { findings } = await parseFixture(genericImporter, 'generic/generic_csv_with_epss.csv');
    // The " Url" column name has a leading space: names are matched loosely.
    expect(findings[0]?.asset).toEqual({ kind: 'WebApplication', url: 'https://192.168.1.1' });
    expect(findings[0]?.severity).toBe('Low');
  });

  it('generic_cve_and_vulnerability_ids: the CVE and the other ids', async () => {
    const [finding] = (await parseFixture(genericImporter, 'generic/generic_cve_and_vulnerability_ids.json'))
      .findings;
    expect(finding?.vulnerability.cveIds).toEqual(['CVE-2020-36234']);
    expect(finding?.vulnerability.aliases).toEqual(['GHSA-5mrr-rgp6-x4gr', 'OSV-2021-1234']);
  });

  it('generic_report1: the fields of "test title"', async () => {
    const [finding] = byTitle(
      (await parseFixture(genericImporter, 'generic/generic_report1.json')).findings,
      'test title',
    );
    expect(finding?.vulnerability).toMatchObject({
      ruleId: 'TEST1',
      cveIds: ['CVE-2020-36234'],
      cweIds: ['CWE-261'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:R/S:C/C:L/I:L/A:N',
    });
    expect(finding?.vulnerability.description).toContain("some UTF-8 chars à qu'il est beau");
    expect(finding?.toolFindingId).toBe('3287f2d0-554f-491b-8516-3c349ead8ee5');
    // active: true, duplicate: false, verified: true — an open finding.
    expect(finding?.state).toBeUndefined();
  });

  it('generic_report3: a mitigated row is Fixed, with the date', async () => {
    const { findings } = await parseFixture(genericImporter, 'generic/generic_report3.csv');
    const [iso] = byTitle(findings, 'Mitigated_ISO_Finding');
    expect(iso?.state).toEqual({ state: 'Fixed', reason: 'Mitigated on 2024-02-24, as the report says.' });
    const [dayFirst] = byTitle(findings, 'Mitigated_Finding');
    expect(dayFirst?.state?.reason).toContain('2021-03-28');
  });

  it('generic_report4: the Vulnerability Id and a scheme-less Url', async () => {
    const { findings, warnings } = await parseFixture(genericImporter, 'generic/generic_report4.csv');
    const title1 = byTitle(findings, 'Title1');
    expect(title1).toHaveLength(1);
    expect(title1[0]?.vulnerability.cveIds).toEqual(['CVE-2015-9235']);
    expect(title1[0]?.asset).toEqual({ kind: 'Host', hostname: 'www.example.com' });
    // Its Severity cells are empty: Info, said once.
    expect(findings.map((f) => f.severity)).toEqual(['Info', 'Info', 'Info', 'Info']);
    expect(warnings).toContainEqual('4 findings give no severity; they were filed as Info.');
    expect(byTitle(findings, 'Title2')[0]?.vulnerability.aliases).toEqual(['GHSA-5mrr-rgp6-x4gr']);
    expect(byTitle(findings, 'Title3')[0]).toMatchObject({
      asset: { kind: 'Host', ipAddresses: ['127.0.0.1'] },
      location: { kind: 'Port', port: 80, protocol: 'tcp' },
    });
    expect(warnings).toContainEqual(expect.stringContaining('foo.bar/path'));
  });

  it('generic_report_fix_version: the fixed version', async () => {
    const { findings } = await parseFixture(genericImporter, 'generic/generic_report_fix_version.csv');
    expect(byTitle(findings, 'Test finding with fix_version')[0]?.fixedIn).toBe('2.1.3');
    expect(byTitle(findings, 'Test finding without fix_version')[0]?.fixedIn).toBeUndefined();
  });

  it('generic_report_multi_cwe_fabricated: every CWE, the primary first', async () => {
    const { findings } = await parseFixture(
      genericImporter,
      'generic/generic_report_multi_cwe_fabricated.json',
    );
    expect(byTitle(findings, 'Multiple CWEs finding')[0]?.vulnerability.cweIds).toEqual([
      'CWE-89',
      'CWE-79',
      'CWE-22',
    ]);
    expect(byTitle(findings, 'Primary CWE plus extra CWEs')[0]?.vulnerability.cweIds).toEqual([
      'CWE-79',
      'CWE-89',
      'CWE-200',
    ]);
  });
});

describe('generic: assets and locations', () => {
  it('reads endpoint objects: web applications and hosts, one finding per endpoint', async () => {
    const text = report({
      unique_id_from_tool: 'u1',
      param: 'q',
      endpoints: [
        { protocol: 'https', host: 'shop.example.com', port: 8443, path: 'search', query: 'q=1' },
        { protocol: 'udp', host: '10.0.0.9', port: 161 },
        'ssh://10.0.0.9:22',
        { host: 'db.internal' },
      ],
    });
    const { findings } = await parseText(genericImporter, text);
    expect(findings.map((f) => [f.asset, f.location, f.toolFindingId])).toEqual([
      [
        { kind: 'WebApplication', url: 'https://shop.example.com:8443' },
        { kind: 'Url', url: 'https://shop.example.com:8443/search?q=1', parameter: 'q' },
        'u1#1',
      ],
      [{ kind: 'Host', ipAddresses: ['10.0.0.9'] }, { kind: 'Port', port: 161, protocol: 'udp' }, 'u1#2'],
      [{ kind: 'Host', ipAddresses: ['10.0.0.9'] }, { kind: 'Port', port: 22, protocol: 'tcp' }, 'u1#3'],
      [{ kind: 'Host', hostname: 'db.internal' }, { kind: 'None' }, 'u1#4'],
    ]);
  });

  it('files code findings under the service or the workspace, at the file or the package', async () => {
    const text = report(
      { file_path: 'src/app.py', line: 42, service: 'billing-api' },
      { component_name: 'lodash', component_version: '4.17.20', file_path: 'package-lock.json' },
      { endpoints: [{ host: 'db.internal' }], file_path: 'db/init.sql', line: '7' },
    );
    const { findings } = await parseText(genericImporter, text);
    expect(findings.map((f) => [f.asset, f.location])).toEqual([
      [
        { kind: 'CodeRepository', repository: 'billing-api' },
        { kind: 'File', filePath: 'src/app.py', line: 42 },
      ],
      [
        { kind: 'CodeRepository', repository: 'Generic Findings Import workspace' },
        { kind: 'Package', packageName: 'lodash', packageVersion: '4.17.20' },
      ],
      [
        { kind: 'Host', hostname: 'db.internal' },
        { kind: 'File', filePath: 'db/init.sql', line: 7 },
      ],
    ]);
  });
});

describe('generic: states', () => {
  it('maps the report decisions, the most deliberate first', async () => {
    const text = report(
      { false_p: true, is_mitigated: true },
      { risk_accepted: true },
      { out_of_scope: true },
      { is_mitigated: true, mitigated: '2024-05-01T10:00:00Z' },
      { active: false },
      { active: true, verified: false, duplicate: true },
      { false_p: 'True' },
    );
    const { findings } = await parseText(genericImporter, text);
    expect(findings.map((f) => f.state?.state)).toEqual([
      'FalsePositive',
      'RiskAccepted',
      'RiskAccepted',
      'Fixed',
      'Fixed',
      undefined,
      'FalsePositive',
    ]);
    expect(findings[3]?.state?.reason).toContain('2024-05-01');
  });

  it('reads the CSV columns FalsePositive, IsMitigated and Active', async () => {
    const csv =
      'Title,Severity,FalsePositive,IsMitigated,Active\nA,Low,TRUE,FALSE,TRUE\nB,Low,FALSE,TRUE,TRUE\nC,Low,FALSE,FALSE,FALSE\nD,Low,,,\n';
    const { findings } = await parseText(genericImporter, csv);
    expect(findings.map((f) => f.state?.state)).toEqual(['FalsePositive', 'Fixed', 'Fixed', undefined]);
  });
});

describe('generic: severity', () => {
  it('maps the scale case-insensitively', async () => {
    expect(GENERIC_SEVERITY).toMatchObject({
      critical: 'Critical',
      high: 'High',
      medium: 'Medium',
      low: 'Low',
      info: 'Info',
    });
    const levels = ['CRITICAL', 'high', 'Medium', 'low', 'Info', 'Informational', 'Unknown'];
    const { findings } = await parseText(
      genericImporter,
      report(...levels.map((severity) => ({ severity }))),
    );
    expect(findings.map((f) => f.severity)).toEqual([
      'Critical',
      'High',
      'Medium',
      'Low',
      'Info',
      'Info',
      'Info',
    ]);
  });

  it('fails on a severity outside the scale, naming the finding or the line', async () => {
    await expect(
      parseText(genericImporter, report({}, { title: 'Bad one', severity: 'Severe' })),
    ).rejects.toThrow(/findings\[1\] \("Bad one"\) has severity "Severe"/);
    const error = await parseText(genericImporter, 'Title,Severity\nok,Low\nbad,5\n').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReportError);
    expect((error as ReportError).line).toBe(3);
    expect((error as ReportError).message).toContain('severity "5"');
  });
});

describe('generic: ids and limits', () => {
  it('upper-cases and deduplicates CVE ids; other ids are aliases', async () => {
    const text = report({
      cve: 'cve-2021-1234',
      vulnerability_ids: ['CVE-2021-1234', { vulnerability_id: 'GHSA-aaaa-bbbb-cccc' }],
      cwe: 'CWE-079',
      cvssv3: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cvssv3_score: 9.8,
    });
    const [finding] = (await parseText(genericImporter, text)).findings;
    expect(finding?.vulnerability).toMatchObject({
      ruleId: 'A finding',
      cveIds: ['CVE-2021-1234'],
      aliases: ['GHSA-aaaa-bbbb-cccc'],
      cweIds: ['CWE-79'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cvss3Score: 9.8,
    });
  });

  it('cuts long text fields and evidence, with a marker', async () => {
    const text = report({ description: 'd'.repeat(40_000), steps_to_reproduce: 's'.repeat(70_000) });
    const [finding] = (await parseText(genericImporter, text)).findings;
    expect(finding?.vulnerability.description).toHaveLength(32 * 1024);
    expect(finding?.vulnerability.description?.endsWith('… [truncated]')).toBe(true);
    expect(finding?.evidence).toHaveLength(64 * 1024);
    expect(finding?.evidence?.endsWith('… [truncated]')).toBe(true);
  });
});

describe('generic: unreadable reports', () => {
  it('fails on malformed JSON, saying what is wrong and where', async () => {
    const text = '{"findings": [{"title": "x",';
    const error = await failure(parseText(genericImporter, text));
    expect(error.message).toMatch(/^Not valid JSON: .*expected an object key/);
    // The import service finds the place by reading the file again, and adds it to the message.
    expect(await locateJsonError(() => Readable.from([text]))).toMatchObject({ line: 1, column: 29 });
  });

  it('fails clearly on JSON of another shape', async () => {
    await expect(parseText(genericImporter, '{"SchemaVersion": 2, "Results": []}')).rejects.toThrow(
      /no "findings" list/,
    );
    await expect(parseText(genericImporter, '{"findings": {"a": {"title": "x"}}}')).rejects.toThrow(
      /no "findings" list/,
    );
    await expect(parseText(genericImporter, '[{"title": "x"}]')).rejects.toThrow(/JSON list/);
    await expect(parseText(genericImporter, '{"findings": [42]}')).rejects.toThrow(
      /findings\[0\] is not an object/,
    );
    await expect(parseText(genericImporter, report({ title: '' }))).rejects.toThrow(
      /findings\[0\] has no title/,
    );
  });

  it('reads an empty findings list and a header-only CSV as no findings', async () => {
    expect((await parseText(genericImporter, '{"findings": []}')).findings).toEqual([]);
    expect((await parseText(genericImporter, 'Title,Severity,Description\n')).findings).toEqual([]);
  });

  it('fails on a CSV without the required columns, naming them', async () => {
    await expect(parseText(genericImporter, 'Name,Risk,Description\nx,High,d\n')).rejects.toThrow(
      /lacks the required columns Title and Severity/,
    );
    const error = await parseText(genericImporter, 'Title,Description\nx,d\n').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportError);
    expect((error as ReportError).message).toMatch(
      /required column Severity \(its columns: title, description\)/,
    );
  });

  it('fails on an empty file', async () => {
    await expect(parseText(genericImporter, '')).rejects.toThrow(/empty/);
    await expect(parseText(genericImporter, '\uFEFF  \n')).rejects.toThrow(/empty/);
  });

  it('does not take a Trivy report or SARIF log for the generic format', () => {
    const trivy =
      '{"SchemaVersion": 2, "ArtifactName": "alpine:3.18", "ArtifactType": "container_image", "Results": []}';
    expect(genericImporter.detect(trivy)).toBeLessThan(0.3);
    const sarifWithFindings =
      '{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "properties": {"findings": [{"title": "t", "severity": "High"}]}}]}';
    expect(genericImporter.detect(sarifWithFindings)).toBeLessThan(0.3);
    expect(genericImporter.detect('"QID","Title","Severity"\n')).toBeLessThan(0.8);
  });
});
