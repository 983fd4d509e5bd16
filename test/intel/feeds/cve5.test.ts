import { describe, expect, it } from 'vitest';
import { configurationsFromAffected } from '../../../src/intel/feeds/cve5/affected.js';
import { parseCpe } from '../../../src/intel/feeds/cve5/cpe-name.js';
import { detectCve5, readCve5 } from '../../../src/intel/feeds/cve5/cve5.js';
import { readFeed } from '../../../src/intel/feeds/index.js';
import type { Configuration, CveRecord } from '../../../src/intel/types.js';
import { collect, failure, fileStream, intelFiles, readText, textStream } from './helpers.js';

const FILES = intelFiles('cve5');

async function readFixtures(): Promise<{ byId: Map<string, CveRecord>; warnings: string[] }> {
  const byId = new Map<string, CveRecord>();
  const warnings: string[] = [];
  for (const file of FILES) {
    const read = await collect(readCve5, fileStream('cve5', file));
    expect(read.records, file).toHaveLength(1);
    byId.set(read.records[0]!.id, read.records[0]!);
    warnings.push(...read.warnings);
  }
  return { byId, warnings };
}

let fixtures: Promise<{ byId: Map<string, CveRecord>; warnings: string[] }> | undefined;

/** The fixtures read once for the whole file. */
function readAll(): Promise<{ byId: Map<string, CveRecord>; warnings: string[] }> {
  fixtures ??= readFixtures();
  return fixtures;
}

function single(criteria: string, range: Record<string, string> = {}): Configuration {
  return {
    operator: 'OR',
    negate: false,
    nodes: [{ operator: 'OR', negate: false, cpeMatch: [{ criteria, vulnerable: true, ...range }] }],
  };
}

describe('CVE 5 reader on the six Vulnrichment records', () => {
  it('reads every file as one published record', async () => {
    const { byId } = await readAll();
    expect([...byId.keys()].sort()).toEqual(FILES.map((f) => f.replace('.json', '')).sort());
    for (const record of byId.values()) {
      expect(record).toMatchObject({ feed: 'cve5', status: 'PUBLISHED', rejected: false });
      expect(record.description).toBeTruthy();
      expect(record.references.length).toBeGreaterThan(0);
      expect(record.ssvc?.exploitation).toMatch(/^(none|poc|active)$/);
    }
  });

  it('takes CVSS from the CNA and from CISA’s ADP container, with their sources', async () => {
    const { byId } = await readAll();
    const v31 = (vector: string, baseScore: number, source: string) => ({
      version: '3.1',
      vector,
      baseScore,
      source,
    });
    expect(byId.get('CVE-2023-38408')!.cvss).toEqual([
      v31('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'ADP:CISA-ADP'),
    ]);
    expect(byId.get('CVE-2024-23897')!.cvss).toEqual([
      v31('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8, 'ADP:CISA-ADP'),
    ]);
    expect(byId.get('CVE-2018-13379')!.cvss).toEqual([
      v31('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:H', 9.1, 'CNA'),
    ]);
    expect(byId.get('CVE-2024-6387')!.cvss).toEqual([
      v31('CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H', 8.1, 'CNA'),
    ]);
    expect(byId.get('CVE-2024-38476')!.cvss).toEqual([]);
  });

  it('reads CWEs from problemTypes of all containers, SSVC from the ADP, dates with their zone', async () => {
    const { byId } = await readAll();
    expect(byId.get('CVE-2018-13379')!.cweIds).toEqual(['CWE-22']);
    expect(byId.get('CVE-2024-6387')!.cweIds).toEqual(['CWE-364']);
    expect(byId.get('CVE-2024-23897')).toMatchObject({
      cweIds: ['CWE-27'],
      publishedAt: '2024-01-24T17:52:22.842Z',
      ssvc: { exploitation: 'active', automatable: 'yes', technicalImpact: 'total' },
    });
    expect(byId.get('CVE-2018-13379')!.publishedAt).toBe('2019-06-04T20:18:08Z');
  });

  it('converts the affected entries of CVE-2024-6387 and says which it skipped and why', async () => {
    const { records, warnings } = await collect(readCve5, fileStream('cve5', 'CVE-2024-6387.json'));
    expect(records[0]!.configurations).toEqual([
      // CNA #1: packageName OpenSSH, no vendor: any vendor's openssh 8.5p1 ≤ v ≤ 9.7p1.
      single('cpe:2.3:a:*:openssh:*:*:*:*:*:*:*:*', {
        versionStartIncluding: '8.5p1',
        versionEndIncluding: '9.7p1',
      }),
      // Red Hat Ceph Storage 6 and 7: affected by default, no versions: the streams as named.
      single('cpe:2.3:a:redhat:ceph_storage:6:*:*:*:*:*:*:*'),
      single('cpe:2.3:a:redhat:ceph_storage:7:*:*:*:*:*:*:*'),
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^CVE-2024-6387: 8 affected entries were not converted\. /);
    expect(warnings[0]).toContain('CNA affected #2 (Red Hat / Red Hat Enterprise Linux 9, package openssh)');
    expect(warnings[0]).toContain('and 3 more: its cpes name the product stream the package ships in');

    const raw = JSON.parse(readText('cve5', 'CVE-2024-6387.json')) as {
      containers: { cna: { affected: unknown[] } };
    };
    const { skipped } = configurationsFromAffected(raw.containers.cna.affected);
    expect(skipped.map((s) => s.entry)).toEqual([
      '#2 (Red Hat / Red Hat Enterprise Linux 9, package openssh)',
      '#3 (Red Hat / Red Hat Enterprise Linux 9, package openssh)',
      '#4 (Red Hat / Red Hat Enterprise Linux 9.0 Update Services for SAP Solutions, package openssh)',
      '#5 (Red Hat / Red Hat Enterprise Linux 9.2 Extended Update Support, package openssh)',
      '#6 (Red Hat / Red Hat OpenShift Container Platform 4.13, package rhcos)',
      '#7 (Red Hat / Red Hat OpenShift Container Platform 4.14, package rhcos)',
      '#8 (Red Hat / Red Hat OpenShift Container Platform 4.15, package rhcos)',
      '#9 (Red Hat / Red Hat OpenShift Container Platform 4.16, package rhcos)',
    ]);
    // Ceph Storage 5 and RHEL 6, 7, 8 are unaffected by default with no versions: neither converted nor skipped.
    expect(raw.containers.cna.affected).toHaveLength(1 + 2 + 8 + 4);
  });

  it('converts the other records’ affected data (and skips what cannot be)', async () => {
    const { byId, warnings } = await readAll();
    expect(byId.get('CVE-2024-38476')!.configurations).toEqual([
      single('cpe:2.3:a:apache_software_foundation:apache_http_server:*:*:*:*:*:*:*:*', {
        versionStartIncluding: '2.4.0',
        versionEndIncluding: '2.4.59',
      }),
    ]);
    const php = byId.get('CVE-2024-4577')!.configurations;
    expect(php).toHaveLength(4);
    expect(php[0]!.nodes[0]!.cpeMatch).toEqual([
      {
        criteria: 'cpe:2.3:a:php_group:php:*:*:*:*:*:*:*:*',
        vulnerable: true,
        versionStartIncluding: '8.1',
        versionEndExcluding: '8.1.29',
      },
      {
        criteria: 'cpe:2.3:a:php_group:php:*:*:*:*:*:*:*:*',
        vulnerable: true,
        versionStartIncluding: '8.2',
        versionEndExcluding: '8.2.20',
      },
      {
        criteria: 'cpe:2.3:a:php_group:php:*:*:*:*:*:*:*:*',
        vulnerable: true,
        versionStartIncluding: '8.3',
        versionEndExcluding: '8.3.8',
      },
    ]);
    // CISA's ADP entries: the CPE's own version 8.1.0 gives way to the range.
    expect(php[1]).toEqual(
      single('cpe:2.3:a:php_group:php:*:*:*:*:*:*:*:*', {
        versionStartIncluding: '8.1.0',
        versionEndExcluding: '8.1.29',
      }),
    );
    expect(byId.get('CVE-2018-13379')!.configurations).toEqual([]);
    expect(byId.get('CVE-2023-38408')!.configurations).toEqual([]);
    expect(byId.get('CVE-2024-23897')!.configurations).toEqual([]);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^CVE-2018-13379: 1 affected entry was not converted\. .*"FortiOS 6\.0\.0 to 6\.0\.4, .*" is not a version/,
        ),
        expect.stringMatching(/^CVE-2023-38408: .* \(n\/a \/ n\/a\): it names no product/),
        expect.stringMatching(
          /^CVE-2024-23897: 2 affected entries were not converted\. CNA affected #1 \(Jenkins Project \/ Jenkins\), ADP:CISA-ADP affected #1 \(jenkins \/ jenkins\): it is affected by default except in 4 unaffected ranges/,
        ),
      ]),
    );
    expect(warnings).toHaveLength(4);
  });

  it('reads a JSON array of records the same as one file each', async () => {
    const { byId } = await readAll();
    const array = `[${FILES.map((f) => readText('cve5', f)).join(',')}]`;
    const { records, warnings } = await collect(readCve5, textStream(array));
    expect(records).toEqual(FILES.map((f) => byId.get(f.replace('.json', ''))));
    expect(warnings).toHaveLength(4);
  });

  it('reads a rejected record: rejected, its reason as the description', async () => {
    const rejected = {
      dataType: 'CVE_RECORD',
      dataVersion: '5.1',
      cveMetadata: { cveId: 'CVE-2024-0001', state: 'REJECTED', dateUpdated: '2024-02-01T00:00:00' },
      containers: { cna: { rejectedReasons: [{ lang: 'en', value: 'Duplicate of CVE-2024-0002.' }] } },
    };
    const { records } = await collect(readCve5, textStream(JSON.stringify(rejected)));
    expect(records).toEqual([
      {
        id: 'CVE-2024-0001',
        feed: 'cve5',
        status: 'REJECTED',
        rejected: true,
        modifiedAt: '2024-02-01T00:00:00Z',
        description: 'Duplicate of CVE-2024-0002.',
        cvss: [],
        cweIds: [],
        references: [],
        configurations: [],
      },
    ]);
  });

  it('reads CVSS v4.0 and v3.0 metrics and skips an invalid one with a warning', async () => {
    const record = {
      cveMetadata: { cveId: 'CVE-2024-0003', state: 'PUBLISHED' },
      containers: {
        cna: {
          metrics: [
            {
              cvssV4_0: {
                version: '4.0',
                vectorString: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
                baseScore: 9.3,
              },
              cvssV3_0: { version: '3.0', vectorString: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
            },
            { cvssV3_1: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:Q' } },
          ],
        },
      },
    };
    const { records, warnings } = await collect(readCve5, textStream(JSON.stringify(record)));
    expect(records[0]!.cvss).toEqual([
      {
        version: '4.0',
        vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
        baseScore: 9.3,
        source: 'CNA',
      },
      // No prefix, but the field says v3.0: the vector gets its prefix, the score is computed.
      {
        version: '3.0',
        vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
        baseScore: 9.8,
        source: 'CNA',
      },
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^CVE-2024-0003: CNA cvssV3_1 skipped: .*"Q" is not a value of A/),
    ]);
  });
});

describe('CVE 5 affected → configurations', () => {
  const convert = (entry: Record<string, unknown>) => configurationsFromAffected([entry]);

  it('turns a single affected version into an exact CPE version', () => {
    expect(
      convert({
        vendor: 'Example Corp',
        product: 'Widget Server',
        versions: [{ version: '1.2.3', status: 'affected' }],
      }),
    ).toEqual({
      configurations: [single('cpe:2.3:a:example_corp:widget_server:1.2.3:*:*:*:*:*:*:*')],
      skipped: [],
    });
  });

  it('reads "0" as from the first version and "*" as no end', () => {
    const { configurations } = convert({
      vendor: 'v',
      product: 'p',
      versions: [
        { version: '0', lessThan: '2.0', status: 'affected' },
        { version: '3.0', lessThan: '*', status: 'affected' },
      ],
    });
    expect(configurations[0]!.nodes[0]!.cpeMatch).toEqual([
      { criteria: 'cpe:2.3:a:v:p:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '2.0' },
      { criteria: 'cpe:2.3:a:v:p:*:*:*:*:*:*:*:*', vulnerable: true, versionStartIncluding: '3.0' },
    ]);
  });

  it('respects defaultStatus where it can', () => {
    expect(convert({ vendor: 'v', product: 'p', defaultStatus: 'affected' }).configurations).toEqual([
      single('cpe:2.3:a:v:p:*:*:*:*:*:*:*:*'),
    ]);
    expect(
      convert({
        vendor: 'v',
        product: 'p',
        defaultStatus: 'affected',
        versions: [{ version: '2.5', lessThan: '*', status: 'unaffected' }],
      }).configurations,
    ).toEqual([single('cpe:2.3:a:v:p:*:*:*:*:*:*:*:*', { versionEndExcluding: '2.5' })]);
    expect(
      convert({
        vendor: 'v',
        product: 'p',
        defaultStatus: 'affected',
        versions: [{ version: '0', lessThan: '1.4', status: 'unaffected' }],
      }).configurations,
    ).toEqual([single('cpe:2.3:a:v:p:*:*:*:*:*:*:*:*', { versionStartIncluding: '1.4' })]);
    // Unaffected by default and nothing affected: not affected, so nothing to convert and nothing skipped.
    expect(convert({ vendor: 'v', product: 'p', defaultStatus: 'unaffected' })).toEqual({
      configurations: [],
      skipped: [],
    });
    expect(
      convert({ vendor: 'v', product: 'p', versions: [{ version: '1.0', status: 'unaffected' }] }),
    ).toEqual({ configurations: [], skipped: [] });
  });

  it('uses the listed CPEs (2.3 and 2.2 URIs) and skips git commits and wildcard bounds', () => {
    expect(
      convert({
        cpes: ['cpe:/a:example:tool:1.0', 'cpe:2.3:a:example:tool:*:*:*:*:*:*:*:*'],
        versions: [{ version: '1.0', lessThan: '1.5', status: 'affected', versionType: 'semver' }],
      }).configurations[0]!.nodes[0]!.cpeMatch.map((m) => m.criteria),
    ).toEqual(['cpe:2.3:a:example:tool:*:*:*:*:*:*:*:*', 'cpe:2.3:a:example:tool:*:*:*:*:*:*:*:*']);
    expect(
      convert({
        vendor: 'v',
        product: 'p',
        versions: [{ version: 'abc123', lessThan: 'def456', status: 'affected', versionType: 'git' }],
      }).skipped,
    ).toEqual([{ entry: '#1 (v / p)', reason: 'versionType "git" is not a product version' }]);
    expect(
      convert({
        vendor: 'v',
        product: 'p',
        versions: [{ version: '2.0', lessThan: '2.0.*', status: 'affected' }],
      }).skipped,
    ).toEqual([{ entry: '#1 (v / p)', reason: '"2.0.*" is not a version bound' }]);
  });

  it('parses CPE names and refuses what is not one', () => {
    expect(parseCpe('cpe:/o:redhat:enterprise_linux:9::baseos')).toEqual([
      'o',
      'redhat',
      'enterprise_linux',
      '9',
      '*',
      'baseos',
      '*',
      '*',
      '*',
      '*',
      '*',
    ]);
    expect(parseCpe('cpe:2.3:a:vendor:prod\\:uct:1.0:*:*:*:*:*:*:*')?.[2]).toBe('prod\\:uct');
    expect(parseCpe('cpe:2.3:a:too:short')).toBeUndefined();
    expect(parseCpe('cpe:/x:bad:part')).toBeUndefined();
    expect(parseCpe('pkg:npm/lodash@4.17.20')).toBeUndefined();
  });
});

describe('CVE 5 reader on bad input', () => {
  it('fails on truncated JSON with line and column', async () => {
    const text = readText('cve5', 'CVE-2024-6387.json');
    const cut = text.slice(0, Math.floor(text.length / 2));
    const error = await failure(
      (async () => {
        for await (const _ of readFeed('cve5', () => textStream(cut), { warn: () => {} })) {
          // reading
        }
      })(),
    );
    expect(error.message).toMatch(/not valid JSON/);
    expect(error.line).toBe(cut.split('\n').length);
    expect(error.column).toBeGreaterThan(0);
  });

  it('fails clearly on files of another shape', async () => {
    for (const [feed, file] of [
      ['nvd', 'CVE-2024-6387.json'],
      ['osv', 'GHSA-27h2-hvpr-p74q.json'],
      ['kev', 'known_exploited_vulnerabilities.json'],
    ] as const) {
      const error = await failure(collect(readCve5, fileStream(feed, file)));
      expect(error.message).toMatch(/Not a CVE JSON 5 record/);
    }
  });

  it('detects CVE 5 records and nothing else', () => {
    for (const file of FILES) expect(detectCve5(readText('cve5', file).slice(0, 65536))).toBe(1);
    for (const file of intelFiles('nvd')) expect(detectCve5(readText('nvd', file).slice(0, 65536))).toBe(0);
    for (const file of intelFiles('osv')) expect(detectCve5(readText('osv', file).slice(0, 65536))).toBe(0);
    expect(detectCve5(readText('kev', 'known_exploited_vulnerabilities.json').slice(0, 65536))).toBe(0);
  });
});
