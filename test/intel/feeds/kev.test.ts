import { describe, expect, it } from 'vitest';
import { readFeed } from '../../../src/intel/feeds/index.js';
import { detectKev, readKev } from '../../../src/intel/feeds/kev/kev.js';
import type { KevEntry } from '../../../src/intel/types.js';
import { collect, failure, fileStream, intelFiles, readText, textStream } from './helpers.js';

const CATALOGUE = 'known_exploited_vulnerabilities.json';

function catalogue(entries: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: '2099.01.01',
    dateReleased: '2099-01-01T00:00:00.000Z',
    count: entries.length,
    ...extra,
    vulnerabilities: entries,
  });
}

const ENTRY = {
  cveID: 'CVE-2024-0001',
  vendorProject: 'Example',
  product: 'Widget',
  vulnerabilityName: 'Example Widget Vulnerability',
  dateAdded: '2024-01-01',
  shortDescription: 'A flaw.',
  requiredAction: 'Apply updates.',
  dueDate: '2024-01-22',
  knownRansomwareCampaignUse: 'Unknown',
  notes: '',
  cwes: ['CWE-79'],
};

describe('KEV reader on the full catalogue', () => {
  it('reads all 1,404 entries and the header before the first entry', async () => {
    const events: string[] = [];
    const entries: KevEntry[] = [];
    for await (const entry of readKev(fileStream('kev', CATALOGUE), {
      warn: (m) => events.push(`warn ${m}`),
      onHeader: (h) => events.push(`header ${JSON.stringify(h)}`),
    })) {
      if (entries.length === 0) events.push('first entry');
      entries.push(entry);
    }
    expect(entries).toHaveLength(1404);
    expect(events).toEqual([
      `header ${JSON.stringify({
        feed: 'kev',
        catalogVersion: '2025.08.25',
        dateReleased: '2025-08-25T17:04:19.9796Z',
        count: 1404,
        title: 'CISA Catalog of Known Exploited Vulnerabilities',
      })}`,
      'first entry',
    ]);
    expect(new Set(entries.map((e) => e.cveId)).size).toBe(1404);
    expect(entries.filter((e) => e.knownRansomwareUse)).toHaveLength(293);
    for (const entry of entries) {
      expect(entry.cveId).toMatch(/^CVE-\d{4}-\d{4,}$/);
      expect(entry.dateAdded).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(entry.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      for (const cwe of entry.cweIds) expect(cwe).toMatch(/^CWE-\d+$/);
    }
  });

  it('maps every field of an entry (CVE-2021-44228)', async () => {
    const { records } = await collect(readKev, fileStream('kev', CATALOGUE));
    expect(records.find((e) => e.cveId === 'CVE-2021-44228')).toEqual({
      cveId: 'CVE-2021-44228',
      vendor: 'Apache',
      product: 'Log4j2',
      name: 'Apache Log4j2 Remote Code Execution Vulnerability',
      description:
        'Apache Log4j2 contains a vulnerability where JNDI features do not protect against attacker-controlled JNDI-related endpoints, allowing for remote code execution.',
      dateAdded: '2021-12-10',
      dueDate: '2021-12-24',
      requiredAction:
        'For all affected software assets for which updates exist, the only acceptable remediation actions are: 1) Apply updates; OR 2) remove affected assets from agency networks. Temporary mitigations using one of the measures provided at https://www.cisa.gov/uscert/ed-22-02-apache-log4j-recommended-mitigation-measures are only acceptable until updates are available.',
      knownRansomwareUse: true,
      notes: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44228',
      cweIds: ['CWE-20', 'CWE-400', 'CWE-502'],
    });
    const first = records[0]!;
    expect(first).toMatchObject({
      cveId: 'CVE-2025-48384',
      knownRansomwareUse: false,
      cweIds: ['CWE-59', 'CWE-436'],
    });
    // JSON's "\/" escapes come out as plain slashes.
    expect(first.notes).toContain('https://github.com/git/git/security/advisories/GHSA-vwqx-4fm8-6qc9');
  });

  it('agrees with the NVD records about which CVEs are in KEV', async () => {
    const { records } = await collect(readKev, fileStream('kev', CATALOGUE));
    const inKev = new Set(records.map((e) => e.cveId));
    for (const id of ['CVE-2021-41773', 'CVE-2024-4577', 'CVE-2017-0144'])
      expect(inKev.has(id), id).toBe(true);
    for (const id of ['CVE-2024-6387', 'CVE-2015-3306', 'CVE-2011-2523'])
      expect(inKev.has(id), id).toBe(false);
  });
});

describe('KEV reader on other input', () => {
  it('announces a header written after the entries at the end', async () => {
    const text = `{"vulnerabilities":[${JSON.stringify(ENTRY)}],"catalogVersion":"2099.01.01","dateReleased":"2099-01-01T00:00:00Z","count":1}`;
    const { records, headers, warnings } = await collect(readKev, textStream(text));
    expect(records).toHaveLength(1);
    expect(headers).toEqual([
      { feed: 'kev', catalogVersion: '2099.01.01', dateReleased: '2099-01-01T00:00:00Z', count: 1 },
    ]);
    expect(warnings).toEqual([]);
  });

  it('skips entries without a required field and reports a count that does not match', async () => {
    const { cveID: _, ...noId } = ENTRY;
    const entries = [
      ENTRY,
      noId,
      { ...ENTRY, cveID: 'CVE-2024-0002', dueDate: 'soon' },
      { ...ENTRY, cveID: 'CVE-2024-0003' },
    ];
    const { records, warnings } = await collect(readKev, textStream(catalogue(entries, { count: 10 })));
    expect(records.map((e) => e.cveId)).toEqual(['CVE-2024-0001', 'CVE-2024-0003']);
    expect(warnings).toEqual([
      'KEV entry #2 lacks cveId; skipped.',
      'KEV entry #3 (CVE-2024-0002) lacks dueDate; skipped.',
      'The KEV catalogue says it has 10 entries; 4 were read.',
    ]);
  });

  it('cuts an oversized description and ignores nested junk in an entry', async () => {
    const junk = {
      ...ENTRY,
      shortDescription: 'y'.repeat(50_000),
      extra: { deep: [[[1, 2, 3]]] },
      cwes: ['CWE-79', 'nope', 7],
    };
    const { records, warnings } = await collect(readKev, textStream(catalogue([junk])));
    expect(records[0]!.description).toHaveLength(32 * 1024);
    expect(records[0]!.cweIds).toEqual(['CWE-79']);
    expect(warnings).toEqual([expect.stringMatching(/^CVE-2024-0001: 1 value\(s\) longer than 32 KiB/)]);
  });

  it('fails on truncated JSON with line and column', async () => {
    const text = readText('kev', CATALOGUE);
    const cut = text.slice(0, 200_000);
    const run = (async () => {
      for await (const _ of readFeed('kev', () => textStream(cut), { warn: () => {} })) {
        // reading
      }
    })();
    const error = await failure(run);
    expect(error.message).toMatch(/not valid JSON/);
    expect(error.line).toBe(cut.split('\n').length);
  });

  it('fails clearly on other files, the catalogue’s own schema included', async () => {
    for (const [feed, file] of [
      ['kev', 'known_exploited_vulnerabilities_schema.json'],
      ['nvd', 'CVE-2024-6387.json'],
      ['osv', 'GHSA-27h2-hvpr-p74q.json'],
      ['cve5', 'CVE-2024-6387.json'],
    ] as const) {
      const error = await failure(collect(readKev, fileStream(feed, file)));
      expect(error.message, file).toMatch(/Not a CISA KEV catalogue/);
    }
    const csv = await failure(collect(readKev, fileStream('epss', 'epss_scores-subset.csv')));
    expect(csv.message).toMatch(/not valid JSON/);
  });

  it('detects the catalogue, not its schema nor the other feeds', () => {
    expect(detectKev(readText('kev', CATALOGUE).slice(0, 65536))).toBe(1);
    expect(detectKev(readText('kev', 'known_exploited_vulnerabilities_schema.json').slice(0, 65536))).toBe(0);
    for (const feed of ['nvd', 'cve5', 'osv'])
      for (const file of intelFiles(feed))
        expect(detectKev(readText(feed, file).slice(0, 65536)), file).toBe(0);
  });
});
