import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import {
  declareHugeBody,
  deepJson,
  deepJsonGzip,
  peakGrowth,
  postThenGet,
} from '../../helpers/hostile-files.js';

/** Hostile feed files through POST /intel/loads and from disk. */
const MB = 1024 * 1024;

describe.each(DB_KINDS)('hostile intelligence feeds [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let dir: string;
  let files: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rampart-hostile-intel-'));
    files = mkdtempSync(join(tmpdir(), 'rampart-hostile-feeds-'));
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { env: { RAMPART_IMPORT_DIR: dir, RAMPART_INTEL_KB: 'off' } });
    // Real connections too: what a refusal does to them is part of the answer.
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  });

  const post = (payload: Buffer | string, query = '') =>
    t.app.inject({
      method: 'POST',
      url: `/api/latest/intel/loads${query}`,
      headers: { ...authHeaders(t.admin), 'content-type': 'application/octet-stream' },
      payload,
    });

  /** Sends a feed file and waits for its load to end. */
  const load = async (payload: Buffer | string, query = '') => {
    const res = await post(payload, query);
    expect(res.statusCode, res.body).toBe(202);
    for (let i = 0; i < 600; i++) {
      const now = (
        await t.app.inject({
          method: 'GET',
          url: `/api/latest/intel/loads/${res.json().Id}`,
          headers: authHeaders(t.admin),
        })
      ).json();
      if (now.State !== 'Running') return now;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the load did not end');
  };

  const loadCount = async () => (await t.services.intel.loads(1000)).length;

  const refused = async (payload: Buffer | string, query = '') => {
    const before = await loadCount();
    const { result: res, growthBytes } = await peakGrowth(() => post(payload, query));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(growthBytes).toBeLessThan(200 * MB);
    expect(readdirSync(dir)).toEqual([]);
    expect(await loadCount()).toBe(before);
    const problem = res.json();
    expect(problem.type).toBe('https://rampart.dev/problems/parse-limit-exceeded');
    return problem;
  };

  it('refuses a gzipped JSON array nested 40 million deep at once (it was loaded as Completed)', async () => {
    const bomb = await deepJsonGzip(40_000_000);
    for (const query of ['', '?Feed=nvd', '?Feed=osv']) {
      const problem = await refused(bomb, query);
      expect(problem.detail).toBe(
        'JSON nested deeper than 64 levels (RAMPART_PARSE_MAX_DEPTH) (line 1, column 65)',
      );
    }
  });

  it('refuses JSON arrays nested 1 million deep, auto-detected or named', async () => {
    for (const query of ['', '?Feed=nvd', '?Feed=kev', '?Feed=cve5']) {
      const problem = await refused(deepJson(1_000_000), query);
      expect(problem).toMatchObject({ limit: 'RAMPART_PARSE_MAX_DEPTH', line: 1, column: 65 });
    }
    const kev = `{"catalogVersion": "2025.08.25", "dateReleased": "2025-08-25T00:00:00Z", "vulnerabilities": ${deepJson(1_000_000)}}`;
    expect((await refused(kev)).detail).toMatch(/^JSON nested deeper than 64 levels/);
  });

  it('fails a deep file read from disk (rampart intel load, the knowledge base) naming the limit', async () => {
    const path = join(files, 'deep.json');
    writeFileSync(path, deepJson(1_000_000));
    const { result: loaded, growthBytes } = await peakGrowth(() =>
      t.services.intel.loadFile(path, { feed: 'nvd' }),
    );
    expect(loaded.state).toBe('Failed');
    expect(loaded.error).toBe(
      'JSON nested deeper than 64 levels (RAMPART_PARSE_MAX_DEPTH) (line 1, column 65)',
    );
    expect(growthBytes).toBeLessThan(200 * MB);
  });

  it('fails a file that is not the shape of its feed, saying where (line and column) and why (it was Completed with 0)', async () => {
    const cases: [string, string, string][] = [
      [
        '{"format": "NVD_CVE", "version": "2.0", "vulnerabilities": 5}',
        '',
        'Not an NVD CVE API 2.0 page: vulnerabilities is a number, not a list of { "cve": … } objects. (line 1, column 60)',
      ],
      [
        '{"format": "NVD_CVE", "vulnerabilities": [{"cve": 5}]}',
        '?Feed=nvd',
        'Not an NVD CVE API 2.0 page: vulnerabilities[0].cve is a number, not a CVE object. (line 1, column 51)',
      ],
      [
        '{"format": "NVD_CVE", "vulnerabilities": [{"cve": {"id": "CVE-2024-0001"}}, "x"]}',
        '?Feed=nvd',
        'Not an NVD CVE API 2.0 page: vulnerabilities[1] is a string, not a { "cve": … } object. (line 1, column 77)',
      ],
      [
        '{"format": "NVD_CVE", "vulnerabilities": [{"item": {}}, {"item": {}}]}',
        '?Feed=nvd',
        'Not an NVD CVE API 2.0 page: none of its 2 "vulnerabilities" entries holds a "cve" object with fields to read.',
      ],
      [
        '{"catalogVersion": "1", "dateReleased": "2025-01-01T00:00:00Z", "vulnerabilities": 5}',
        '?Feed=kev',
        'Not a CISA KEV catalogue: "vulnerabilities" is a number, not a list of entries. (line 1, column 84)',
      ],
      [
        '{"catalogVersion": "1", "dateReleased": "2025-01-01T00:00:00Z", "vulnerabilities": [1, 2]}',
        '?Feed=kev',
        'Not a CISA KEV catalogue: vulnerabilities[0] is a number, not an entry object. (line 1, column 85)',
      ],
      [
        '{"catalogVersion": "1", "dateReleased": "2025-01-01T00:00:00Z", "vulnerabilities": [{}, {"x": 1}]}',
        '?Feed=kev',
        'Not a CISA KEV catalogue: none of its 2 "vulnerabilities" entries holds a field of a KEV entry (cveID, vendorProject, …).',
      ],
      [
        '{"catalogVersion": "1", "dateReleased": "2025-01-01T00:00:00Z"}',
        '?Feed=kev',
        'Not a CISA KEV catalogue: it has no "vulnerabilities" list.',
      ],
    ];
    for (const [file, query, error] of cases) {
      const done = await load(file, query);
      expect(done, file).toMatchObject({ State: 'Failed', Error: error, Added: 0 });
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails a record too large to hold instead of assembling it (a CVSS metric of a million values)', async () => {
    const metric = `{"source": "nvd@nist.gov", "type": "Primary", "cvssData": {"version": "3.1", "padding": [${'0,'.repeat(1_000_000)}0]}}`;
    const page = `{"format": "NVD_CVE", "version": "2.0", "vulnerabilities": [{"cve": {"id": "CVE-2024-99002", "metrics": {"cvssMetricV31": [${metric}]}}}]}`;
    const { result: done, growthBytes } = await peakGrowth(() => load(page));
    expect(done).toMatchObject({
      State: 'Failed',
      Error:
        'One record of the file (at vulnerabilities.0.cve.metrics.cvssMetricV31.0) holds more than 1,000,000 values; a record this large is refused.',
    });
    expect(growthBytes).toBeLessThan(200 * MB);
  });

  it('stores a lone UTF-16 surrogate as U+FFFD (the load failed inside the database)', async () => {
    const page = JSON.stringify({
      format: 'NVD_CVE',
      version: '2.0',
      vulnerabilities: [
        {
          cve: {
            id: 'CVE-2024-99001',
            sourceIdentifier: 'cve@mitre.org',
            vulnStatus: 'Analyzed',
            published: '2024-01-01T00:00:00.000',
            lastModified: '2024-01-02T00:00:00.000',
            descriptions: [{ lang: 'en', value: 'DESCRIPTION' }],
          },
        },
      ],
    }).replace('DESCRIPTION', 'cut \\ud83d here, low \\udc00 alone, pair \\ud83d\\ude00 kept');
    const done = await load(page);
    expect(done, done.Error).toMatchObject({ State: 'Completed', Added: 1 });
    const cve = await t.app.inject({
      method: 'GET',
      url: '/api/latest/intel/cves/CVE-2024-99001',
      headers: authHeaders(t.admin),
    });
    expect(cve.json().Description).toBe('cut \ufffd here, low \ufffd alone, pair \ud83d\ude00 kept');
  });

  it('answers a declared 3 GB Content-Length with 413 before the body is sent', async () => {
    const { port } = t.app.server.address() as AddressInfo;
    const answer = await declareHugeBody(
      port,
      '/api/latest/intel/loads',
      authHeaders(t.admin),
      3 * 1024 ** 3,
    );
    expect(answer.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(JSON.parse(answer.body)).toMatchObject({
      type: 'https://rampart.dev/problems/payload-too-large',
      detail: 'The file is larger than 2147483648 bytes (RAMPART_INTEL_MAX_BYTES).',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reads the rest of a load refused before its end, so that its connection serves the next request', async () => {
    const { port } = t.app.server.address() as AddressInfo;
    const { first, second } = await postThenGet(
      port,
      '/api/latest/intel/loads',
      authHeaders(t.admin),
      Buffer.concat([deepJson(1_000_000), Buffer.alloc(8 * MB, 32)]),
      '/api/latest/status',
    );
    // The rest (10 MB) was read and thrown away: the connection stays open for the next request.
    expect(first).toEqual({ status: 422, connection: 'keep-alive' });
    expect(second.status).toBe(200);
  });
});
