import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/importers/index.js';
import { failure, parseText } from './helpers.js';

/**
 * Reports of the right format but the wrong shape (a list that is a number, a record that is a
 * string) fail where they go wrong, naming the value and its line and column, instead of
 * importing as Completed with nothing. `at` is the text where the wrong value starts.
 */
interface Case {
  format: string;
  text: string;
  /** The value's name in the message. */
  name: string;
  at: string;
}

const CASES: Case[] = [
  {
    format: 'trivy',
    text: '{"SchemaVersion": 2, "ArtifactName": "x", "Results": 5}',
    name: '`Results` is a number, not a list of results',
    at: '5}',
  },
  {
    format: 'trivy',
    text: '{"SchemaVersion": 2,\n "Results": [\n  5, "a"]}',
    name: '`Results[0]` is a number, not a result object',
    at: '5, "a"',
  },
  {
    format: 'trivy',
    text: '{"SchemaVersion": 2, "Results": [{"Target": "t", "Vulnerabilities": {"a": 1}}]}',
    name: '`Results[0].Vulnerabilities` is an object, not a list of vulnerabilities',
    at: '{"a"',
  },
  {
    format: 'grype',
    text: '{"matches": {"a": 1}}',
    name: '`matches` is an object, not a list of matches',
    at: '{"a"',
  },
  {
    format: 'grype',
    text: '{"matches": [3]}',
    name: '`matches[0]` is a number, not a match object',
    at: '3]',
  },
  {
    format: 'sarif',
    text: '{"version": "2.1.0", "runs": ["x"]}',
    name: '`runs[0]` is a string, not a run object',
    at: '"x"',
  },
  {
    format: 'sarif',
    text: '{"version": "2.1.0", "runs": [{"results": 7}]}',
    name: '`runs[0].results` is a number, not a list of results',
    at: '7}',
  },
  {
    format: 'snyk',
    text: '{"packageManager": "npm", "vulnerabilities": 5}',
    name: '`vulnerabilities` is a number, not a list of issues',
    at: '5}',
  },
  {
    format: 'snyk',
    text: '[{"packageManager": "npm", "vulnerabilities": {"x": 1}}]',
    name: '`[0].vulnerabilities` is an object, not a list of issues',
    at: '{"x"',
  },
  {
    format: 'osv-scanner',
    text: '{"results": {"a": 1}}',
    name: '`results` is an object, not a list of results',
    at: '{"a"',
  },
  {
    format: 'osv-scanner',
    text: '{"results": [{"packages": 4}]}',
    name: '`results[0].packages` is a number, not a list of packages',
    at: '4}',
  },
  {
    format: 'nuclei',
    text: '[\n  5\n]',
    name: '`[0]` is a number, not a result object',
    at: '5',
  },
  {
    format: 'gitleaks',
    text: '[{"RuleID": "a"}, "b"]',
    name: '`[1]` is a string, not a leak object',
    at: '"b"',
  },
  {
    format: 'masscan',
    text: '[{"ip": "10.0.0.1", "ports": []}, 1]',
    name: '`[1]` is a number, not a host object',
    at: '1]',
  },
  {
    format: 'masscan',
    text: '{"ip": "10.0.0.1", "ports": [{"port": 80, "proto": "tcp"}]}\n2\n',
    name: 'the report is a number, not a host object',
    at: '2\n',
  },
  {
    format: 'semgrep',
    text: '{"results": {"a": 1}, "errors": []}',
    name: '`results` is an object, not a list of results',
    at: '{"a"',
  },
  {
    format: 'npm-audit',
    text: '{"auditReportVersion": 2, "vulnerabilities": [1]}',
    name: '`vulnerabilities` is a list, not an object of vulnerabilities by package name',
    at: '[1]',
  },
  {
    format: 'cyclonedx',
    text: '{"bomFormat": "CycloneDX", "specVersion": "1.5", "components": {"a": 1}}',
    name: '`components` is an object, not a list of components',
    at: '{"a"',
  },
  {
    format: 'cyclonedx',
    text: '{"bomFormat": "CycloneDX", "specVersion": "1.5", "vulnerabilities": [null]}',
    name: '`vulnerabilities[0]` is null, not a vulnerability object',
    at: 'null]',
  },
  {
    format: 'openvex',
    text: '{"@context": "https://openvex.dev/ns/v0.2.0", "statements": "none"}',
    name: '`statements` is a string, not a list of statements',
    at: '"none"',
  },
  {
    format: 'csaf',
    text: '{"document": {"category": "csaf_vex", "csaf_version": "2.0"}, "vulnerabilities": {"a": 1}}',
    name: '`vulnerabilities` is an object, not a list of vulnerabilities',
    at: '{"a"',
  },
  {
    format: 'spdx',
    text: '{"spdxVersion": "SPDX-2.3", "packages": 7}',
    name: '`packages` is a number, not a list of packages',
    at: '7}',
  },
  {
    format: 'zap',
    text: '{"@version": "2.14", "site": 5}',
    name: '`site` is a number, not a list of sites',
    at: '5}',
  },
  {
    format: 'nikto',
    text: '{"host": "h", "port": "80", "vulnerabilities": {"a": 1}}',
    name: '`vulnerabilities` is an object, not a list of vulnerabilities',
    at: '{"a"',
  },
  {
    format: 'generic',
    text: '{"findings": 5}',
    name: '`findings` is a number, not a list of findings',
    at: '5}',
  },
];

/** 1-based line and column of the first character of `at` in `text`. */
function positionOf(text: string, at: string): { line: number; column: number } {
  const index = text.indexOf(at);
  expect(index).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, index + 1).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length };
}

function importerOf(format: string) {
  const importer = IMPORTERS.find((i) => i.format === format);
  if (!importer) throw new Error(`no importer ${format}`);
  return importer;
}

describe('JSON reports of the wrong shape fail, saying where and why', () => {
  it.each(CASES)('$format: $name', async ({ format, text, name, at }) => {
    const error = await failure(parseText(importerOf(format), text));
    const { line, column } = positionOf(text, at);
    expect(error.message).toContain(name);
    expect(error.line).toBe(line);
    expect(error.column).toBe(column);
    expect(error.message).toContain(`(line ${line}, column ${column})`);
  });

  it('every JSON importer is covered', () => {
    const covered = new Set(CASES.map((c) => c.format));
    for (const format of [
      'trivy',
      'grype',
      'sarif',
      'snyk',
      'osv-scanner',
      'nuclei',
      'gitleaks',
      'masscan',
      'semgrep',
      'npm-audit',
      'cyclonedx',
      'openvex',
      'csaf',
      'spdx',
      'zap',
      'nikto',
      'generic',
    ])
      expect(covered.has(format)).toBe(true);
  });

  it('a null where a report may leave a list out is read as an empty list', async () => {
    const parsed = await parseText(
      importerOf('trivy'),
      '{"SchemaVersion": 2, "ArtifactName": "x", "Results": [{"Target": "t", "Vulnerabilities": null}]}',
    );
    expect(parsed.findings).toHaveLength(0);
  });
});
