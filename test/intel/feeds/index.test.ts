import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  detectFeed,
  FeedError,
  type FeedName,
  openFeed,
  plainInput,
  readFeed,
} from '../../../src/intel/feeds/index.js';
import { FIXTURES, fileStream, INTEL, intelFiles, textStream } from './helpers.js';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function head(path: string): string {
  return readFileSync(path)
    .subarray(0, 64 * 1024)
    .toString('utf8');
}

const OWN: [FeedName, string[]][] = [
  ['nvd', intelFiles('nvd')],
  ['cve5', intelFiles('cve5')],
  ['kev', ['known_exploited_vulnerabilities.json']],
  ['epss', intelFiles('epss', '.csv')],
  ['osv', intelFiles('osv')],
];

describe('detectFeed', () => {
  it('names the feed of every intel fixture', () => {
    for (const [feed, files] of OWN)
      for (const file of files)
        expect(detectFeed(head(join(INTEL, feed, file))), file).toMatchObject({ feed });
  });

  it('claims none of the scanner reports, SBOMs and advisories the importers read, nor the KEV schema', () => {
    const others = walk(FIXTURES).filter((path) => !path.startsWith(`${INTEL}/`) && !path.endsWith('.md'));
    expect(others.length).toBeGreaterThan(100);
    const claimed = others
      .map((path) => ({ file: relative(FIXTURES, path), detected: detectFeed(head(path)) }))
      .filter((d) => d.detected !== undefined);
    expect(claimed).toEqual([]);
    expect(
      detectFeed(head(join(INTEL, 'kev', 'known_exploited_vulnerabilities_schema.json'))),
    ).toBeUndefined();
    expect(detectFeed('')).toBeUndefined();
  });
});

describe('openFeed and readFeed', () => {
  it('gives the unpacked head of a gzip file, which detection then names', async () => {
    const packed = gzipSync(readFileSync(join(INTEL, 'epss', 'epss_scores-subset.csv')));
    const opened = await openFeed(textStream(packed));
    expect(opened.head.startsWith('#model_version:unknown,score_date:2026-08-16')).toBe(true);
    expect(detectFeed(opened.head)).toEqual({ feed: 'epss', confidence: 1 });
    let rows = 0;
    for await (const _ of readFeed('epss', opened.input, { warn: () => {} })) rows += 1;
    expect(rows).toBe(1444);
  });

  it('stops unpacking a gzip file beyond the bound', async () => {
    const packed = gzipSync(Buffer.alloc(10_000_000, 'a'));
    expect(packed.length).toBeLessThan(50_000);
    const input = await plainInput(textStream(packed), 1_000_000);
    const error = await (async () => {
      for await (const _ of input) {
        // unpacking
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toMatch(/unpacks to more than 1,000,000 bytes/);
  });

  it('reads each feed through the dispatcher', async () => {
    const count = async (feed: FeedName, ...path: string[]) => {
      let n = 0;
      for await (const _ of readFeed(feed, () => fileStream(...path), { warn: () => {} })) n += 1;
      return n;
    };
    expect(await count('nvd', 'nvd', 'CVE-2024-6387.json')).toBe(1);
    expect(await count('cve5', 'cve5', 'CVE-2024-6387.json')).toBe(1);
    expect(await count('kev', 'kev', 'known_exploited_vulnerabilities.json')).toBe(1404);
    expect(await count('epss', 'epss', 'EMBA_EPSS_CVE_data-subset.verbatim.csv')).toBe(1444);
    expect(await count('osv', 'osv', 'GHSA-27h2-hvpr-p74q.json')).toBe(1);
  });

  it('fails with a FeedError when a file is read as the wrong feed', async () => {
    const run = async () => {
      for await (const _ of readFeed('kev', fileStream('osv', 'GHSA-27h2-hvpr-p74q.json'), {
        warn: () => {},
      })) {
        // reading
      }
    };
    await expect(run()).rejects.toBeInstanceOf(FeedError);
    expect(() => readFeed('nope' as FeedName, textStream(''), { warn: () => {} })).toThrow(/Unknown feed/);
  });
});
