import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OPENVEX_SEVERITY, openvexImporter } from '../../src/importers/openvex/index.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { locateJsonError } from '../../src/parsing/json.js';
import { failure, fixturePath, manifestEntries, type Parsed, parseFixture, parseText } from './helpers.js';

function byId(findings: FindingRecord[], id: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.ruleId === id);
  expect(found, `a finding for ${id}`).toBeDefined();
  return found!;
}

/** An OpenVEX v0.2.0 document with these statements. */
function vex(statements: unknown[], header: object = {}): string {
  return JSON.stringify({
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': 'https://example.com/vex/shop-web-2.3.0',
    author: 'Example Org',
    timestamp: '2026-07-29T00:00:00Z',
    version: 1,
    ...header,
    statements,
  });
}

function statement(extra: object = {}): object {
  return {
    vulnerability: { name: 'CVE-2024-0001' },
    products: [{ '@id': 'pkg:npm/lodash@4.17.15' }],
    status: 'affected',
    ...extra,
  };
}

/**
 * What DefectDojo asserts per sample, in Rampart's fields. Deliberate differences, throughout:
 * - DefectDojo names the component by the package URL without its version
 *   ("pkg:apk/alpine/apk-tools"); Rampart locates it at the package name ("apk-tools"), as the
 *   Grype, Trivy and CycloneDX importers do, so a VEX decision lands on the scanner's finding.
 * - DefectDojo splits not_affected by justification (inline_mitigations_already_exist →
 *   mitigated, component_not_present → out of scope, the others → false positive). Rampart has
 *   no "out of scope", and Fixed would claim a remediation: every not_affected statement is a
 *   FalsePositive whose reason keeps the justification.
 * - "under_investigation → unverified": Rampart has no verified flag; the finding is open, Info.
 */
const CHECKS: Record<string, (parsed: Parsed) => void> = {
  'openvex/openvex_one_vuln.json': ({ findings }) => {
    const f = byId(findings, 'CVE-2024-10001');
    expect(f.severity).toBe('Info');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2024-10001']);
    expect(f.location).toEqual({ kind: 'Package', packageName: 'apk-tools', packageVersion: '2.10.6-r0' });
    expect(f.toolFindingId).toBe(
      'pkg:apk/alpine/apk-tools@2.10.6-r0?arch=x86_64&distro=alpine-3.10.9|CVE-2024-10001',
    );
    // active: false, false_p: true
    expect(f.state).toEqual({ state: 'FalsePositive', reason: 'not_affected (vulnerable_code_not_present)' });
  },
  'openvex/openvex_many_vuln.json': ({ findings }) => {
    // CVE-2024-10001 not_affected → inactive, false_p
    expect(byId(findings, 'CVE-2024-10001').state?.state).toBe('FalsePositive');
    // CVE-2024-10002 affected → active, Medium
    expect(byId(findings, 'CVE-2024-10002').severity).toBe('Medium');
    expect(byId(findings, 'CVE-2024-10002').state).toBeUndefined();
    // CVE-2024-10003 fixed → inactive, is_mitigated
    expect(byId(findings, 'CVE-2024-10003').state).toEqual({ state: 'Fixed', reason: 'fixed' });
    // CVE-2024-10004 under_investigation → active (unverified), Info
    expect(byId(findings, 'CVE-2024-10004').severity).toBe('Info');
    expect(byId(findings, 'CVE-2024-10004').state).toBeUndefined();
    // CVE-2024-10005 inline_mitigations_already_exist → DefectDojo: mitigated; Rampart: false positive (above)
    const mitigated = byId(findings, 'CVE-2024-10005');
    expect(mitigated.state).toEqual({
      state: 'FalsePositive',
      reason:
        'not_affected (inline_mitigations_already_exist): The affected code path is disabled at build time.',
    });
    expect(mitigated.vulnerability).toMatchObject({
      cveIds: ['CVE-2024-10005'],
      aliases: ['GHSA-jfh8-c2jp-5v3q'],
    });
    // CVE-2024-10006 component_not_present, the v0.0.1 bare-string shape → DefectDojo: out of scope
    const absent = byId(findings, 'CVE-2024-10006');
    expect(absent.state).toEqual({ state: 'FalsePositive', reason: 'not_affected (component_not_present)' });
    expect(absent.location).toEqual({ kind: 'Package', packageName: 'openssl', packageVersion: '1.1.1k-r0' });
  },
};

describe('openvex importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('openvex')) {
    it(`${entry.file}: ${entry.expectedFindings} findings, as DefectDojo`, async () => {
      const parsed = await parseFixture(openvexImporter, entry.file);
      // Inactive (not_affected, fixed) statements are counted, as DefectDojo counts them.
      expect(parsed.findings).toHaveLength(entry.expectedFindings);
      CHECKS[entry.file]!(parsed);
      expect(parsed.warnings).toEqual([]);
    });
  }

  it('has a check for every sample', () => {
    expect(
      manifestEntries('openvex')
        .map((e) => e.file)
        .sort(),
    ).toEqual(Object.keys(CHECKS).sort());
  });

  it('files packages under the document and records the statement as evidence', async () => {
    const { findings } = await parseFixture(openvexImporter, 'openvex/openvex_many_vuln.json');
    expect(new Set(findings.map((f) => JSON.stringify(f.asset)))).toEqual(
      new Set([
        JSON.stringify({
          kind: 'CodeRepository',
          repository: 'https://openvex.dev/docs/public/vex-2222222222222222222222222222222222',
        }),
      ]),
    );
    expect(byId(findings, 'CVE-2024-10002').evidence).toContain(
      'Action statement: No action statement provided',
    );
  });
});

describe('openvex importer: statuses and severity', () => {
  it('documents the severity mapping', () => {
    expect(OPENVEX_SEVERITY).toEqual({
      affected: 'Medium',
      under_investigation: 'Info',
      not_affected: 'Info',
      fixed: 'Info',
    });
  });

  it('maps every status, and reads an undefined one as under investigation, with a warning', async () => {
    const { findings, warnings } = await parseText(
      openvexImporter,
      vex([
        statement({ status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path' }),
        statement({
          vulnerability: { name: 'CVE-2024-0002' },
          status: 'fixed',
          status_notes: 'Patched in 2.3.1.',
        }),
        statement({ vulnerability: { name: 'CVE-2024-0003' }, status: 'under_investigation' }),
        statement({ vulnerability: { name: 'CVE-2024-0004' }, status: 'exploitable' }),
      ]),
    );
    expect(findings.map((f) => [f.vulnerability.ruleId, f.severity, f.state])).toEqual([
      [
        'CVE-2024-0001',
        'Info',
        { state: 'FalsePositive', reason: 'not_affected (vulnerable_code_not_in_execute_path)' },
      ],
      ['CVE-2024-0002', 'Info', { state: 'Fixed', reason: 'fixed: Patched in 2.3.1.' }],
      ['CVE-2024-0003', 'Info', undefined],
      ['CVE-2024-0004', 'Info', undefined],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/1 OpenVEX statements have a status the specification does not define/),
    ]);
  });

  it('skips statements without a vulnerability, status or product, and says so', async () => {
    const { findings, warnings } = await parseText(
      openvexImporter,
      vex([statement(), statement({ status: undefined }), statement({ products: [] }), { foo: 1 }, 'junk']),
    );
    expect(findings).toHaveLength(1);
    expect(warnings).toEqual([expect.stringMatching(/^4 OpenVEX statements without/)]);
  });
});

describe('openvex importer: assets and locations', () => {
  it('makes one finding per product', async () => {
    const { findings } = await parseText(
      openvexImporter,
      vex([statement({ products: ['pkg:npm/lodash@4.17.15', { '@id': 'pkg:npm/%40babel/core@7.1.0' }] })]),
    );
    expect(findings.map((f) => f.location)).toEqual([
      { kind: 'Package', packageName: 'lodash', packageVersion: '4.17.15' },
      { kind: 'Package', packageName: '@babel/core', packageVersion: '7.1.0' },
    ]);
    expect(findings[0]!.asset).toEqual({
      kind: 'CodeRepository',
      repository: 'https://example.com/vex/shop-web-2.3.0',
    });
  });

  it('files an image product under the image, its subcomponents located in it', async () => {
    const image = 'pkg:oci/shop-web@sha256%3Aabc123?repository_url=ghcr.io%2Fexample%2Fshop-web&tag=2.3.0';
    const { findings } = await parseText(
      openvexImporter,
      vex([
        statement({
          products: [{ '@id': image, subcomponents: [{ '@id': 'pkg:apk/alpine/busybox@1.36.1-r2' }] }],
        }),
        statement({ vulnerability: 'CVE-2024-0002', products: [image] }),
      ]),
    );
    expect(findings.map((f) => [f.asset, f.location, f.toolFindingId])).toEqual([
      [
        { kind: 'ContainerImage', image: 'ghcr.io/example/shop-web:2.3.0' },
        { kind: 'Package', packageName: 'busybox', packageVersion: '1.36.1-r2' },
        `${image}|pkg:apk/alpine/busybox@1.36.1-r2|CVE-2024-0001`,
      ],
      [
        { kind: 'ContainerImage', image: 'ghcr.io/example/shop-web:2.3.0' },
        { kind: 'Package', packageName: 'shop-web', packageVersion: 'sha256:abc123' },
        `${image}|CVE-2024-0002`,
      ],
    ]);
  });

  it('files a non-image product with subcomponents under a project named after it', async () => {
    const { findings } = await parseText(
      openvexImporter,
      vex([
        statement({
          products: [{ '@id': 'pkg:github/example/shop-web@v2.3.0' }],
          subcomponents: ['pkg:npm/lodash@4.17.15'], // v0.0.1 put subcomponents on the statement
        }),
      ]),
    );
    expect(findings[0]).toMatchObject({
      asset: { kind: 'CodeRepository', repository: 'example/shop-web' },
      location: { kind: 'Package', packageName: 'lodash', packageVersion: '4.17.15' },
    });
  });

  it('names the document after its author without an @id, and says so without either', async () => {
    const byAuthor = await parseText(openvexImporter, vex([statement()], { '@id': undefined }));
    expect(byAuthor.findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: 'Example Org' });
    const unnamed = await parseText(
      openvexImporter,
      vex([statement()], { '@id': undefined, author: undefined }),
    );
    expect(unnamed.findings[0]!.asset).toEqual({
      kind: 'CodeRepository',
      repository: '(unknown OpenVEX document)',
    });
    expect(unnamed.warnings).toEqual([expect.stringMatching(/names neither its @id nor its author/)]);
  });
});

describe('openvex importer: detection', () => {
  // Every sample against every format, both ways: test/importers/registry.test.ts.
  it('knows a document without its @context by its statements', () => {
    expect(openvexImporter.detect(vex([statement()], { '@context': undefined }))).toBeGreaterThanOrEqual(0.5);
  });
});

describe('openvex importer: bad input', () => {
  it('fails on JSON cut in the middle, and the position is found', async () => {
    const text = readFileSync(fixturePath('openvex/openvex_many_vuln.json'), 'utf8').slice(0, 900);
    const error = await failure(parseText(openvexImporter, text));
    expect(error.message).toMatch(/Not valid JSON/);
    // The import service asks locateJsonError for the line and column of a "Not valid JSON" failure.
    const at = await locateJsonError(() => Readable.from([Buffer.from(text)]));
    expect(at?.line).toBeGreaterThan(1);
    expect(at?.column).toBeGreaterThan(0);
  });

  it('refuses what is not an OpenVEX document', async () => {
    expect((await failure(parseText(openvexImporter, '{"foo": 1}'))).message).toMatch(
      /not an OpenVEX document/,
    );
    expect((await failure(parseText(openvexImporter, '[1, 2, 3]'))).message).toMatch(
      /not an OpenVEX document/,
    );
    expect((await failure(parseText(openvexImporter, ''))).message).toMatch(/empty/);
  });

  it('caps oversized fields', async () => {
    const { findings, warnings } = await parseText(
      openvexImporter,
      vex([statement({ status: 'not_affected', impact_statement: 'x'.repeat(200_000) })]),
    );
    expect(findings[0]!.state!.reason.length).toBeLessThanOrEqual(32 * 1024);
    expect(findings[0]!.evidence!.length).toBeLessThanOrEqual(64 * 1024);
    expect(findings[0]!.state!.reason).toMatch(/\[truncated\]$/);
    expect(warnings.some((w) => /were cut/.test(w))).toBe(true);
  });
});
