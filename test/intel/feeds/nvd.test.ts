import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readFeed } from '../../../src/intel/feeds/index.js';
import { detectNvd, readNvd } from '../../../src/intel/feeds/nvd/nvd.js';
import type { FeedHeader } from '../../../src/intel/feeds/types.js';
import type { CveRecord } from '../../../src/intel/types.js';
import { TRUNCATION_MARK } from '../../../src/parsing/text-cut.js';
import { collect, failure, fileStream, intelFiles, readText, textStream } from './helpers.js';

const FILES = intelFiles('nvd');

async function readFixtures(): Promise<Map<string, CveRecord>> {
  const byId = new Map<string, CveRecord>();
  for (const file of FILES) {
    const { records, warnings } = await collect(readNvd, fileStream('nvd', file));
    expect(warnings, file).toEqual([]);
    expect(records, file).toHaveLength(1);
    byId.set(records[0]!.id, records[0]!);
  }
  return byId;
}

let fixtures: Promise<Map<string, CveRecord>> | undefined;

/** The fixtures read once for the whole file. */
function readAll(): Promise<Map<string, CveRecord>> {
  fixtures ??= readFixtures();
  return fixtures;
}

function bareCve(file: string): Record<string, unknown> {
  return JSON.parse(readText('nvd', file)) as Record<string, unknown>;
}

function page(cves: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify(
    {
      resultsPerPage: cves.length,
      startIndex: 0,
      totalResults: cves.length,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp: '2026-11-21T10:00:00.000',
      ...extra,
      vulnerabilities: cves.map((cve) => ({ cve })),
    },
    null,
    2,
  );
}

function minimalCve(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    sourceIdentifier: 'test@example.org',
    published: '2024-01-01T00:00:00.000',
    lastModified: '2024-01-02T00:00:00.000',
    vulnStatus: 'Analyzed',
    descriptions: [{ lang: 'en', value: 'A test record.' }],
    metrics: {},
    references: [],
    ...extra,
  };
}

describe('NVD reader on the 41 real records (bare cve objects)', () => {
  it('reads every record, each under the id of its file, without a warning', async () => {
    const byId = await readAll();
    expect(byId.size).toBe(41);
    expect([...byId.keys()].sort()).toEqual(FILES.map((f) => f.replace('.json', '')).sort());
    for (const record of byId.values()) {
      expect(record.feed).toBe('nvd');
      expect(record.description).toBeTruthy();
      expect(record.publishedAt).toMatch(/Z$/);
    }
  });

  it('CVE-2024-6387: configurations, CVSS 3.1 8.1, CWEs, deduplicated references', async () => {
    const { records } = await collect(readNvd, fileStream('nvd', 'CVE-2024-6387.json'));
    const cve = records[0]!;
    expect(cve).toMatchObject({
      id: 'CVE-2024-6387',
      status: 'Modified',
      rejected: false,
      publishedAt: '2024-07-01T13:15:06.467Z',
      modifiedAt: '2024-07-09T06:15:03.513Z',
      cweIds: ['CWE-362', 'CWE-364'],
    });
    expect(cve.description).toMatch(/^A security regression \(CVE-2006-5051\)/);
    expect(cve.cvss).toEqual([
      {
        version: '3.1',
        vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
        baseScore: 8.1,
        source: 'nvd@nist.gov',
        type: 'Primary',
      },
      {
        version: '3.1',
        vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
        baseScore: 8.1,
        source: 'secalert@redhat.com',
        type: 'Secondary',
      },
    ]);
    const raw = bareCve('CVE-2024-6387.json') as { configurations: { nodes: { cpeMatch: unknown[] }[] }[] };
    expect(cve.configurations).toHaveLength(raw.configurations.length);
    expect(cve.configurations[0]).toEqual({
      operator: 'OR',
      negate: false,
      nodes: [
        {
          operator: 'OR',
          negate: false,
          cpeMatch: [
            {
              criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
              vulnerable: true,
              versionEndExcluding: '4.4',
              matchCriteriaId: '1102FFF5-77B1-400E-93F8-AC6CFE2CC93C',
            },
            {
              criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
              vulnerable: true,
              versionStartIncluding: '8.6',
              versionEndExcluding: '9.8',
              matchCriteriaId: 'EC13B91D-82A4-48B1-83AB-EC129C83D316',
            },
            {
              criteria: 'cpe:2.3:a:openbsd:openssh:4.4:-:*:*:*:*:*:*',
              vulnerable: true,
              matchCriteriaId: '4C37CBBB-A4AA-40D0-9609-0620FDC12BA8',
            },
            {
              criteria: 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*',
              vulnerable: true,
              matchCriteriaId: '7945F60B-460E-4CA6-9EB4-BEE663386D50',
            },
            {
              criteria: 'cpe:2.3:a:openbsd:openssh:9.8:-:*:*:*:*:*:*',
              vulnerable: true,
              matchCriteriaId: 'BF2C0441-653D-4BD3-A45D-D97C929A596F',
            },
          ],
        },
      ],
    });
    const matches = cve.configurations.flatMap((c) => c.nodes.flatMap((n) => n.cpeMatch));
    const rawMatches = raw.configurations.flatMap((c) => c.nodes.flatMap((n) => n.cpeMatch));
    expect(matches).toHaveLength(rawMatches.length);
    expect(cve.references).toHaveLength(new Set(cve.references).size);
    expect(cve.references).toContain('https://www.openssh.com/txt/release-9.8');
  });

  it('CVE-2022-23529 is rejected, with no metrics, configurations or CWEs', async () => {
    const { records } = await collect(readNvd, fileStream('nvd', 'CVE-2022-23529.json'));
    expect(records[0]).toEqual({
      id: 'CVE-2022-23529',
      feed: 'nvd',
      status: 'Rejected',
      rejected: true,
      publishedAt: '2022-12-21T21:15:09.130Z',
      modifiedAt: '2023-01-27T22:15:08.253Z',
      description:
        '** REJECT ** DO NOT USE THIS CANDIDATE NUMBER. ConsultIDs: none. Reason: The issue is not a vulnerability. Notes: none.',
      cvss: [],
      cweIds: [],
      references: [],
      configurations: [],
    });
  });

  it('CVE-2024-38476 (Awaiting Analysis) has no configurations and no metrics, one CWE and one reference', async () => {
    const byId = await readAll();
    expect(byId.get('CVE-2024-38476')).toMatchObject({
      status: 'Awaiting Analysis',
      rejected: false,
      cvss: [],
      configurations: [],
      cweIds: ['CWE-829'],
      references: ['https://httpd.apache.org/security/vulnerabilities_24.html'],
    });
  });

  it('reads v2-only, v3.0-only and ADP-only v3.1 metrics', async () => {
    const byId = await readAll();
    expect(byId.get('CVE-2004-2687')!.cvss.map((m) => m.version)).toEqual(['2.0']);
    expect(byId.get('CVE-2004-2687')!.cvss[0]).toMatchObject({
      vector: 'AV:N/AC:M/Au:N/C:C/I:C/A:C',
      baseScore: 9.3,
    });
    expect(byId.get('CVE-2019-9193')!.cvss.map((m) => `${m.version} ${m.baseScore}`)).toEqual([
      '3.0 7.2',
      '2.0 9',
    ]);
    expect(byId.get('CVE-2015-1635')!.cvss.filter((m) => m.version === '3.1')).toEqual([
      expect.objectContaining({
        type: 'Secondary',
        source: '134c704f-9b21-4f2e-91b3-4a467353bcc0',
        baseScore: 9.8,
      }),
    ]);
  });

  it('keeps AND configurations with their non-vulnerable platform nodes', async () => {
    const byId = await readAll();
    const iis = byId.get('CVE-2017-7269')!.configurations;
    expect(iis).toEqual([
      {
        operator: 'AND',
        negate: false,
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              {
                criteria: 'cpe:2.3:a:microsoft:internet_information_services:6.0:*:*:*:*:*:*:*',
                vulnerable: true,
                matchCriteriaId: '9B4DF95D-B4B1-4FB6-9D27-A6D359EEACFA',
              },
            ],
          },
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [
              {
                criteria: 'cpe:2.3:o:microsoft:windows_server_2003:r2:*:*:*:*:*:*:*',
                vulnerable: false,
                matchCriteriaId: '23C65B29-89C4-4C05-BD53-27CAD31810A1',
              },
            ],
          },
        ],
      },
    ]);
  });

  it('leaves out NVD-CWE-Other / NVD-CWE-noinfo and removes repeated references', async () => {
    const byId = await readAll();
    for (const record of byId.values()) for (const cwe of record.cweIds) expect(cwe).toMatch(/^CWE-\d+$/);
    const samba = bareCve('CVE-2007-2447.json') as { references: { url: string }[] };
    expect(samba.references).toHaveLength(112);
    expect(byId.get('CVE-2007-2447')!.references).toHaveLength(
      new Set(samba.references.map((r) => r.url)).size,
    );
    expect(byId.get('CVE-2007-2447')!.references).toHaveLength(55);
  });

  it('reads the CISA KEV fields, SSVC and CVE tags', async () => {
    const byId = await readAll();
    expect(byId.get('CVE-2021-41773')!.kev).toEqual({
      dateAdded: '2021-11-03',
      dueDate: '2021-11-17',
      name: 'Apache HTTP Server Path Traversal Vulnerability',
      requiredAction: 'Apply updates per vendor instructions.',
    });
    expect(byId.get('CVE-2015-3306')!.kev?.dateAdded).toBe('2026-10-08');
    expect([...byId.values()].filter((r) => r.kev)).toHaveLength(18);
    expect(byId.get('CVE-2015-3306')!.ssvc).toEqual({
      exploitation: 'active',
      automatable: 'no',
      technicalImpact: 'total',
      timestamp: '2026-10-08T17:40:17.854858Z',
    });
    expect(byId.get('CVE-2019-9193')!.tags).toEqual(['disputed']);
  });
});

describe('NVD reader on an API 2.0 result page', () => {
  const SOME = ['CVE-2024-6387.json', 'CVE-2022-23529.json', 'CVE-2024-38476.json', 'CVE-2017-7269.json'];

  it('reads a page built from several records exactly as the bare records, header first', async () => {
    const bare: CveRecord[] = [];
    for (const file of SOME) bare.push(...(await collect(readNvd, fileStream('nvd', file))).records);
    const events: string[] = [];
    const read = readNvd(textStream(page(SOME.map(bareCve))), {
      warn: (m) => events.push(`warn ${m}`),
      onHeader: (h) => events.push(`header ${JSON.stringify(h)}`),
    });
    const records: CveRecord[] = [];
    for await (const record of read) {
      events.push(`record ${record.id}`);
      records.push(record);
    }
    expect(records).toEqual(bare);
    const header: FeedHeader = {
      feed: 'nvd',
      resultsPerPage: 4,
      startIndex: 0,
      totalResults: 4,
      timestamp: '2026-11-21T10:00:00.000',
    };
    expect(events[0]).toBe(`header ${JSON.stringify(header)}`);
    expect(events.slice(1)).toEqual(bare.map((r) => `record ${r.id}`));
  });

  it('reads a gzip page (the yearly feeds) the same', async () => {
    const text = page(SOME.map(bareCve));
    const plain = await collect(readNvd, textStream(text));
    const packed = await collect(readNvd, textStream(gzipSync(text)));
    expect(packed.records).toEqual(plain.records);
  });

  it('reads an empty page without complaint', async () => {
    const { records, headers } = await collect(readNvd, textStream(page([])));
    expect(records).toEqual([]);
    expect(headers).toEqual([expect.objectContaining({ feed: 'nvd', totalResults: 0 })]);
  });

  it('streams: the first record comes out long before a 2,000-record page has been produced', async () => {
    const template = bareCve('CVE-2023-25690.json');
    const total = 2000;
    let produced = 0;
    async function* pageText(): AsyncGenerator<Buffer> {
      yield Buffer.from(
        '{"resultsPerPage":2000,"startIndex":0,"totalResults":2000,"format":"NVD_CVE","version":"2.0","vulnerabilities":[',
      );
      for (let i = 0; i < total; i += 1) {
        produced += 1;
        const cve = { ...template, id: `CVE-2024-${String(100000 + i)}` };
        yield Buffer.from(`${i > 0 ? ',' : ''}{"cve":${JSON.stringify(cve)}}`);
      }
      yield Buffer.from(']}');
    }
    let producedAtFirst = -1;
    let count = 0;
    for await (const record of readNvd(Readable.from(pageText()), { warn: () => {} })) {
      if (count === 0) producedAtFirst = produced;
      count += 1;
      expect(record.configurations.length).toBeGreaterThan(0);
    }
    expect(count).toBe(total);
    expect(producedAtFirst).toBeGreaterThan(0);
    expect(producedAtFirst).toBeLessThan(100);
  });
});

describe('NVD reader on bad input', () => {
  it('fails on truncated JSON with the line and column when the file can be reopened', async () => {
    const text = readText('nvd', 'CVE-2024-6387.json');
    const cut = text.slice(0, 5000);
    const error = await failure(
      collect((_input, options) => readFeed('nvd', () => textStream(cut), options), textStream('')),
    );
    expect(error.message).toMatch(/not valid JSON/);
    const lines = cut.split('\n');
    expect(error.line).toBe(lines.length);
    expect(error.column).toBeGreaterThan(0);
    // Without a way to reopen the file, the error says what but not where.
    const bare = await failure(collect(readNvd, textStream(cut)));
    expect(bare.message).toMatch(/not valid JSON/);
    expect(bare.line).toBeUndefined();
  });

  it('fails clearly on files of the wrong shape', async () => {
    const kev = await failure(collect(readNvd, fileStream('kev', 'known_exploited_vulnerabilities.json')));
    expect(kev.message).toMatch(/Not an NVD CVE API 2\.0 file/);
    const cve5 = await failure(collect(readNvd, fileStream('cve5', 'CVE-2024-6387.json')));
    expect(cve5.message).toMatch(/Not an NVD CVE API 2\.0 file/);
    const array = await failure(collect(readNvd, textStream('[1, 2, 3]')));
    expect(array.message).toMatch(/Not an NVD CVE API 2\.0 file/);
    const legacy = await failure(
      collect(readNvd, textStream('{"CVE_data_type":"CVE","CVE_data_format":"MITRE","CVE_Items":[]}')),
    );
    expect(legacy.message).toMatch(/NVD 1\.1 JSON feed/);
    const format = await failure(
      collect(readNvd, textStream(page([minimalCve('CVE-2024-0001')], { format: 'OTHER' }))),
    );
    expect(format.message).toMatch(/format is "OTHER"/);
    const noId = await failure(collect(readNvd, textStream(JSON.stringify({ vulnStatus: 'Analyzed' }))));
    expect(noId.message).toMatch(/Not an NVD CVE API 2\.0 file/);
  });

  it('fails clearly on gzip garbage', async () => {
    const garbage = Buffer.concat([
      Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
      Buffer.from('this is not deflate data'),
    ]);
    const error = await failure(collect(readNvd, textStream(garbage)));
    expect(error.message).toMatch(/Not a readable gzip file/);
  });

  it('skips (with a warning) page records without an id and metrics whose vector is not valid', async () => {
    const bad = minimalCve('CVE-2024-0002', {
      metrics: {
        cvssMetricV31: [
          {
            source: 'x',
            type: 'Primary',
            cvssData: {
              version: '3.1',
              vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H',
              baseScore: 9,
            },
          },
          {
            source: 'y',
            type: 'Secondary',
            cvssData: {
              version: '3.1',
              vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
              baseScore: 9.8,
            },
          },
        ],
      },
    });
    const { records, warnings } = await collect(readNvd, textStream(page([{ vulnStatus: 'Analyzed' }, bad])));
    expect(records.map((r) => r.id)).toEqual(['CVE-2024-0002']);
    expect(records[0]!.cvss).toEqual([
      {
        version: '3.1',
        vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
        baseScore: 9.8,
        source: 'y',
        type: 'Secondary',
      },
    ]);
    expect(warnings).toEqual([
      'NVD record #1 has no CVE id; skipped.',
      expect.stringMatching(
        /^CVE-2024-0002: cvssMetricV31 skipped: .*misses the mandatory metric A \(Availability Impact\)/,
      ),
    ]);
  });

  it('cuts an oversized description at 32 KiB and says so', async () => {
    const long = 'x'.repeat(100_000);
    const { records, warnings } = await collect(
      readNvd,
      textStream(
        JSON.stringify(minimalCve('CVE-2024-0003', { descriptions: [{ lang: 'en', value: long }] })),
      ),
    );
    expect(records[0]!.description).toHaveLength(32 * 1024);
    expect(records[0]!.description!.endsWith(TRUNCATION_MARK)).toBe(true);
    expect(warnings).toEqual([
      expect.stringMatching(/^CVE-2024-0003: 1 value\(s\) longer than 32 KiB were cut/),
    ]);
  });

  it('keeps at most 200 references and caps long lists while they stream', async () => {
    const references = Array.from({ length: 5000 }, (_, i) => ({
      url: `https://example.org/${i}`,
      source: 's',
    }));
    const cpeMatch = Array.from({ length: 25_000 }, (_, i) => ({
      vulnerable: true,
      criteria: `cpe:2.3:a:example:product:${i}:*:*:*:*:*:*:*`,
    }));
    const cve = minimalCve('CVE-2024-0004', {
      references,
      configurations: [{ nodes: [{ operator: 'OR', negate: false, cpeMatch }] }],
    });
    const { records, warnings } = await collect(readNvd, textStream(JSON.stringify(cve)));
    expect(records[0]!.references).toHaveLength(200);
    expect(records[0]!.references[0]).toBe('https://example.org/0');
    expect(records[0]!.configurations[0]!.nodes[0]!.cpeMatch).toHaveLength(20_000);
    expect(warnings).toEqual(
      expect.arrayContaining([
        'CVE-2024-0004: 4000 "references" entries beyond the cap were left out.',
        'CVE-2024-0004: 5000 "cpeMatch" entries beyond the cap were left out.',
        'CVE-2024-0004: 800 references beyond the first 200 were left out.',
      ]),
    );
  });

  it('normalises a configuration without operator or negate and drops criteria that are not CPE 2.3', async () => {
    const cve = minimalCve('CVE-2024-0005', {
      configurations: [
        {
          nodes: [
            {
              cpeMatch: [
                { vulnerable: true, criteria: 'cpe:2.3:a:example:product:1.0:*:*:*:*:*:*:*' },
                { vulnerable: true, criteria: 'not a cpe' },
                { criteria: { nested: 'object' } },
              ],
            },
          ],
        },
        { nodes: [{ operator: 'OR', cpeMatch: [] }] },
      ],
    });
    const { records } = await collect(readNvd, textStream(JSON.stringify(cve)));
    expect(records[0]!.configurations).toEqual([
      {
        operator: 'OR',
        negate: false,
        nodes: [
          {
            operator: 'OR',
            negate: false,
            cpeMatch: [{ criteria: 'cpe:2.3:a:example:product:1.0:*:*:*:*:*:*:*', vulnerable: true }],
          },
        ],
      },
    ]);
  });

  it('is not led astray by __proto__ keys', async () => {
    const text = `{"id":"CVE-2024-0006","metrics":{"__proto__":[{"polluted":true}]},"__proto__":{"polluted":true},"configurations":[{"__proto__":{"polluted":true},"nodes":[]}]}`;
    const { records } = await collect(readNvd, textStream(text));
    expect(records[0]!.id).toBe('CVE-2024-0006');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('detectNvd', () => {
  it('claims bare records and pages, and nothing else of the intel fixtures', () => {
    for (const file of FILES)
      expect(detectNvd(readText('nvd', file).slice(0, 65536)), file).toBeGreaterThanOrEqual(0.9);
    expect(detectNvd(page([minimalCve('CVE-2024-0001')]))).toBe(1);
    expect(detectNvd(readText('kev', 'known_exploited_vulnerabilities.json').slice(0, 65536))).toBe(0);
    for (const file of intelFiles('cve5')) expect(detectNvd(readText('cve5', file).slice(0, 65536))).toBe(0);
    for (const file of intelFiles('osv')) expect(detectNvd(readText('osv', file).slice(0, 65536))).toBe(0);
    expect(detectNvd(readText('epss', 'epss_scores-subset.csv').slice(0, 65536))).toBe(0);
    expect(detectNvd('{"CVE_data_type":"CVE","CVE_data_format":"MITRE","CVE_Items":[]}')).toBe(0);
  });

  it('reads a fixture through the dispatcher', async () => {
    const records: CveRecord[] = [];
    for await (const r of readFeed('nvd', fileStream('nvd', 'CVE-2024-6387.json'), { warn: () => {} }))
      records.push(r);
    expect(records.map((r) => r.id)).toEqual(['CVE-2024-6387']);
  });
});
