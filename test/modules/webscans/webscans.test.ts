import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanUrlOf } from '../../../src/modules/webscans/service.js';
import { checkById, checkGuid } from '../../../src/scanning/checks/index.js';
import type { RunExecutor, WebSpec, WebUrlResult } from '../../../src/scanning/types.js';
import { buildTestApp, type Credentials, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';
import { apiCall } from '../../helpers/scan-nodes.js';

// Web scans through the API. The server's local scan node runs a test engine that reports, for
// each URL of its run, what the test put in `results` (WebUrlResult, as the contract says): the
// real node protocol and the real ingestion, no packet sent anywhere.

const W1 = '01900000-0000-7000-8000-0000000000f1';

const urlResult = (url: string, extra: Partial<WebUrlResult> = {}): WebUrlResult => ({
  url,
  finalUrl: null,
  status: 200,
  address: new URL(url).hostname,
  software: [],
  checks: [],
  headerScore: { score: 40, grade: 'C' },
  notes: [],
  error: null,
  budgetExhausted: null,
  ...extra,
});

describe.each(DB_KINDS)('web scans [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let admin: Credentials;
  let manager: Credentials;
  let analyst: Credentials;
  let reader: Credentials;
  let other: Credentials;
  /** What the test engine reports for a URL (a plain 200 without findings when absent). */
  const results = new Map<string, WebUrlResult>();
  const asked: string[][] = [];

  const webEngine: RunExecutor = async (spec, run) => {
    const urls = (spec as WebSpec).urls;
    asked.push(urls);
    await run.emit(urls.map((u) => results.get(u) ?? urlResult(u)));
    // A node has no business reporting a URL its run did not name: dropped. (A malformed item
    // refuses the whole batch: test/modules/scanruns/batch-contract.test.ts.)
    await run.emit([urlResult('http://198.18.0.99:8080/')]);
  };

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    who: Credentials,
    body?: unknown,
    channel?: string,
  ) => apiCall(t, method, url, { who, body, channel });

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, {
      background: true,
      env: { RAMPART_LOCAL_SCAN_NODE: 'true' },
      scanExecutors: new Map([['Web', webEngine]]),
    });
    admin = t.admin;
    manager = await t.userWithKey('Manager');
    analyst = await t.userWithKey('Analyst');
    reader = await t.userWithKey('ReadOnly');
    const bravo = await t.services.organizations.create('Bravo');
    other = await t.userWithKey('Admin', bravo);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  /** Starts the scan, waits (bounded) for the run to complete and its results to become findings. */
  const runScan = async (scanId: string) => {
    const started = await call('POST', `/webscans/${scanId}/start`, analyst);
    expect(started.statusCode, started.body).toBe(201);
    await expect
      .poll(async () => (await call('GET', `/webscans/${scanId}/runs/latest`, reader)).json().Import, {
        timeout: 30_000,
        interval: 100,
      })
      .not.toBeNull();
    return (await call('GET', `/webscans/${scanId}/runs/latest`, reader)).json();
  };

  const report = async (scanId: string) => {
    const res = await call(
      'POST',
      `/webscans/%20${scanId}/reports/latest/vulnerabilitiesandfindings/withstartindex/0/andpagesize/1000`,
      reader,
      '',
      'integration',
    );
    expect(res.statusCode, res.body).toBe(200);
    return res.json().Items as { Id: string; PluginGuidId: string; Name: string; State: string }[];
  };

  it('refuses URLs outside the allowed targets, naming each by its pointer, and bad URLs by field', async () => {
    const refused = await call('POST', '/webscans', manager, { Name: 'Web', Urls: ['http://198.18.0.10/'] });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json().type).toContain('scan-target-refused');
    expect(refused.json().errors[0].path).toBe('/Urls/0');

    await call('POST', '/allowedtargets', admin, { Kind: 'Allowed', Target: '198.18.0.0/24' });
    await call('POST', '/allowedtargets', admin, { Kind: 'Allowed', Target: '*.lab.example' });
    const cases: [unknown[], number, string][] = [
      [['http://198.18.0.10/', 'https://www.elsewhere.example/'], 422, '/Urls/1'],
      [['http://198.18.0.10/', 'http://10.1.2.3/'], 422, '/Urls/1'],
      [['http://169.254.169.254/latest/meta-data/'], 422, '/Urls/0'],
      [['http://127.0.0.1:8080/'], 422, '/Urls/0'],
      [['ftp://198.18.0.10/'], 400, '/Urls/0'],
      [['not a url'], 400, '/Urls/0'],
      [['http://user:secret@198.18.0.10/'], 400, '/Urls/0'],
      [[], 400, 'Urls'],
    ];
    for (const [Urls, status, pointer] of cases) {
      const res = await call('POST', '/webscans', manager, { Name: 'Web', Urls });
      expect(res.statusCode, `${JSON.stringify(Urls)}: ${res.body}`).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      if (status === 422) expect(res.json().errors[0].path).toBe(pointer);
      else expect(res.body).toContain(pointer.replace(/^\//, '').split('/')[0]);
    }
    const bad: [Record<string, unknown>, number, string][] = [
      [{ Name: '', Urls: ['http://198.18.0.10/'] }, 400, 'Name'],
      [
        { Name: 'x', Urls: ['http://198.18.0.10/'], TemplateId: '01900000-0000-7000-8000-0000000000d1' },
        400,
        'TemplateId',
      ],
      [
        { Name: 'x', Urls: ['http://198.18.0.10/'], TemplateId: '0193a5c4-7f10-7c3e-9d41-000000000000' },
        404,
        'template',
      ],
      [
        { Name: 'x', Urls: ['http://198.18.0.10/'], ScanNodeId: '0193a5c4-7f10-7c3e-9d41-000000000000' },
        404,
        'node',
      ],
      [{ Name: 'x', Urls: ['http://198.18.0.10/'], Schedule: { SchedulingMode: 'Daily' } }, 400, 'StartTime'],
      [{ Name: 'x', Urls: ['http://198.18.0.10/'], Surprise: 1 }, 400, 'Surprise'],
    ];
    for (const [body, status, text] of bad) {
      const res = await call('POST', '/webscans', manager, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(status);
      expect(res.body).toContain(text);
    }
    const ok = await call('POST', '/webscans', manager, {
      Name: 'Lab web',
      Urls: ['http://198.18.0.10/', 'https://app.lab.example:8443/login'],
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({
      Name: 'Lab web',
      Urls: ['http://198.18.0.10/', 'https://app.lab.example:8443/login'],
      TemplateId: W1,
      RunState: 'Idle',
      LastRun: null,
    });
    expect(
      (await call('POST', '/webscans', analyst, { Name: 'x', Urls: ['http://198.18.0.10/'] })).statusCode,
    ).toBe(403);
  });

  it('runs, refuses a stop with no run under way, deletes, and answers 404 to another organisation', async () => {
    const scan = (
      await call('POST', '/webscans', manager, { Name: 'Stop me', Urls: ['http://198.18.0.20/'] })
    ).json();
    const foreign = [
      ['GET', `/webscans/${scan.Id}`],
      ['PUT', `/webscans/${scan.Id}`],
      ['DELETE', `/webscans/${scan.Id}`],
      ['POST', `/webscans/${scan.Id}/start`],
      ['POST', `/webscans/${scan.Id}/stop`],
      ['GET', `/webscans/${scan.Id}/runs/latest`],
    ] as const;
    for (const [method, url] of foreign) {
      const body = method === 'PUT' ? { Name: 'taken', Urls: ['http://198.18.0.20/'] } : undefined;
      const res = await call(method, url, other, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.body).not.toContain('Stop me');
    }
    expect((await call('GET', `/webscans/${scan.Id}/runs/latest`, reader)).statusCode).toBe(404);
    expect((await call('POST', `/webscans/${scan.Id}/stop`, analyst)).statusCode).toBe(409);
    const run = await runScan(scan.Id);
    expect(run.Run.State).toBe('Completed');
    expect((await call('DELETE', `/webscans/${scan.Id}`, manager)).statusCode).toBe(204);
    expect((await call('GET', `/webscans/${scan.Id}`, reader)).statusCode).toBe(404);
  });

  it('turns each URL’s checks into findings with evidence, and a re-scan fixes what is gone', async () => {
    const base = 'http://198.18.0.30/';
    const app = 'https://app.lab.example:8443/';
    results.set(
      base,
      urlResult(base, {
        software: [{ header: 'Server', value: 'nginx', product: 'nginx', version: null, cpes: [] }],
        checks: [
          {
            checkId: 'web.exposed-git',
            port: null,
            url: `${base}.git/config`,
            evidence: 'GET /.git/config → 200, body starts "[core]"',
          },
          {
            checkId: 'web.header-csp',
            port: null,
            url: base,
            evidence: 'No Content-Security-Policy header.',
          },
        ],
        headerScore: { score: 20, grade: 'F' },
        notes: ['SSLv3 cannot be probed from this node'],
      }),
    );
    results.set(app, urlResult(app, { address: '198.18.0.31', error: null }));
    const scan = (await call('POST', '/webscans', manager, { Name: 'Findings', Urls: [base, app] })).json();
    const first = await runScan(scan.Id);
    expect(first.Urls.map((u: { Url: string }) => u.Url)).toEqual([base, app]);
    const baseResult = first.Urls[0];
    expect(baseResult).toMatchObject({
      Status: 200,
      HeaderScore: { Score: 20, Grade: 'F' },
      Notes: ['SSLv3 cannot be probed from this node'],
      Software: [{ Header: 'Server', Value: 'nginx', Product: 'nginx', Version: null, Cpes: [] }],
    });
    expect(baseResult.Checks.map((c: { CheckId: string; Title: string }) => [c.CheckId, c.Title])).toEqual([
      ['web.exposed-git', checkById('web.exposed-git')!.title],
      ['web.header-csp', checkById('web.header-csp')!.title],
    ]);
    expect(first.Import.Counts.New ?? first.Import.Counts.Created).toBeGreaterThanOrEqual(2);

    const found = await report(scan.Id);
    expect(found.map((f) => f.Name).sort()).toEqual(
      [checkById('web.exposed-git')!.title, checkById('web.header-csp')!.title].sort(),
    );
    const git = found.find((f) => f.Name === checkById('web.exposed-git')!.title)!;
    const detail = (await call('GET', `/findings/${git.Id}`, reader)).json();
    expect(detail.Evidence).toContain('/.git/config');
    expect(detail.Location).toMatchObject({ Kind: 'Url', Url: `${base}.git/config` });
    expect(git.PluginGuidId).toBe(checkGuid('web.exposed-git'));
    // Every PluginGuidId the report answers resolves, as the original's clients expect.
    for (const f of found) {
      const d = await call(
        'GET',
        `/vulnerabilities/webscan/${f.PluginGuidId}/detailed`,
        reader,
        undefined,
        'integration',
      );
      expect(d.statusCode, d.body).toBe(200);
      expect(d.json().Name).toBe(f.Name);
    }

    // The .git directory is gone: the re-scan fixes that finding and keeps the other open.
    t.clock.now = new Date(t.clock.now.getTime() + 3600_000);
    results.set(base, { ...results.get(base)!, checks: results.get(base)!.checks.slice(1) });
    await runScan(scan.Id);
    const after = await report(scan.Id);
    expect(after.map((f) => f.Name)).toEqual([checkById('web.header-csp')!.title]);
    expect((await call('GET', `/findings/${git.Id}`, reader)).json().State).toBe('Fixed');
    // The original's asset findings report keeps a web scan's findings when given its ScanId.
    const scoped = await call(
      'POST',
      `/assets/${detail.AssetId}/reports/latest/vulnerabilitiesandfindings/withStartIndex/0/andPageSize/100`,
      reader,
      { ScanId: scan.Id, Findings: 'All' },
      'integration',
    );
    expect(scoped.statusCode, scoped.body).toBe(200);
    expect(scoped.json().Items.map((i: { Name: string }) => i.Name)).toContain(
      checkById('web.header-csp')!.title,
    );
    // Another organisation sees nothing of the report.
    const foreign = await call(
      'POST',
      `/webscans/${scan.Id}/reports/latest/vulnerabilitiesandfindings/withstartindex/0/andpagesize/10`,
      other,
      {},
      'integration',
    );
    expect(foreign.statusCode).toBe(404);
  });

  it('finds the scan URL a finding was found under: same origin, longest leading path', () => {
    const urls = ['https://site.test/', 'https://site.test/app/', 'http://site.test:8080/'];
    expect(scanUrlOf(urls, new URL('https://site.test/app/.env'))).toBe('https://site.test/app/');
    expect(scanUrlOf(urls, new URL('https://site.test/.git/HEAD'))).toBe('https://site.test/');
    expect(scanUrlOf(urls, new URL('http://site.test:8080/x'))).toBe('http://site.test:8080/');
    // Port 80 of an https URL's host is its http counterpart (where web.no-https-redirect is filed):
    // checked again through the https URL.
    expect(scanUrlOf(urls, new URL('http://site.test/'))).toBe('https://site.test/');
    expect(scanUrlOf(urls, new URL('http://other.test/'))).toBeUndefined();
    expect(scanUrlOf(['http://site.test:8080/'], new URL('http://site.test/'))).toBeUndefined();
  });

  it('starts a Verify run of some URLs only, and refuses URLs the scan does not check', async () => {
    const base = 'http://198.18.0.40/';
    const scan = (await call('POST', '/webscans', manager, { Name: 'Verify', Urls: [base] })).json();
    const ctx = { organizationId: t.org.id, actor: { type: 'system' as const, id: null } };
    await expect(
      t.services.webScans.startVerify(ctx, scan.Id, { urls: ['http://198.18.0.41/'], findingIds: [] }),
    ).rejects.toThrow(/not on a host and port/);
    await expect(t.services.webScans.startVerify(ctx, scan.Id, { urls: [], findingIds: [] })).rejects.toThrow(
      /URL/,
    );
    asked.length = 0;
    const run = await t.services.webScans.startVerify(ctx, scan.Id, {
      urls: [`${base}.env`],
      findingIds: [],
    });
    expect(run.state).toBe('Queued');
    await expect.poll(() => asked.length, { timeout: 30_000, interval: 100 }).toBe(1);
    // The finding's URL is checked again by the scan's URL it was found under, not as a site of its own.
    expect(asked[0]).toEqual([base]);
    await expect
      .poll(async () => (await call('GET', `/webscans/${scan.Id}/runs/latest`, reader)).json().Verify, {
        timeout: 30_000,
        interval: 100,
      })
      .toEqual({ FindingIds: [] });
  });
});
