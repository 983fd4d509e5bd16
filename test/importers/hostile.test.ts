import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, buildTestApp, type Credentials, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import {
  declareHugeBody,
  deepJson,
  deepJsonGzip,
  deepXml,
  hugeTextNodeXmlGzip,
  manyAttributesXml,
  peakGrowth,
  postThenGet,
  uploadThenRead,
} from '../helpers/hostile-files.js';

/** Hostile reports through POST /imports. */
const MB = 1024 * 1024;
const MAX_GROWTH = 200 * MB;

describe.each(DB_KINDS)('hostile reports through POST /imports [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let analyst: Credentials;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rampart-hostile-imports-'));
    tdb = await newTestDatabase(kind);
    // One limit lowered, to show that the settings are the ones applied and named.
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_IMPORT_DIR: dir, RAMPART_PARSE_MAX_ELEMENTS: '100000' },
    });
    analyst = await t.userWithKey('Analyst');
    // Real connections too: what a refusal does to them is part of the answer.
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (payload: Buffer | string, query = '', contentType = 'application/octet-stream') =>
    t.app.inject({
      method: 'POST',
      url: `/api/latest/imports${query}`,
      headers: { ...authHeaders(analyst), 'content-type': contentType },
      payload,
    });

  const importCount = async () =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/latest/imports?PageSize=1',
        headers: authHeaders(analyst),
      })
    ).json().TotalCount as number;

  /** Posts a hostile file: answers the 422 problem, and checks what it cost and what it left. */
  const refused = async (payload: Buffer | string, query = '') => {
    const before = await importCount();
    const { result: res, growthBytes } = await peakGrowth(() => post(payload, query));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(growthBytes).toBeLessThan(MAX_GROWTH);
    expect(readdirSync(dir)).toEqual([]);
    expect(await importCount()).toBe(before);
    const problem = res.json();
    expect(problem.type).toBe('https://rampart.dev/problems/parse-limit-exceeded');
    return problem;
  };

  it('refuses a gzipped JSON array nested 40 million deep (~80 KB) at the depth limit', async () => {
    const bomb = await deepJsonGzip(40_000_000);
    expect(bomb.length).toBeLessThan(200 * 1024);
    for (const query of ['', '?Format=trivy']) {
      const problem = await refused(bomb, query);
      expect(problem.detail).toBe(
        'JSON nested deeper than 64 levels (RAMPART_PARSE_MAX_DEPTH) (line 1, column 65)',
      );
      expect(problem).toMatchObject({ limit: 'RAMPART_PARSE_MAX_DEPTH', line: 1, column: 65 });
    }
  });

  it('refuses JSON arrays nested 1 million deep, auto-detected or with a Format, instead of Completed', async () => {
    const deep = deepJson(1_000_000);
    for (const query of ['', '?Format=trivy', '?Format=generic', '?Format=sarif']) {
      const problem = await refused(deep, query);
      expect(problem.detail).toMatch(/^JSON nested deeper than 64 levels \(RAMPART_PARSE_MAX_DEPTH\)/);
    }
    // Inside an object, after some lines: the line and column say where (the object is level 1,
    // so the 64th "[", at column 14 + 63, is the 65th level).
    const nested = `{\n  "SchemaVersion": 2,\n  "Results": ${deep.toString()}\n}`;
    const problem = await refused(nested);
    expect(problem).toMatchObject({ line: 3, column: 77 });
  });

  it('refuses an XML element with a million attributes at the attribute limit', async () => {
    const xml = manyAttributesXml(1_000_000);
    const problem = await refused(xml, '?Format=nessus');
    expect(problem.detail).toMatch(
      /^An XML element with more than 1,000 attributes \(RAMPART_PARSE_MAX_ATTRIBUTES\) \(line 2, column \d+\)$/,
    );
    expect(problem.limit).toBe('RAMPART_PARSE_MAX_ATTRIBUTES');
  });

  it('refuses a gzipped 200 MB XML text node at the text limit', async () => {
    const bomb = await hugeTextNodeXmlGzip(200 * MB);
    expect(bomb.length).toBeLessThan(MB);
    const problem = await refused(bomb);
    expect(problem.detail).toMatch(
      /^A text node longer than 16,777,216 bytes \(RAMPART_PARSE_MAX_TEXT_BYTES\) \(line 2, column \d+\)$/,
    );
  });

  it('refuses a JSON string beyond the text limit, and a number longer than 4 KiB', async () => {
    const long = await refused(
      Buffer.concat([Buffer.from('{"Results": "'), Buffer.alloc(17 * MB, 'x'), Buffer.from('"}')]),
      '?Format=trivy',
    );
    expect(long.detail).toMatch(
      /^A JSON string longer than 16,777,216 bytes \(RAMPART_PARSE_MAX_TEXT_BYTES\)/,
    );
    const number = await refused(`{"Results": ${'9'.repeat(5000)}}`, '?Format=trivy');
    expect(number.detail).toMatch(
      /^A JSON number or literal longer than 4,096 bytes \(line 1, column 4109\)$/,
    );
    expect(number.limit).toBeUndefined();
  });

  it('counts elements against the configured RAMPART_PARSE_MAX_ELEMENTS', async () => {
    const many = `<?xml version="1.0"?>\n<NessusClientData_v2>${'<x/>'.repeat(100_000)}</NessusClientData_v2>`;
    const problem = await refused(many, '?Format=nessus');
    expect(problem.detail).toMatch(
      /^More than 100,000 XML elements in one file \(RAMPART_PARSE_MAX_ELEMENTS\)/,
    );
    const values = await refused(`[${'1,'.repeat(100_000)}1]`, '?Format=generic');
    expect(values.detail).toMatch(/^More than 100,000 JSON values in one file/);
    const lines = await refused('x\n'.repeat(100_001), '?Format=nessus');
    expect(lines.detail).toMatch(/^More than 100,000 lines in one file/);
  });

  it('fails a CSV row with more cells than the limit where it is, naming the limit', async () => {
    const header =
      'Plugin ID,CVE,CVSS,Risk,Host,Protocol,Port,Name,Synopsis,Description,Solution,See Also,Plugin Output';
    const row = `1,,,High,10.0.0.1,tcp,80,Name,s,d,so,,out${',x'.repeat(2000)}`;
    const res = await post(`${header}\n${row}\n`, '?Format=nessus');
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const done = (
      await t.app.inject({
        method: 'GET',
        url: `/api/latest/imports/${res.json().Id}`,
        headers: authHeaders(analyst),
      })
    ).json();
    expect(done.State).toBe('Failed');
    expect(done.Error).toBe(
      'A CSV row with more than 1,000 cells (RAMPART_PARSE_MAX_ATTRIBUTES) (line 2, column 1)',
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reads a lone UTF-16 surrogate as U+FFFD and drops a NUL instead of failing inside the database', async () => {
    const trivy = JSON.stringify({
      SchemaVersion: 2,
      ArtifactName: 'alpine:3.18',
      ArtifactType: 'container_image',
      Results: [
        {
          Target: 'alpine',
          Vulnerabilities: [
            {
              VulnerabilityID: 'CVE-2023-5363',
              PkgName: 'openssl',
              InstalledVersion: '3.1.2-r0',
              Severity: 'HIGH',
              Title: 'TITLE',
              Description: 'DESCRIPTION',
            },
          ],
        },
      ],
    })
      .replace('TITLE', 'cut \\ud83d here')
      .replace('DESCRIPTION', 'nul \\u0000 and low \\udc00 alone, pair \\ud83d\\ude00 kept');
    const res = await post(trivy, '?Format=trivy');
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const done = (
      await t.app.inject({
        method: 'GET',
        url: `/api/latest/imports/${res.json().Id}`,
        headers: authHeaders(analyst),
      })
    ).json();
    expect(done.State, done.Error).toBe('Completed');
    expect(done.Counts.New).toBe(1);
    const findings = (
      await t.app.inject({
        method: 'GET',
        url: '/api/latest/findings?PageSize=500',
        headers: authHeaders(analyst),
      })
    ).json().Items as { Title: string; VulnerabilityId: string }[];
    const finding = findings.find((f) => f.Title.startsWith('cut '));
    expect(finding?.Title).toBe('cut \ufffd here');
    const vulnerability = (
      await t.app.inject({
        method: 'GET',
        url: `/api/latest/vulnerabilities/${finding?.VulnerabilityId}`,
        headers: authHeaders(analyst),
      })
    ).json();
    expect(vulnerability.Description).toBe('nul  and low \ufffd alone, pair \ud83d\ude00 kept');
  });

  it('drops a NUL in a CSV cell instead of failing inside the database', async () => {
    const csv = `Plugin ID,CVE,CVSS,Risk,Host,Protocol,Port,Name,Synopsis,Description,Solution,See Also,Plugin Output\n19506,,,High,10.0.9.1,tcp,80,Bad\u0000name,s,d,so,,out\n`;
    const res = await post(csv, '?Format=nessus');
    expect(res.statusCode).toBe(202);
    await t.services.imports.settled(res.json().Id);
    const done = (
      await t.app.inject({
        method: 'GET',
        url: `/api/latest/imports/${res.json().Id}`,
        headers: authHeaders(analyst),
      })
    ).json();
    expect(done.State, done.Error).toBe('Completed');
  });

  it('answers a declared 3 GB Content-Length with 413 before the body is sent', async () => {
    const { port } = t.app.server.address() as AddressInfo;
    const answer = await declareHugeBody(port, '/api/latest/imports', authHeaders(analyst), 3 * 1024 ** 3);
    expect(answer.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(JSON.parse(answer.body)).toMatchObject({
      type: 'https://rampart.dev/problems/payload-too-large',
      detail: 'The file is larger than 1073741824 bytes (RAMPART_IMPORT_MAX_BYTES).',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ['XML nested a million deep', () => deepXml(1_000_000), 'RAMPART_PARSE_MAX_DEPTH'],
    [
      'an XML element with a million attributes',
      () => manyAttributesXml(1_000_000),
      'RAMPART_PARSE_MAX_ATTRIBUTES',
    ],
  ])(
    'lets a client streaming %s that reads only once it has sent it all read the 422 instead of a broken pipe',
    async (_what, file, limit) => {
      const { port } = t.app.server.address() as AddressInfo;
      const answer = await uploadThenRead(
        port,
        '/api/latest/imports?Format=nessus',
        authHeaders(analyst),
        file(),
      );
      expect(answer.status, answer.body).toBe(422);
      expect(JSON.parse(answer.body)).toMatchObject({
        type: 'https://rampart.dev/problems/parse-limit-exceeded',
        limit,
      });
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('reads the rest of an upload refused before its end, so that its connection serves the next request', async () => {
    const { port } = t.app.server.address() as AddressInfo;
    const { first, second } = await postThenGet(
      port,
      '/api/latest/imports',
      authHeaders(analyst),
      Buffer.concat([deepJson(1_000_000), Buffer.alloc(8 * MB, 32)]),
      '/api/latest/status',
    );
    // The rest (10 MB) was read and thrown away: the connection stays open for the next request.
    expect(first).toEqual({ status: 422, connection: 'keep-alive' });
    expect(second.status).toBe(200);
  });
});
