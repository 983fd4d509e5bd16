import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CSAF_SEVERITY, CSAF_UNSCORED_SEVERITY, csafImporter } from '../../src/importers/csaf/index.js';
import { ProductTree } from '../../src/importers/csaf/product-tree.js';
import type { FindingRecord } from '../../src/importers/types.js';
import { locateJsonError } from '../../src/parsing/json.js';
import { failure, fixturePath, manifestEntries, type Parsed, parseFixture, parseText } from './helpers.js';

function byProduct(findings: FindingRecord[], productId: string): FindingRecord {
  const found = findings.find((f) => f.toolFindingId?.startsWith(`${productId}|`));
  expect(found, `a finding on ${productId}`).toBeDefined();
  return found!;
}

/** A CSAF 2.0 advisory with these vulnerabilities over a flat product list. */
function advisory(vulnerabilities: object[], productTree: object = PRODUCTS, document: object = {}): string {
  return JSON.stringify({
    document: {
      category: 'csaf_vex',
      csaf_version: '2.0',
      title: 'Shop advisory',
      publisher: { category: 'vendor', name: 'Example Corp', namespace: 'https://example.com' },
      tracking: { id: 'EX-2026-7', status: 'final', version: '1' },
      ...document,
    },
    product_tree: productTree,
    vulnerabilities,
  });
}

const PRODUCTS = {
  full_product_names: [
    { product_id: 'WEB-2', name: 'Shop Web 2.3.0' },
    {
      product_id: 'IMG-2',
      name: 'Shop image 2.3.0',
      product_identification_helper: {
        purl: 'pkg:oci/shop@sha256%3Aabc?repository_url=ghcr.io/example/shop&tag=2.3.0',
      },
    },
  ],
  product_groups: [{ group_id: 'ALL', product_ids: ['WEB-2', 'IMG-2'] }],
};

/**
 * What DefectDojo asserts per sample, in Rampart's fields. Deliberate differences:
 * - DefectDojo titles a finding "Generic App:1.0.0 | CVE-2026-10001"; Rampart keeps the parts
 *   apart: the vulnerability's own title, the id as rule id, the product as the location.
 * - A relationship product ("Generic Library 3.4.5 as a component of Generic App 1.0.0") is,
 *   in DefectDojo, a component named after the whole sentence; Rampart locates it at the
 *   component (Generic Library 3.4.5) in the parent product's asset (Generic App).
 * - "under_investigation → unverified": Rampart has no verified flag; the finding is open.
 */
const CHECKS: Record<string, (parsed: Parsed) => void> = {
  'csaf/csaf_one_vuln.json': ({ findings }) => {
    const f = findings[0]!;
    expect(f.severity).toBe('Critical');
    expect(f.vulnerability).toMatchObject({
      ruleId: 'CVE-2026-10001',
      title: 'Remote code execution in the request handler',
      cveIds: ['CVE-2026-10001'],
      cweIds: ['CWE-94'],
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cvss3Score: 9.8,
      references: ['https://example.com/advisories/EXAMPLE-2026-0001'],
    });
    expect(f.location).toEqual({ kind: 'Package', packageName: 'Generic App', packageVersion: '1.0.0' });
    expect(f.toolFindingId).toBe('CSAFPID-0001|CVE-2026-10001');
    expect(f.state).toBeUndefined(); // active
    expect(f.fixedIn).toBe('Upgrade to Generic App 1.0.1.');
  },
  'csaf/csaf_many_vuln.json': ({ findings }) => {
    // Generic App 1.0.0 (known_affected) → active, High, cvssv3_score 7.5
    const affected = byProduct(findings, 'CSAFPID-0001');
    expect(affected).toMatchObject({ severity: 'High', vulnerability: { cvss3Score: 7.5 } });
    expect(affected.state).toBeUndefined();
    // Generic App 1.0.1 (fixed) → inactive, is_mitigated
    expect(byProduct(findings, 'CSAFPID-0002').state).toEqual({ state: 'Fixed', reason: 'fixed' });
    // Generic App 2.0.0 (known_not_affected) → inactive, false_p
    expect(byProduct(findings, 'CSAFPID-0003').state).toEqual({
      state: 'FalsePositive',
      reason: 'known_not_affected',
    });
    // Generic Library 3.4.5 (under_investigation) → active
    const investigated = byProduct(findings, 'CSAFPID-0004');
    expect(investigated.state).toBeUndefined();
    expect(investigated.location).toEqual({
      kind: 'Package',
      packageName: 'Generic Library',
      packageVersion: '3.4.5',
    });
    // EXAMPLE-2026-0002-B: no CVE, no scores → Medium, vulnerability_ids [EXAMPLE-2026-0002-B]
    const embargoed = findings.find((f) => f.vulnerability.ruleId === 'EXAMPLE-2026-0002-B')!;
    expect(embargoed.severity).toBe('Medium');
    expect(embargoed.vulnerability.cveIds).toBeUndefined();
    expect(embargoed.vulnerability.aliases).toBeUndefined();
    expect(embargoed).toMatchObject({
      asset: { kind: 'CodeRepository', repository: 'Generic App' },
      location: { kind: 'Package', packageName: 'Generic Library', packageVersion: '3.4.5' },
    });
    // Generic App versions, sorted: 1.0.0, 1.0.1, 2.0.0
    const versions = findings
      .filter((f) => f.location.packageName === 'Generic App')
      .map((f) => f.location.packageVersion)
      .sort();
    expect(versions).toEqual(['1.0.0', '1.0.1', '2.0.0']);
  },
};

describe('csaf importer: DefectDojo samples', () => {
  for (const entry of manifestEntries('csaf')) {
    it(`${entry.file}: ${entry.expectedFindings} findings, as DefectDojo`, async () => {
      const parsed = await parseFixture(csafImporter, entry.file);
      // Inactive (fixed, known_not_affected) products are counted, as DefectDojo counts them.
      expect(parsed.findings).toHaveLength(entry.expectedFindings);
      CHECKS[entry.file]!(parsed);
      expect(parsed.warnings).toEqual([]);
    });
  }

  it('has a check for every sample', () => {
    expect(
      manifestEntries('csaf')
        .map((e) => e.file)
        .sort(),
    ).toEqual(Object.keys(CHECKS).sort());
  });

  it('files each product under itself, without its version', async () => {
    const { findings } = await parseFixture(csafImporter, 'csaf/csaf_many_vuln.json');
    expect(byProduct(findings, 'CSAFPID-0004').asset).toEqual({
      kind: 'CodeRepository',
      repository: 'Generic Library',
    });
    expect(byProduct(findings, 'CSAFPID-0002').asset).toEqual({
      kind: 'CodeRepository',
      repository: 'Generic App',
    });
    expect(byProduct(findings, 'CSAFPID-0005').evidence).toContain(
      'Product: Generic Library 3.4.5 as a component of Generic App 1.0.0 (CSAFPID-0005)',
    );
  });
});

describe('csaf importer: statuses, severity, remediations', () => {
  it('documents the severity mapping', () => {
    expect(CSAF_SEVERITY).toEqual({
      critical: 'Critical',
      high: 'High',
      medium: 'Medium',
      low: 'Low',
      none: 'Info',
    });
    expect(CSAF_UNSCORED_SEVERITY).toBe('Medium');
  });

  it('reads the VEX justification and impact, group remediations, and a product listed twice once', async () => {
    const { findings } = await parseText(
      csafImporter,
      advisory([
        {
          cve: 'CVE-2024-0001',
          product_status: { known_not_affected: ['WEB-2'], known_affected: ['IMG-2'], fixed: ['IMG-2'] },
          flags: [{ label: 'vulnerable_code_not_in_execute_path', product_ids: ['WEB-2'] }],
          threats: [{ category: 'impact', details: 'The parser is never called.', product_ids: ['WEB-2'] }],
          remediations: [{ category: 'vendor_fix', details: 'Update to 2.3.1.', group_ids: ['ALL'] }],
          scores: [
            {
              products: ['IMG-2'],
              cvss_v3: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' },
            },
          ],
        },
      ]),
    );
    expect(findings.map((f) => [f.toolFindingId, f.severity, f.state, f.fixedIn])).toEqual([
      // Affected wins over fixed: under-reporting exposure is the worse error.
      ['IMG-2|CVE-2024-0001', 'Medium', undefined, 'Update to 2.3.1.'],
      [
        'WEB-2|CVE-2024-0001',
        'Medium',
        {
          state: 'FalsePositive',
          reason: 'known_not_affected (vulnerable_code_not_in_execute_path): The parser is never called.',
        },
        'Update to 2.3.1.',
      ],
    ]);
    // No baseSeverity nor baseScore: the vector's score (5.3) gives the band.
    expect(findings[0]!.vulnerability.cvss3Score).toBe(5.3);
  });

  it('files an image product under its image, and an unknown product id under the advisory', async () => {
    const { findings, warnings } = await parseText(
      csafImporter,
      advisory([{ cve: 'CVE-2024-0002', product_status: { known_affected: ['IMG-2', 'NOPE-1'] } }]),
    );
    expect(findings.map((f) => [f.asset, f.location])).toEqual([
      [
        { kind: 'ContainerImage', image: 'ghcr.io/example/shop:2.3.0' },
        { kind: 'Package', packageName: 'shop', packageVersion: 'sha256:abc' },
      ],
      [
        { kind: 'CodeRepository', repository: 'EX-2026-7' },
        { kind: 'Package', packageName: 'NOPE-1' },
      ],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/1 product statuses name a product id the product tree does not define/),
    ]);
  });

  it('reads versions from deep branches, without mixing up siblings', async () => {
    const leaf = (version: string, id: string) => ({
      category: 'product_version',
      name: version,
      product: { product_id: id, name: `Shop Web ${version}` },
    });
    const tree = {
      branches: [
        {
          category: 'vendor',
          name: 'Example Corp',
          branches: [
            {
              category: 'product_family',
              name: 'Shop',
              branches: [
                {
                  category: 'product_name',
                  name: 'Shop Web',
                  branches: [leaf('2.3.0', 'A'), leaf('2.4.0', 'B')],
                },
              ],
            },
            {
              category: 'product_name',
              name: 'Shop CLI',
              branches: [
                {
                  category: 'architecture',
                  name: 'x86_64',
                  product: { product_id: 'C', name: 'Shop CLI for x86_64' },
                },
              ],
            },
          ],
        },
      ],
    };
    const { findings } = await parseText(
      csafImporter,
      advisory([{ cve: 'CVE-2024-0003', product_status: { known_affected: ['A', 'B', 'C'] } }], tree),
    );
    expect(findings.map((f) => [f.asset, f.location])).toEqual([
      [
        { kind: 'CodeRepository', repository: 'Shop Web' },
        { kind: 'Package', packageName: 'Shop Web', packageVersion: '2.3.0' },
      ],
      [
        { kind: 'CodeRepository', repository: 'Shop Web' },
        { kind: 'Package', packageName: 'Shop Web', packageVersion: '2.4.0' },
      ],
      [
        { kind: 'CodeRepository', repository: 'Shop CLI' },
        { kind: 'Package', packageName: 'Shop CLI' },
      ],
    ]);
  });

  it('skips a vulnerability without any id or title, and says so', async () => {
    const { findings, warnings } = await parseText(
      csafImporter,
      advisory([
        { product_status: { known_affected: ['WEB-2'] } },
        { cve: 'CVE-2024-0004', product_status: {} },
      ]),
    );
    expect(findings).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^1 vulnerabilities without a CVE/)]);
  });
});

describe('csaf importer: the product tree is bounded', () => {
  it('indexes at most its limit of products, and warns', () => {
    const warnings: string[] = [];
    const tree = new ProductTree(
      { warn: (m) => warnings.push(m), maxEvidenceChars: 1000, maxFieldChars: 1000 },
      2,
    );
    for (const id of ['P1', 'P2', 'P3'])
      tree.take(['product_tree', 'full_product_names', 0], {
        product_id: id,
        name: `Product ${id.slice(1)}.0`,
      });
    const fallback = () => ({ kind: 'CodeRepository', repository: 'advisory' }) as const;
    expect(tree.target('P2', fallback).location).toEqual({
      kind: 'Package',
      packageName: 'Product',
      packageVersion: '2.0',
    });
    expect(tree.target('P3', fallback)).toMatchObject({
      asset: { repository: 'advisory' },
      location: { packageName: 'P3' },
    });
    tree.finish();
    expect(warnings[0]).toMatch(/more than 2 products; 1 were not indexed/);
  });
});

describe('csaf importer: bad input', () => {
  it('fails on JSON cut in the middle, and the position is found', async () => {
    const text = readFileSync(fixturePath('csaf/csaf_many_vuln.json'), 'utf8').slice(0, 2500);
    const error = await failure(parseText(csafImporter, text));
    expect(error.message).toMatch(/Not valid JSON/);
    const at = await locateJsonError(() => Readable.from([Buffer.from(text)]));
    expect(at?.line).toBeGreaterThan(1);
    expect(at?.column).toBeGreaterThan(0);
  });

  it('refuses what is not CSAF 2', async () => {
    expect((await failure(parseText(csafImporter, '{"foo": 1}'))).message).toMatch(/not a CSAF document/);
    expect((await failure(parseText(csafImporter, '[1, 2, 3]'))).message).toMatch(/not a CSAF document/);
    expect((await failure(parseText(csafImporter, ''))).message).toMatch(/empty/);
    const cvrf = advisory([], PRODUCTS, { csaf_version: '1.2' });
    expect((await failure(parseText(csafImporter, cvrf))).message).toMatch(
      /CSAF version 1.2 is not supported/,
    );
  });

  it('caps oversized fields', async () => {
    const { findings, warnings } = await parseText(
      csafImporter,
      advisory([
        {
          cve: 'CVE-2024-0005',
          notes: [{ category: 'description', text: 'y'.repeat(100_000) }],
          product_status: { known_affected: ['WEB-2'] },
        },
      ]),
    );
    expect(findings[0]!.vulnerability.description!.length).toBeLessThanOrEqual(32 * 1024);
    expect(findings[0]!.vulnerability.description).toMatch(/\[truncated\]$/);
    expect(warnings.some((w) => /were cut/.test(w))).toBe(true);
  });
});

describe('csaf importer: CVSS v2', () => {
  /** csaf_one_vuln.json with its one score's entries replaced. */
  const withScore = (entries: Record<string, unknown>) => {
    const doc = JSON.parse(readFileSync(fixturePath('csaf/csaf_one_vuln.json'), 'utf8'));
    const { products } = doc.vulnerabilities[0].scores[0];
    doc.vulnerabilities[0].scores = [{ products, ...entries }];
    return JSON.stringify(doc);
  };
  const v2 = { version: '2.0', vectorString: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', baseScore: 7.5 };

  it('keeps cvss_v2 beside cvss_v3, and rates by v3', async () => {
    const original = JSON.parse(readFileSync(fixturePath('csaf/csaf_one_vuln.json'), 'utf8'));
    const { findings } = await parseText(
      csafImporter,
      withScore({ cvss_v2: v2, cvss_v3: original.vulnerabilities[0].scores[0].cvss_v3 }),
    );
    expect(findings[0]!.vulnerability).toMatchObject({
      cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      cvss2Score: 7.5,
      cvss3Score: 9.8,
    });
    expect(findings[0]!.severity).toBe('Critical');
  });

  it('keeps a score that is all v2, and leaves out a v2 vector that is not valid', async () => {
    const only = (await parseText(csafImporter, withScore({ cvss_v2: v2 }))).findings[0]!;
    expect(only.vulnerability).toMatchObject({ cvss2Score: 7.5, cvss2Vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' });
    const broken = (
      await parseText(csafImporter, withScore({ cvss_v2: { ...v2, vectorString: 'AV:N/AC:L/Au:N/C:P/I:P' } }))
    ).findings[0]!;
    expect(broken.vulnerability.cvss2Vector).toBeUndefined();
    expect(broken.vulnerability.cvss2Score).toBe(7.5);
  });
});
