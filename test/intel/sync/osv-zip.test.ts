import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeedError } from '../../../src/intel/feeds/errors.js';
import { osvZipToJsonArray } from '../../../src/intel/sync/osv-zip.js';

const ZIPS = new URL('../../fixtures/intel/osv-zip/', import.meta.url);
const LIMITS = { maxEntryBytes: 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

describe('an OSV ecosystem zip into one JSON array', () => {
  let dir: string;
  let warnings: string[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rampart-osv-zip-'));
    warnings = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const convert = (zip: string, limits = LIMITS) =>
    osvZipToJsonArray(zip, join(dir, 'out.json'), limits, (m) => warnings.push(m));
  const written = () => JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')) as { id: string }[];

  it("writes every advisory of osv.dev's zip, unchanged", async () => {
    expect(await convert(new URL('npm-all.zip', ZIPS).pathname)).toEqual({ advisories: 8 });
    const advisories = written();
    expect(advisories.map((a) => a.id).sort()).toEqual([
      'GHSA-27h2-hvpr-p74q',
      'GHSA-35jh-r3h4-6jhm',
      'GHSA-3h5v-q93c-6h6q',
      'GHSA-c2qf-rxjj-qqgw',
      'GHSA-jf85-cpcp-j695',
      'GHSA-p6mc-m468-83gw',
      'GHSA-wf5p-g6vw-rhxx',
      'GHSA-xvch-5gv4-984h',
    ]);
    const original = JSON.parse(
      readFileSync(new URL('../osv/GHSA-xvch-5gv4-984h.json', ZIPS), 'utf8'),
    ) as unknown;
    expect(advisories.find((a) => a.id === 'GHSA-xvch-5gv4-984h')).toEqual(original);
    expect(warnings).toEqual([]);
  });

  it('leaves out, with a warning, entries that are no advisory; passes over files that are not JSON', async () => {
    expect(await convert(new URL('hostile-npm-all.zip', ZIPS).pathname)).toEqual({ advisories: 1 });
    expect(written().map((a) => a.id)).toEqual(['GHSA-xvch-5gv4-984h']);
    expect(warnings).toEqual([
      'broken.json: not a JSON object; left out.',
      'array.json: not a JSON object; left out.',
    ]);
  });

  it('leaves out an advisory over the size limit, and stops at a zip that unpacks beyond the total', async () => {
    const zip = new URL('npm-all.zip', ZIPS).pathname;
    expect(await convert(zip, { maxEntryBytes: 3500, maxTotalBytes: LIMITS.maxTotalBytes })).toEqual({
      advisories: expect.any(Number),
    });
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/larger than 3,500 bytes; left out\.$/);
    await expect(convert(zip, { maxEntryBytes: LIMITS.maxEntryBytes, maxTotalBytes: 5000 })).rejects.toThrow(
      /unpacks to more than 5,000 bytes/,
    );
  });

  it('fails clearly on a file that is not a zip', async () => {
    const notZip = join(dir, 'all.zip');
    writeFileSync(notZip, '<html>Not found</html>');
    const error = await convert(notZip).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toMatch(/^Not a readable zip file: /);
  });
});
