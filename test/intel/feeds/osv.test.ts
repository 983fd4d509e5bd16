import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFeed } from '../../../src/intel/feeds/index.js';
import { detectOsv, readOsv } from '../../../src/intel/feeds/osv/osv.js';
import type { OsvAdvisory } from '../../../src/intel/types.js';
import {
  collect,
  FIXTURES,
  failure,
  fileStream,
  intelFiles,
  intelPath,
  readText,
  textStream,
} from './helpers.js';

const FILES = intelFiles('osv');

async function readFixtures(): Promise<Map<string, OsvAdvisory>> {
  const byId = new Map<string, OsvAdvisory>();
  for (const file of FILES) {
    const { records, warnings } = await collect(readOsv, fileStream('osv', file));
    expect(warnings, file).toEqual([]);
    expect(records, file).toHaveLength(1);
    byId.set(records[0]!.id, records[0]!);
  }
  return byId;
}

let fixtures: Promise<Map<string, OsvAdvisory>> | undefined;

/** The fixtures read once for the whole file. */
function readAll(): Promise<Map<string, OsvAdvisory>> {
  fixtures ??= readFixtures();
  return fixtures;
}

describe('OSV reader on the 21 real advisories', () => {
  it('reads every file under the id of its name', async () => {
    const byId = await readAll();
    expect([...byId.keys()].sort()).toEqual(FILES.map((f) => f.replace('.json', '')).sort());
    for (const advisory of byId.values()) {
      expect(advisory.modifiedAt).toMatch(/Z$/);
      expect(advisory.affected.length).toBeGreaterThan(0);
      expect(advisory.withdrawnAt).toBeUndefined();
    }
  });

  it('maps a GHSA advisory: CVSS scored by the CVSS module, GitHub’s severity word, CWEs, ranges', async () => {
    const byId = await readAll();
    const jwt = byId.get('GHSA-27h2-hvpr-p74q')!;
    expect(jwt).toMatchObject({
      aliases: ['CVE-2022-23529'],
      publishedAt: '2022-12-22T03:31:28Z',
      modifiedAt: '2023-01-11T01:15:59Z',
      severity: 'HIGH',
      cweIds: ['CWE-20'],
      cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:L/I:H/A:L', baseScore: 7.6 }],
      affected: [
        {
          ecosystem: 'npm',
          name: 'jsonwebtoken',
          ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '9.0.0' }] }],
          versions: [],
        },
      ],
    });
    expect(jwt.summary).toBeTruthy();
    expect(jwt.details).toBeTruthy();
    expect(byId.get('GHSA-36p3-wjmg-h94x')!.affected).toHaveLength(10);
    expect(byId.get('GHSA-c2qf-rxjj-qqgw')!.severity).toBe('MODERATE');
    // Its `severity` is an empty list: no CVSS, GitHub's word still there.
    expect(byId.get('GHSA-wf5p-g6vw-rhxx')).toMatchObject({
      cvss: [],
      severity: 'MODERATE',
      cweIds: ['CWE-352'],
    });
  });

  it('maps a PYSEC advisory: GIT range with its repo, ECOSYSTEM range, the versions list, purl', async () => {
    const byId = await readAll();
    const requests = byId.get('PYSEC-2018-28')!;
    const raw = JSON.parse(readText('osv', 'PYSEC-2018-28.json')) as { affected: { versions: string[] }[] };
    expect(requests).toMatchObject({
      aliases: ['CVE-2018-18074', 'GHSA-x84v-xcm2-53pg'],
      cvss: [],
      cweIds: [],
      publishedAt: '2018-10-09T17:29:00Z',
      modifiedAt: '2021-06-16T00:03:24.800813Z',
    });
    expect(requests.severity).toBeUndefined();
    expect(requests.affected).toEqual([
      {
        ecosystem: 'PyPI',
        name: 'requests',
        purl: 'pkg:pypi/requests',
        ranges: [
          {
            type: 'GIT',
            repo: 'https://github.com/requests/requests',
            events: [{ introduced: '0' }, { fixed: 'c45d7c49ea75133e52ab22a8e9e13173938e36ff' }],
          },
          { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.20.0' }] },
        ],
        versions: raw.affected[0]!.versions,
      },
    ]);
    expect(requests.affected[0]!.versions).toHaveLength(134);
    expect(byId.get('PYSEC-2023-192')!.cvss).toEqual([
      { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:N', baseScore: 8.1 },
    ]);
    expect(byId.get('PYSEC-2019-16')!.affected[0]!.ranges[0]!.events).toEqual([
      { introduced: '0' },
      { fixed: '1.11.27' },
      { introduced: '2.2' },
      { fixed: '2.2.9' },
    ]);
  });

  it('reads a JSON array of advisories the same as one file each', async () => {
    const byId = await readAll();
    const array = `[${FILES.map((f) => readText('osv', f)).join(',\n')}]`;
    const { records, warnings } = await collect(readOsv, textStream(array));
    expect(warnings).toEqual([]);
    expect(records).toEqual(FILES.map((f) => byId.get(f.replace('.json', ''))));
  });
});

describe('OSV reader on other input', () => {
  it('reads upstream and related as osv.dev writes them for distributions (Debian, Ubuntu)', async () => {
    const debian = intelPath('osv-debian');
    const read = async (dir: string, file: string) => {
      const { records, warnings } = await collect(readOsv, createReadStream(join(dir, file)));
      expect(warnings, file).toEqual([]);
      return records[0]!;
    };
    expect(await read(debian, 'DSA-5454-1.json')).toMatchObject({
      id: 'DSA-5454-1',
      aliases: [],
      upstream: ['CVE-2023-38408'],
      related: [],
    });
    expect(await read(debian, 'DEBIAN-CVE-2024-6387.json')).toMatchObject({
      upstream: ['CVE-2024-6387'],
      related: ['DSA-5724-1'],
    });
    // A USN names its CVEs in related.
    expect((await read(intelPath('osv-ubuntu'), 'USN-6859-1.json')).related).toEqual(['CVE-2024-6387']);
    // Not lists of strings: left out, as aliases are.
    const odd = await collect(
      readOsv,
      textStream(
        JSON.stringify({
          id: 'DSA-1-1',
          modified: '2024-01-01T00:00:00Z',
          upstream: 'CVE-2024-1',
          related: [1, { a: 2 }, 'CVE-2024-2'],
        }),
      ),
    );
    expect(odd.records[0]).toMatchObject({ upstream: [], related: ['CVE-2024-2'] });
  });

  const base = {
    id: 'GHSA-xxxx-yyyy-zzzz',
    modified: '2024-01-01T00:00:00Z',
    aliases: ['CVE-2024-0001', 'GHSA-xxxx-yyyy-zzzz'],
    affected: [
      {
        package: { ecosystem: 'npm', name: 'left-pad' },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
      },
    ],
  };

  it('reads withdrawn advisories, v4 and v2 vectors, and skips what is not valid', async () => {
    const advisory = {
      ...base,
      withdrawn: '2024-02-01T00:00:00Z',
      severity: [
        { type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' },
        { type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
        { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/AV:L' },
        { type: 'Ubuntu', score: 'high' },
      ],
      affected: [
        ...base.affected,
        { ranges: [{ type: 'GIT', events: [{ introduced: 'abc' }] }] },
        { package: { name: 'x' } },
      ],
    };
    const { records, warnings } = await collect(readOsv, textStream(JSON.stringify(advisory)));
    expect(records).toEqual([
      {
        id: 'GHSA-xxxx-yyyy-zzzz',
        aliases: ['CVE-2024-0001'],
        upstream: [],
        related: [],
        modifiedAt: '2024-01-01T00:00:00Z',
        withdrawnAt: '2024-02-01T00:00:00Z',
        cvss: [
          {
            version: '4.0',
            vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
            baseScore: 9.3,
          },
          { version: '2.0', vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', baseScore: 7.5 },
        ],
        cweIds: [],
        references: [],
        affected: [
          {
            ecosystem: 'npm',
            name: 'left-pad',
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
            versions: [],
          },
        ],
      },
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^GHSA-xxxx-yyyy-zzzz: CVSS_V3 skipped: .*The metric AV \(Attack Vector\) is given twice/,
      ),
      'GHSA-xxxx-yyyy-zzzz: 2 affected entries name no package ecosystem and name; skipped.',
    ]);
  });

  it('skips advisories without an id or modified time, and caps references and details', async () => {
    const references = Array.from({ length: 300 }, (_, i) => ({
      type: 'WEB',
      url: `https://example.org/${i}`,
    }));
    const array = [
      { ...base, modified: 'yesterday' },
      { ...base, id: 'PYSEC-2099-1', references, details: 'd'.repeat(40_000) },
    ];
    const { records, warnings } = await collect(readOsv, textStream(JSON.stringify(array)));
    expect(records.map((r) => r.id)).toEqual(['PYSEC-2099-1']);
    expect(records[0]!.references).toHaveLength(200);
    expect(records[0]!.details).toHaveLength(32 * 1024);
    expect(warnings).toEqual([
      'OSV advisory #1 (GHSA-xxxx-yyyy-zzzz) has no valid modified time; skipped.',
      expect.stringMatching(/^PYSEC-2099-1: 1 value\(s\) longer than 32 KiB/),
      'PYSEC-2099-1: 100 references beyond the first 200 were left out.',
    ]);
  });

  it('fails on truncated JSON with line and column', async () => {
    const text = readText('osv', 'PYSEC-2018-28.json');
    const cut = text.slice(0, 700);
    const run = (async () => {
      for await (const _ of readFeed('osv', () => textStream(cut), { warn: () => {} })) {
        // reading
      }
    })();
    const error = await failure(run);
    expect(error.message).toMatch(/not valid JSON/);
    expect(error.line).toBe(cut.split('\n').length);
    expect(error.column).toBeGreaterThan(0);
  });

  it('fails clearly on other files: an OSV-Scanner report, the other feeds', async () => {
    const scanner = await failure(
      collect(readOsv, textStream(readFileSync(join(FIXTURES, 'osv_scanner/many_findings.json')))),
    );
    expect(scanner.message).toMatch(/^Not an OSV advisory/);
    for (const [feed, file] of [
      ['nvd', 'CVE-2024-6387.json'],
      ['cve5', 'CVE-2024-6387.json'],
      ['kev', 'known_exploited_vulnerabilities.json'],
    ] as const) {
      const error = await failure(collect(readOsv, fileStream(feed, file)));
      expect(error.message, file).toMatch(/^Not an OSV advisory/);
    }
  });

  it('detects advisories but not OSV-Scanner reports or the other feeds', () => {
    for (const file of FILES)
      expect(detectOsv(readText('osv', file).slice(0, 65536)), file).toBeGreaterThanOrEqual(0.85);
    expect(
      detectOsv(readFileSync(join(FIXTURES, 'osv_scanner/many_findings.json'), 'utf8').slice(0, 65536)),
    ).toBe(0);
    for (const feed of ['nvd', 'cve5'])
      for (const file of intelFiles(feed))
        expect(detectOsv(readText(feed, file).slice(0, 65536)), file).toBe(0);
    expect(detectOsv(readText('kev', 'known_exploited_vulnerabilities.json').slice(0, 65536))).toBe(0);
  });
});
