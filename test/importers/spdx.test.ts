import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_HELD_PACKAGES, SPDX_SEVERITY, spdxImporter } from '../../src/importers/spdx/index.js';
import type { FindingRecord, SoftwareRecord } from '../../src/importers/types.js';
import { locateJsonError } from '../../src/parsing/json.js';
import { failure, fixturePath, manifestEntries, type Parsed, parseFixture, parseText } from './helpers.js';

function byId(findings: FindingRecord[], id: string): FindingRecord {
  const found = findings.find((f) => f.vulnerability.ruleId === id);
  expect(found, `a finding for ${id}`).toBeDefined();
  return found!;
}

function software(parsed: Parsed): SoftwareRecord[] {
  return parsed.records.filter((r): r is SoftwareRecord => r.type === 'software');
}

function pkg(id: string, name: string, version: string, refs: object[] = [], extra: object = {}): object {
  return {
    SPDXID: id,
    name,
    versionInfo: version,
    downloadLocation: 'NOASSERTION',
    externalRefs: refs,
    ...extra,
  };
}

const purl = (locator: string) => ({
  referenceCategory: 'PACKAGE-MANAGER',
  referenceType: 'purl',
  referenceLocator: locator,
});
const advisory = (locator: string, extra: object = {}) => ({
  referenceCategory: 'SECURITY',
  referenceType: 'advisory',
  referenceLocator: locator,
  ...extra,
});

const LODASH = pkg('SPDXRef-Package-npm-lodash', 'lodash', '4.17.15', [
  purl('pkg:npm/lodash@4.17.15'),
  advisory('https://nvd.nist.gov/vuln/detail/CVE-2021-23337'),
]);

/** An SPDX 2.3 document; `extra` adds or overrides top-level fields. */
function sbom(packages: object[], extra: object = {}): string {
  return JSON.stringify({
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: 'shop-web',
    documentNamespace: 'https://example.com/spdx/shop-web',
    creationInfo: { created: '2026-07-29T00:00:00Z', creators: ['Tool: syft-1.50.0'] },
    packages,
    ...extra,
  });
}

/**
 * What DefectDojo asserts per sample, in Rampart's fields. One deliberate difference: DefectDojo
 * upper-cases every id ("GHSA-JFH8-C2JP-5V3Q"); Rampart writes GitHub advisory ids as GitHub
 * does ("GHSA-jfh8-c2jp-5v3q"), the spelling scanners and OSV use, so the ids match theirs.
 */
const CHECKS: Record<string, (parsed: Parsed) => void> = {
  'spdx/spdx_one_vuln.json': ({ findings }) => {
    const f = byId(findings, 'CVE-2024-10001');
    expect(f.severity).toBe('Medium');
    expect(f.vulnerability.cveIds).toEqual(['CVE-2024-10001']);
    expect(f.location).toEqual({
      kind: 'Package',
      packageName: 'alpine-baselayout',
      packageVersion: '3.1.2-r0',
    });
    expect(f.toolFindingId).toBe('SPDXRef-Package-apk-alpine-baselayout-d4c11d42e7429ff9|CVE-2024-10001');
  },
  'spdx/spdx_many_vuln.json': ({ findings, warnings }) => {
    expect(findings.map((f) => f.vulnerability.ruleId).sort()).toEqual([
      'CVE-2024-10001',
      'CVE-2024-10002',
      'GHSA-jfh8-c2jp-5v3q',
    ]);
    // CVE-2024-10001 is named by an advisory and a fix reference: one finding with both links.
    expect(byId(findings, 'CVE-2024-10001').vulnerability.references).toEqual([
      'https://example.com/advisories/CVE-2024-10001',
      'https://example.com/fixes/CVE-2024-10001',
    ]);
    expect(byId(findings, 'CVE-2024-10001').evidence).toContain(
      'fix: https://example.com/fixes/CVE-2024-10001 (Fixed upstream)',
    );
    // apk-tools' advisory names no id: no finding, and the import says so.
    expect(findings.some((f) => f.location.packageName === 'apk-tools')).toBe(false);
    expect(warnings).toEqual([expect.stringMatching(/^1 SECURITY references .* name no CVE or GHSA id/)]);
  },
};

describe('spdx importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('spdx')) {
    it(`${entry.file}: ${entry.expectedFindings} findings, as DefectDojo`, async () => {
      const parsed = await parseFixture(spdxImporter, entry.file);
      expect(parsed.findings).toHaveLength(entry.expectedFindings);
      CHECKS[entry.file]!(parsed);
      expect(parsed.findings.every((f) => f.severity === SPDX_SEVERITY && f.state === undefined)).toBe(true);
    });
  }

  it('has a check for every sample', () => {
    expect(
      manifestEntries('spdx')
        .map((e) => e.file)
        .sort(),
    ).toEqual(Object.keys(CHECKS).sort());
  });

  it('lists every package as software of the document', async () => {
    const parsed = await parseFixture(spdxImporter, 'spdx/spdx_many_vuln.json');
    const list = software(parsed);
    expect(list.map((s) => s.name)).toEqual(['alpine-baselayout', 'alpine-keys', 'apk-tools', 'busybox']);
    expect(list[0]).toEqual({
      type: 'software',
      asset: { kind: 'CodeRepository', repository: 'generic-image' },
      name: 'alpine-baselayout',
      version: '3.1.2-r0',
      vendor: 'Natanael Copa',
      category: 'OsPackage',
      cpe: 'cpe:2.3:a:alpine-baselayout:alpine-baselayout:3.1.2-r0:*:*:*:*:*:*:*',
      purl: 'pkg:apk/alpine/alpine-baselayout@3.1.2-r0?arch=x86_64&distro=alpine-3.10.9',
    });
    expect(parsed.findings[0]!.asset).toEqual({ kind: 'CodeRepository', repository: 'generic-image' });
  });
});

describe('spdx importer: the subject', () => {
  it('files a syft image SBOM under the image, even when its root comes last, and does not list the root', async () => {
    const root = pkg('SPDXRef-DocumentRoot-Image-shop', 'ghcr.io/example/shop', 'sha256:abc', [
      purl('pkg:oci/shop@sha256%3Aabc?repository_url=ghcr.io/example/shop&tag=2.3.0'),
    ]);
    const parsed = await parseText(
      spdxImporter,
      sbom([LODASH, root], {
        relationships: [
          {
            spdxElementId: 'SPDXRef-DOCUMENT',
            relationshipType: 'DESCRIBES',
            relatedSpdxElement: 'SPDXRef-DocumentRoot-Image-shop',
          },
        ],
      }),
    );
    const image = { kind: 'ContainerImage', image: 'ghcr.io/example/shop:2.3.0' };
    expect(parsed.records.map((r) => [r.type, r.asset])).toEqual([
      ['software', image],
      ['finding', image],
    ]);
    expect(software(parsed).map((s) => s.name)).toEqual(['lodash']);
  });

  it('finds the subject by a DESCRIBES relationship that follows the packages', async () => {
    const root = pkg('SPDXRef-app', 'shop-image', '2.3.0', [], { primaryPackagePurpose: 'CONTAINER' });
    const { records } = await parseText(
      spdxImporter,
      sbom([root, LODASH], {
        relationships: [
          {
            spdxElementId: 'SPDXRef-DOCUMENT',
            relationshipType: 'DESCRIBES',
            relatedSpdxElement: 'SPDXRef-app',
          },
        ],
      }),
    );
    expect(
      records.every(
        (r) => JSON.stringify(r.asset) === '{"kind":"ContainerImage","image":"shop-image:2.3.0"}',
      ),
    ).toBe(true);
  });

  it('files any other subject under the document name, and leaves the subject out of the software', async () => {
    const app = pkg('SPDXRef-app', 'shop-web', '2.3.0', [], { primaryPackagePurpose: 'APPLICATION' });
    const parsed = await parseText(spdxImporter, sbom([app, LODASH], { documentDescribes: ['SPDXRef-app'] }));
    expect(software(parsed).map((s) => [s.name, s.asset])).toEqual([
      ['lodash', { kind: 'CodeRepository', repository: 'shop-web' }],
    ]);
  });

  it('holds at most MAX_HELD_PACKAGES packages while the subject is unknown', async () => {
    const packages = Array.from({ length: MAX_HELD_PACKAGES + 1 }, (_, i) => ({
      SPDXID: `p${i}`,
      name: `p${i}`,
    }));
    const parsed = await parseText(spdxImporter, sbom(packages));
    expect(software(parsed)).toHaveLength(MAX_HELD_PACKAGES + 1);
    expect(parsed.warnings).toEqual([
      expect.stringMatching(/subject was not found in its first 50000 packages/),
    ]);
  });
});

describe('spdx importer: references', () => {
  it('reads ids from the locator and the comment; CPE, purl and swid references are no findings', async () => {
    const { findings, warnings } = await parseText(
      spdxImporter,
      sbom([
        pkg('SPDXRef-x', 'x', '1.0', [
          {
            referenceCategory: 'SECURITY',
            referenceType: 'cpe23Type',
            referenceLocator: 'cpe:2.3:a:cve-2020-0001:x:1.0:*:*:*:*:*:*:*',
          },
          { referenceCategory: 'SECURITY', referenceType: 'swid', referenceLocator: 'swid:CVE-2020-0002' },
          purl('pkg:generic/x@1.0'),
          advisory('https://example.com/a/1', { comment: 'Tracks cve-2020-0003 and GHSA-JFH8-C2JP-5V3Q.' }),
          {
            referenceCategory: 'security',
            referenceType: 'url',
            referenceLocator: 'https://osv.dev/GHSA-jfh8-c2jp-5v3q',
          },
        ]),
      ]),
    );
    expect(
      findings.map((f) => [f.vulnerability.ruleId, f.vulnerability.cveIds, f.vulnerability.references]),
    ).toEqual([
      ['CVE-2020-0003', ['CVE-2020-0003'], ['https://example.com/a/1']],
      ['GHSA-jfh8-c2jp-5v3q', undefined, ['https://example.com/a/1', 'https://osv.dev/GHSA-jfh8-c2jp-5v3q']],
    ]);
    expect(warnings).toEqual([]);
  });
});

describe('spdx importer: bad input', () => {
  it('fails on JSON cut in the middle, and the position is found', async () => {
    const text = readFileSync(fixturePath('spdx/spdx_many_vuln.json'), 'utf8').slice(0, 2000);
    const error = await failure(parseText(spdxImporter, text));
    expect(error.message).toMatch(/Not valid JSON/);
    const at = await locateJsonError(() => Readable.from([Buffer.from(text)]));
    expect(at?.line).toBeGreaterThan(1);
    expect(at?.column).toBeGreaterThan(0);
  });

  it('refuses what is not SPDX 2 JSON, SPDX 3 with a way out', async () => {
    expect((await failure(parseText(spdxImporter, '{"foo": 1}'))).message).toMatch(
      /not an SPDX JSON document/,
    );
    expect((await failure(parseText(spdxImporter, 'SPDXVersion: SPDX-2.3\n'))).message).toMatch(/tag-value/);
    expect((await failure(parseText(spdxImporter, ''))).message).toMatch(/empty/);
    const spdx3 = '{"@context": "https://spdx.org/rdf/3.0.1/spdx-context.jsonld", "@graph": []}';
    expect(spdxImporter.detect(spdx3)).toBeGreaterThanOrEqual(0.5);
    expect((await failure(parseText(spdxImporter, spdx3))).message).toMatch(/SPDX 3 .* not supported.*2\.3/);
    expect((await failure(parseText(spdxImporter, sbom([], { spdxVersion: 'SPDX-1.2' })))).message).toMatch(
      /SPDX version SPDX-1.2 is not supported/,
    );
  });

  it('caps oversized fields', async () => {
    const long = pkg('SPDXRef-x', 'n'.repeat(100_000), '1.0', [
      advisory('https://example.com/CVE-2020-0001', { comment: 'c'.repeat(100_000) }),
    ]);
    const { findings, records, warnings } = await parseText(spdxImporter, sbom([long]));
    expect(findings[0]!.location.packageName!.length).toBeLessThanOrEqual(32 * 1024);
    expect(findings[0]!.evidence!.length).toBeLessThanOrEqual(64 * 1024);
    expect((records[0] as SoftwareRecord).name).toMatch(/\[truncated\]$/);
    expect(warnings.some((w) => /were cut/.test(w))).toBe(true);
  });
});
