import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detectEpss, readEpss } from '../../../src/intel/feeds/epss/epss.js';
import { collect, FIXTURES, failure, fileStream, intelFiles, readText, textStream } from './helpers.js';

const FIRST = 'epss_scores-subset.csv';
const VERBATIM = 'EMBA_EPSS_CVE_data-subset.verbatim.csv';

describe('EPSS reader on the two real files', () => {
  it('reads the FIRST layout: 1,444 rows, model and date from the comment line', async () => {
    const { records, warnings, headers } = await collect(readEpss, fileStream('epss', FIRST));
    expect(warnings).toEqual([]);
    expect(headers).toEqual([{ feed: 'epss', modelVersion: 'unknown', scoreDate: '2026-08-16' }]);
    expect(records).toHaveLength(1444);
    const byId = new Map(records.map((r) => [r.cveId, r]));
    expect(byId.size).toBe(1444);
    expect(byId.get('CVE-2021-44228')).toEqual({
      cveId: 'CVE-2021-44228',
      score: 0.99999,
      percentile: 1,
      scoreDate: '2026-08-16',
    });
    expect(byId.get('CVE-2004-2687')).toEqual({
      cveId: 'CVE-2004-2687',
      score: 0.88195,
      percentile: 0.99754,
      scoreDate: '2026-08-16',
    });
    expect(byId.get('CVE-2024-6387')).toMatchObject({ score: 0.99506, percentile: 0.99942 });
    expect(records[0]!.cveId).toBe('CVE-2002-0367');
    expect(records.at(-1)!.cveId).toBe('CVE-2025-54948');
    // The rejected CVE-2022-23529 has no score.
    expect(byId.has('CVE-2022-23529')).toBe(false);
  });

  it('reads the verbatim semicolon rows without a header: the same 1,444 scores, no date', async () => {
    const first = await collect(readEpss, fileStream('epss', FIRST));
    const verbatim = await collect(readEpss, fileStream('epss', VERBATIM));
    expect(verbatim.warnings).toEqual([]);
    expect(verbatim.headers).toEqual([{ feed: 'epss' }]);
    expect(verbatim.records).toHaveLength(1444);
    expect(verbatim.records).toEqual(first.records.map(({ scoreDate: _, ...rest }) => rest));
  });

  it('reads a gzip file while it streams', async () => {
    const packed = gzipSync(readFileSync(join(FIXTURES, 'intel', 'epss', FIRST)));
    const plain = await collect(readEpss, fileStream('epss', FIRST));
    const unpacked = await collect(readEpss, textStream(packed));
    expect(unpacked.records).toEqual(plain.records);
    expect(unpacked.headers).toEqual(plain.headers);
  });

  it('reads FIRST’s current layout with the model version, columns by name', async () => {
    const text = [
      '#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000',
      'percentile,cve,epss',
      '0.91370,CVE-2002-0367,0.04919',
      '0.99754,cve-2004-2687,0.88195',
      '',
    ].join('\r\n');
    const { records, headers } = await collect(readEpss, textStream(text));
    expect(headers).toEqual([{ feed: 'epss', modelVersion: 'v2025.03.14', scoreDate: '2026-08-16' }]);
    expect(records).toEqual([
      { cveId: 'CVE-2002-0367', score: 0.04919, percentile: 0.9137, scoreDate: '2026-08-16' },
      { cveId: 'CVE-2004-2687', score: 0.88195, percentile: 0.99754, scoreDate: '2026-08-16' },
    ]);
  });
});

describe('EPSS reader on bad input', () => {
  it('skips bad rows with their line numbers, and counts past the first five', async () => {
    const lines = [
      '#model_version:v2025.03.14,score_date:2026-08-16T00:00:00+0000',
      'cve,epss,percentile',
      'CVE-2024-0001,0.5,0.6',
      'not-a-cve,0.5,0.6',
      'CVE-2024-0002,1.5,0.6',
      'CVE-2024-0003,0.5',
      'CVE-2024-0004,abc,0.6',
      'CVE-2024-0005,0.5,-0.1',
      'CVE-2024-0006,0.5,NaN',
      'CVE-2024-0007,0.1,0.2',
    ];
    const { records, warnings } = await collect(readEpss, textStream(lines.join('\n')));
    expect(records.map((r) => r.cveId)).toEqual(['CVE-2024-0001', 'CVE-2024-0007']);
    expect(warnings).toEqual([
      'EPSS line 4: "not-a-cve" is not a CVE id; the row was skipped.',
      'EPSS line 5: the EPSS score "1.5" is not a number from 0 to 1; the row was skipped.',
      'EPSS line 6: the percentile "(nothing)" is not a number from 0 to 1; the row was skipped.',
      'EPSS line 7: the EPSS score "abc" is not a number from 0 to 1; the row was skipped.',
      'EPSS line 8: the percentile "-0.1" is not a number from 0 to 1; the row was skipped.',
      '1 more: EPSS rows that are not valid were skipped.',
    ]);
  });

  it('fails clearly on a CSV that is not EPSS (a Nessus export)', async () => {
    const error = await failure(
      collect(readEpss, textStream(readFileSync(join(FIXTURES, 'tenable/nessus/nessus_new.csv')))),
    );
    expect(error.message).toMatch(/^Not an EPSS CSV file: its first row is "age_in_days;asset.display_fqdn;/);
    expect(error.line).toBe(1);
  });

  it('fails clearly on JSON, empty files, binary data and the 2021 layout', async () => {
    const json = await failure(collect(readEpss, fileStream('kev', 'known_exploited_vulnerabilities.json')));
    expect(json.message).toMatch(/^Not an EPSS CSV file/);
    const empty = await failure(collect(readEpss, textStream('')));
    expect(empty.message).toMatch(/empty/);
    const comments = await failure(collect(readEpss, textStream('#model_version:v1\n\n')));
    expect(comments.message).toMatch(/only comments/);
    const binary = await failure(
      collect(readEpss, textStream(Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 10, 0, 0]))),
    );
    expect(binary.message).toMatch(/^Not an EPSS CSV file/);
    const v1 = await failure(collect(readEpss, textStream('cve,epss\nCVE-2021-44228,0.97\n')));
    expect(v1.message).toMatch(/no percentile column/);
  });

  it('fails clearly on gzip garbage and on a gzip file cut short', async () => {
    const garbage = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('definitely not deflate')]);
    const error = await failure(collect(readEpss, textStream(garbage)));
    expect(error.message).toMatch(/^Not a readable gzip file/);
    const whole = gzipSync(readText('epss', FIRST));
    const cut = await failure(collect(readEpss, textStream(whole.subarray(0, Math.floor(whole.length / 2)))));
    expect(cut.message).toMatch(/^Not a readable gzip file: unexpected end of file/);
  });

  it('fails on a runaway quote with its line', async () => {
    const text = `cve,epss,percentile\nCVE-2024-0001,0.1,0.2\n"CVE-2024-0002,0.1,0.2\nCVE-2024-0003,0.1,0.2\n`;
    const error = await failure(collect(readEpss, textStream(text)));
    expect(error.message).toMatch(/^Not a readable EPSS CSV file/);
    expect(error.line).toBeGreaterThanOrEqual(3);
  });

  it('detects both layouts and no other feed or scanner CSV', () => {
    expect(detectEpss(readText('epss', FIRST).slice(0, 65536))).toBe(1);
    expect(detectEpss(readText('epss', VERBATIM).slice(0, 65536))).toBeGreaterThanOrEqual(0.8);
    expect(detectEpss('cve,epss,percentile\nCVE-2024-0001,0.1,0.2\n')).toBe(0.95);
    for (const feed of ['nvd', 'cve5', 'osv'])
      for (const file of intelFiles(feed)) expect(detectEpss(readText(feed, file).slice(0, 65536))).toBe(0);
    for (const file of ['tenable/nessus/nessus_new.csv', 'openvas/many_vuln.csv'])
      expect(detectEpss(readFileSync(join(FIXTURES, file), 'utf8').slice(0, 65536)), file).toBe(0);
  });
});
