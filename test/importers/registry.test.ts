import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultRegistry, IMPORTERS } from '../../src/importers/index.js';
import { ImporterRegistry } from '../../src/importers/registry.js';
import { fixturePath, head, manifestEntries } from './helpers.js';

// The shared samples' folders and the Format that reads them.
const FOLDERS: Record<string, string> = {
  tenable: 'nessus',
  openvas: 'openvas',
  qualys: 'qualys',
  nmap: 'nmap',
  zap: 'zap',
  burp: 'burp',
  nuclei: 'nuclei',
  trivy: 'trivy',
  anchore_grype: 'grype',
  osv_scanner: 'osv-scanner',
  cyclonedx: 'cyclonedx',
  sarif: 'sarif',
  generic: 'generic',
  masscan: 'masscan',
  nikto: 'nikto',
  testssl: 'testssl',
  sslscan: 'sslscan',
  dependency_check: 'dependency-check',
  npm_audit: 'npm-audit',
  npm_audit_7_plus: 'npm-audit',
  semgrep: 'semgrep',
  gitleaks: 'gitleaks',
  openvex: 'openvex',
  csaf: 'csaf',
  spdx: 'spdx',
  snyk: 'snyk',
  wapiti: 'wapiti',
};

describe('format detection across every sample', () => {
  const registry = defaultRegistry();
  const samples = Object.entries(FOLDERS).flatMap(([folder, format]) =>
    [...new Set(manifestEntries(folder).map((e) => e.file))].map((file) => ({ file, format })),
  );

  it('has every sample of the supported formats as a fixture', () => {
    expect(samples.length).toBeGreaterThanOrEqual(80);
    for (const { file } of samples) expect(existsSync(fixturePath(file)), file).toBe(true);
  });

  it.each(samples)('$file is read as $format', ({ file, format }) => {
    const text = head(file);
    // Empty reports (and Gitleaks's bare `null`): only a named Format can say what they are.
    if (text.trim() === '' || text.trim() === 'null') return;
    expect(registry.detect(text)?.importer.format).toBe(format);
    // And no other format comes close enough to claim it were its own importer missing.
    for (const other of registry.all())
      if (other.format !== format) expect(other.detect(text), other.format).toBeLessThan(0.5);
  });

  it('claims nothing that is no report', () => {
    // (An empty file reads as an empty Nuclei JSONL report; the API refuses empty uploads first.)
    for (const text of [
      'hello world',
      '{"foo": 1}',
      '[1, 2, 3]',
      '<html><body>hi</body></html>',
      'a,b,c\n1,2,3\n',
    ])
      expect(registry.detect(text), text).toBeUndefined();
  });

  it('knows each format once, by a lower-case name', () => {
    expect(IMPORTERS.map((i) => i.format)).toEqual([...new Set(IMPORTERS.map((i) => i.format))]);
    for (const i of IMPORTERS) expect(i.format).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(() => new ImporterRegistry([IMPORTERS[0]!, IMPORTERS[0]!])).toThrow(/Two importers/);
    expect(registry.byFormat(' NESSUS ')?.format).toBe('nessus');
  });
});
