import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { genericImporter } from '../../src/importers/generic/index.js';
import { NUCLEI_SEVERITY, nucleiImporter } from '../../src/importers/nuclei/index.js';
import { sarifImporter } from '../../src/importers/sarif/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { locateJsonError } from '../../src/parsing/json.js';
import { ReportError } from '../../src/parsing/report-error.js';
import { failure, fixturePath, head, manifestEntries, parseFixture, parseText } from './helpers.js';

const MANY = 'nuclei/many_findings.json';
const THIRD = 'nuclei/many_findings_third.json';
const ISSUE = 'nuclei/issue_14071.json';

/** Where Rampart deliberately gives another count than DefectDojo, and why. */
const RAMPART_COUNTS: Record<string, { count: number; why: string }> = {
  [MANY]: {
    count: 18,
    why:
      'DefectDojo merges results of the same template, type, matcher and host: tech-detect "bootstrap" and ' +
      '"font-awesome" each matched on 127.0.0.1:8080/WebGoat and 127.0.0.1:9090/WebWolf. Rampart keeps every ' +
      'result (two web applications) and leaves merging to the import service.',
  },
  [ISSUE]: {
    count: 26,
    why:
      'The DNS template nameserver-fingerprint ran against the root zone and names no host, URL or address: ' +
      'there is no asset to file it under, so it is skipped with a warning.',
  },
};

/** A Nuclei 3 JSON Lines result with these fields over a plain http one. */
function result(fields: Record<string, unknown> = {}, info: Record<string, unknown> = {}): string {
  return JSON.stringify({
    'template-id': 'test-template',
    info: { name: 'Test template', severity: 'medium', ...info },
    type: 'http',
    host: 'https://app.example.com',
    'matched-at': 'https://app.example.com/login',
    ip: '203.0.113.7',
    ...fields,
  });
}

function byTemplate(findings: FindingRecord[], id: string): FindingRecord[] {
  return findings.filter((f) => f.vulnerability.ruleId === id);
}

describe('Nuclei: every sample', () => {
  it.each(manifestEntries('nuclei'))('$file: DefectDojo finds $expectedFindings', async (entry) => {
    const { findings } = await parseFixture(nucleiImporter, entry.file);
    const expected = RAMPART_COUNTS[entry.file]?.count ?? entry.expectedFindings;
    expect(findings).toHaveLength(expected);
  });

  it.each(manifestEntries('nuclei'))('$file is detected as Nuclei', (entry) => {
    // The two empty samples get 0.8 too: an empty file is Nuclei's output when nothing matched.
    expect(nucleiImporter.detect(head(entry.file))).toBeGreaterThanOrEqual(0.8);
    expect(sarifImporter.detect(head(entry.file))).toBeLessThan(0.3);
    expect(genericImporter.detect(head(entry.file))).toBeLessThan(0.3);
  });

  it('warns about the result without a target', async () => {
    const { findings, warnings } = await parseFixture(nucleiImporter, ISSUE);
    expect(byTemplate(findings, 'nameserver-fingerprint')).toHaveLength(0);
    expect(warnings).toContainEqual(expect.stringContaining('nameserver-fingerprint'));
  });
});

describe('Nuclei: the first findings DefectDojo checks', () => {
  it('many_findings: a network template is a Host at a Port location', async () => {
    const [finding] = byTemplate((await parseFixture(nucleiImporter, MANY)).findings, 'openssh5.3-detect');
    expect(finding?.vulnerability.title).toBe('OpenSSH 5.3 Detection');
    expect(finding?.severity).toBe('Low');
    expect(finding?.asset).toEqual({
      kind: 'Host',
      hostname: 'nuclei-example.com',
      ipAddresses: ['178.21.15.56'],
    });
    expect(finding?.location).toEqual({ kind: 'Port', port: 22, protocol: 'tcp' });
    expect(finding?.vulnerability.references).toContain(
      'https://security-tracker.debian.org/tracker/CVE-2016-6210',
    );
  });

  it('many_findings: the Wappalyzer results DefectDojo merges stay apart', async () => {
    const findings = byTemplate((await parseFixture(nucleiImporter, MANY)).findings, 'tech-detect');
    const bootstrap = findings.filter((f) => f.location.parameter === 'bootstrap');
    expect(bootstrap.map((f) => f.asset.url)).toEqual([
      'http://127.0.0.1:8080',
      'http://127.0.0.1:9090',
      'https://nuclei-example.com',
    ]);
  });

  it('many_findings_third: the matcher (DefectDojo: component_name) and the endpoint', async () => {
    const [finding] = byTemplate(
      (await parseFixture(nucleiImporter, THIRD)).findings,
      'http-missing-security-headers',
    );
    expect(finding?.vulnerability.title).toBe('HTTP Missing Security Headers');
    expect(finding?.severity).toBe('Info');
    // DefectDojo's endpoint is example.com port 443: the https origin, default port implied.
    expect(finding?.asset).toEqual({ kind: 'WebApplication', url: 'https://example.com' });
    expect(finding?.location).toEqual({
      kind: 'Url',
      url: 'https://example.com',
      parameter: 'x-content-type-options',
    });
    expect(finding?.evidence).toContain('Matcher: x-content-type-options');
  });
});

describe('Nuclei: layouts', () => {
  it('reads the JSON array of -json-export like the JSON Lines', async () => {
    const lines = readFileSync(fixturePath(THIRD), 'utf8').trim().split('\n');
    const fromArray = await parseText(nucleiImporter, `[\n${lines.join(',\n')}\n]`);
    const fromLines = await parseFixture(nucleiImporter, THIRD);
    expect(fromArray.findings).toEqual(fromLines.findings);
    expect(nucleiImporter.detect(`[${lines[0]}`)).toBeGreaterThanOrEqual(0.8);
  });

  it('reads an empty file, blank lines and CRLF line ends', async () => {
    expect((await parseText(nucleiImporter, '')).findings).toEqual([]);
    expect((await parseText(nucleiImporter, ' \n\n')).findings).toEqual([]);
    expect((await parseText(nucleiImporter, '[]')).findings).toEqual([]);
    const text = `\uFEFF${result()}\r\n\r\n${result({ 'matched-at': 'https://app.example.com/admin' })}\r\n`;
    expect((await parseText(nucleiImporter, text)).findings).toHaveLength(2);
  });
});

describe('Nuclei: targets', () => {
  it('files http results under the web application, at the matched URL', async () => {
    const [finding] = (await parseText(nucleiImporter, result())).findings;
    expect(finding?.asset).toEqual({ kind: 'WebApplication', url: 'https://app.example.com' });
    expect(finding?.location).toEqual({ kind: 'Url', url: 'https://app.example.com/login' });
  });

  it('reads network, ssl and dns targets as hosts', async () => {
    const text = [
      result({ type: 'tcp', 'matched-at': '10.0.0.5:6379', host: '10.0.0.5', ip: '10.0.0.5' }),
      result({ type: 'ssl', 'matched-at': 'app.example.com:8443', host: 'app.example.com' }),
      result({ type: 'dns', 'matched-at': 'example.com', host: 'example.com', ip: undefined }),
    ].join('\n');
    const { findings } = await parseText(nucleiImporter, text);
    expect(findings.map((f) => [f.asset, f.location])).toEqual([
      [
        { kind: 'Host', ipAddresses: ['10.0.0.5'] },
        { kind: 'Port', port: 6379, protocol: 'tcp' },
      ],
      [
        { kind: 'Host', hostname: 'app.example.com', ipAddresses: ['203.0.113.7'] },
        { kind: 'Port', port: 8443, protocol: 'tcp' },
      ],
      [{ kind: 'Host', hostname: 'example.com' }, { kind: 'None' }],
    ]);
  });

  it('repairs the "/http://…" url Nuclei 3 writes for javascript templates', async () => {
    const [finding] = byTemplate(
      (await parseFixture(nucleiImporter, ISSUE)).findings,
      'cookies-without-httponly',
    );
    expect(finding?.asset).toEqual({ kind: 'WebApplication', url: 'http://dvwa_dvwa_1' });
    expect(finding?.location).toEqual({ kind: 'Url', url: 'http://dvwa_dvwa_1/' });
  });
});

describe('Nuclei: vulnerability', () => {
  it('takes CWE and CVSS from the classification', async () => {
    const [finding] = byTemplate((await parseFixture(nucleiImporter, ISSUE)).findings, 'git-config');
    expect(finding?.severity).toBe('Medium');
    expect(finding?.vulnerability).toMatchObject({
      cweIds: ['CWE-200'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
      cvss3Score: 5.3,
    });
  });

  it('upper-cases and deduplicates CVE ids, keeps remediation and impact', async () => {
    const text = result(
      { 'template-id': 'CVE-2021-44228' },
      {
        severity: 'critical',
        remediation: 'Upgrade Log4j.',
        impact: 'Remote code execution.',
        classification: { 'cve-id': ['cve-2021-44228'], 'cwe-id': ['cwe-502', 'cwe-917'] },
      },
    );
    const [finding] = (await parseText(nucleiImporter, text)).findings;
    expect(finding?.vulnerability).toMatchObject({
      ruleId: 'CVE-2021-44228',
      cveIds: ['CVE-2021-44228'],
      cweIds: ['CWE-502', 'CWE-917'],
      solution: 'Upgrade Log4j.',
    });
    expect(finding?.vulnerability.description).toContain('Impact: Remote code execution.');
  });
});

describe('Nuclei: severity', () => {
  it('maps every Nuclei severity, case-insensitively', async () => {
    expect(NUCLEI_SEVERITY).toEqual({
      critical: 'Critical',
      high: 'High',
      medium: 'Medium',
      low: 'Low',
      info: 'Info',
      unknown: 'Low',
    });
    const levels = ['CRITICAL', 'high', 'Medium', 'low', 'info', 'unknown'];
    const text = levels.map((severity) => result({}, { severity })).join('\n');
    const { findings, warnings } = await parseText(nucleiImporter, text);
    expect(findings.map((f) => f.severity)).toEqual(['Critical', 'High', 'Medium', 'Low', 'Info', 'Low']);
    expect(warnings).toEqual([]);
  });

  it('reads a severity Nuclei does not define as Low, with a warning', async () => {
    const { findings, warnings } = await parseText(nucleiImporter, result({}, { severity: 'severe' }));
    expect(findings[0]?.severity).toBe('Low');
    expect(warnings).toContainEqual(expect.stringContaining('"severe"'));
  });
});

describe('Nuclei: evidence', () => {
  it('keeps the matcher, extracted results and request and response excerpts', async () => {
    const response = `HTTP/1.1 200 OK\r\n\r\n${'b'.repeat(20_000)}`;
    const text = result({
      'matcher-name': 'version',
      'extracted-results': ['nginx/1.14.2'],
      request: 'GET /login HTTP/1.1\r\nHost: app.example.com\r\n\r\n',
      response,
    });
    const [finding] = (await parseText(nucleiImporter, text)).findings;
    expect(finding?.evidence).toContain('Matcher: version');
    expect(finding?.evidence).toContain('Extracted: nginx/1.14.2');
    expect(finding?.evidence).toContain('Request:\nGET /login HTTP/1.1');
    expect(finding?.evidence).toContain('Response:\nHTTP/1.1 200 OK');
    expect(finding?.evidence).toContain('… [truncated]');
    expect(finding?.evidence?.length ?? 0).toBeLessThan(8 * 1024 + 1024);
  });

  it('cuts the whole evidence to the import limit', async () => {
    const [finding] = (
      await parseText(nucleiImporter, result({ 'extracted-results': ['x'.repeat(100_000)] }))
    ).findings;
    expect(finding?.evidence).toHaveLength(64 * 1024);
    expect(finding?.evidence?.endsWith('… [truncated]')).toBe(true);
  });
});

describe('Nuclei: unreadable reports', () => {
  it('fails on a line that is not JSON, with its line number', async () => {
    const text = `${result()}\n{"template-id": oops}\n${result()}\n`;
    const error = await parseText(nucleiImporter, text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportError);
    expect((error as ReportError).line).toBe(2);
    expect((error as ReportError).message).toMatch(/line 2/);
  });

  it('fails on JSON that is not a Nuclei result, naming where', async () => {
    await expect(parseText(nucleiImporter, `${result()}\n{"foo": 1}\n`)).rejects.toThrow(
      /line 2.*template-id/,
    );
    await expect(parseText(nucleiImporter, '[{"foo": 1}]')).rejects.toThrow(/item 1/);
    await expect(parseText(nucleiImporter, '{"version": "2.1.0", "runs": []}')).rejects.toThrow(
      /Not a Nuclei result/,
    );
  });

  it('fails on malformed JSON and on text that is not JSON', async () => {
    const text = '[{"template-id": "x", ';
    const error = await failure(parseText(nucleiImporter, text));
    expect(error.message).toMatch(/^Not valid JSON: .*expected an object key/);
    // The import service finds the place by reading the file again (as JSON lines, for Nuclei).
    expect(await locateJsonError(() => Readable.from([text]), true)).toMatchObject({ line: 1, column: 23 });
    await expect(parseText(nucleiImporter, 'Title,Severity\nx,High\n')).rejects.toThrow(/Not Nuclei output/);
  });

  it('does not take a Trivy or SARIF report for Nuclei', () => {
    const trivy =
      '{"SchemaVersion": 2, "ArtifactName": "alpine:3.18", "ArtifactType": "container_image", "Results": []}';
    expect(nucleiImporter.detect(trivy)).toBeLessThan(0.3);
    expect(nucleiImporter.detect(head('sarif/appendix_k.sarif'))).toBeLessThan(0.3);
    expect(nucleiImporter.detect(head('generic/generic_report1.json'))).toBeLessThan(0.3);
  });
});
