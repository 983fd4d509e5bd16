import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebTemplate, WebUrlResult } from '../../../src/scanning/types.js';
import { MAX_REDIRECTS, type WebScanOptions, webScan } from '../../../src/scanning/web/index.js';
import { makeCertificate, type TestCertificate } from '../tls/certs.js';
import { routes, type Site, send, startSite } from './sites.js';

const DAY = 86_400_000;
const TEMPLATE: WebTemplate = {
  requestTimeoutMs: 5000,
  urlBudgetMs: 60_000,
  runBudgetMs: 120_000,
  requestsPerSecond: 200,
  tlsChecks: true,
  headerChecks: true,
  exposedFiles: true,
};
const sites: Site[] = [];
afterAll(async () => {
  for (const s of sites) await s.close();
});
async function site(...args: Parameters<typeof startSite>): Promise<Site> {
  const s = await startSite(...args);
  sites.push(s);
  return s;
}

/** Runs a scan of `urls` where every test name resolves to 127.0.0.1 and only 127.0.0.1 is allowed. */
async function scan(urls: string[], extra: Partial<WebScanOptions> = {}, template: WebTemplate = TEMPLATE) {
  const results: WebUrlResult[] = [];
  const counts = await webScan(urls, template, {
    signal: new AbortController().signal,
    resolve: async (name) => {
      if (name.endsWith('.test')) return ['127.0.0.1'];
      throw new Error(`${name} is not a test name`);
    },
    check: (address) =>
      address === '127.0.0.1' ? null : { rule: 'NotAllowed', message: `${address} not allowed` },
    now: () => new Date(Date.UTC(2030, 0, 1)),
    onUrl: (r) => {
      results.push(r);
    },
    ...extra,
  });
  return { counts, results };
}

const ids = (r: WebUrlResult | undefined) => (r?.checks ?? []).map((c) => c.checkId).sort();

describe('a neglected site: TLS 1.0, an expired self-signed certificate, no headers, .git and .env', () => {
  let cert: TestCertificate;
  let httpsSite: Site;
  let httpSite: Site;
  let result: WebUrlResult | undefined;
  beforeAll(async () => {
    cert = makeCertificate({ commonName: 'legacy.test', altNames: ['DNS:legacy.test'], key: 'rsa:1024' });
    const table = {
      '/': send(200, '<html><body>Welcome</body></html>', {
        Server: 'nginx/1.22.1',
        'X-Powered-By': 'PHP/8.1.2',
        'Set-Cookie': ['sessionid=abc; Path=/', 'theme=dark; Secure; HttpOnly; SameSite=Lax'],
      }),
      '/.git/HEAD': send(200, 'ref: refs/heads/main\n', { 'Content-Type': 'text/plain' }),
      '/.env': send(200, 'DB_PASSWORD=hunter2\nAPI_KEY=abc123\n', { 'Content-Type': 'text/plain' }),
    };
    httpsSite = await site(routes(table), {
      cert,
      options: { minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' },
    });
    httpSite = await site(routes(table));
    const { results } = await scan([`https://legacy.test:${httpsSite.port}/`], {
      now: () => new Date(cert.notAfter.getTime() + 3 * DAY + 60_000),
      counterpartPorts: { http: httpSite.port, https: httpsSite.port },
    });
    result = results[0];
  });

  it('reports every finding of the site', () => {
    expect(result?.error).toBeNull();
    expect(result?.status).toBe(200);
    expect(result?.address).toBe('127.0.0.1');
    expect(ids(result)).toEqual(
      [
        'service.version-disclosed',
        'tls.certificate-expired',
        'tls.certificate-self-signed',
        'tls.legacy-version',
        'tls.weak-cipher',
        'tls.weak-key',
        'web.cookie-flags',
        'web.exposed-env',
        'web.exposed-git',
        'web.header-csp',
        'web.header-hsts',
        'web.header-referrer-policy',
        'web.header-x-content-type-options',
        'web.header-x-frame-options',
        'web.no-https-redirect',
      ].sort(),
    );
    expect(result?.notes).toContain('SSLv3 cannot be probed from this node (OpenSSL has no SSLv3).');
  });

  it('scores the headers F and names the software with its CPEs', () => {
    expect(result?.headerScore).toEqual({ score: 0, grade: 'F' });
    expect(result?.software).toEqual([
      {
        header: 'Server',
        value: 'nginx/1.22.1',
        product: 'nginx',
        version: '1.22.1',
        cpes: [
          'cpe:2.3:a:igor_sysoev:nginx:1.22.1:*:*:*:*:*:*:*',
          'cpe:2.3:a:nginx:nginx:1.22.1:*:*:*:*:*:*:*',
          'cpe:2.3:a:f5:nginx:1.22.1:*:*:*:*:*:*:*',
          'cpe:2.3:a:f5:nginx_open_source:1.22.1:*:*:*:*:*:*:*',
        ],
      },
      { header: 'X-Powered-By', value: 'PHP/8.1.2', product: 'PHP', version: '8.1.2', cpes: [] },
    ]);
  });

  it('gives evidence that says what was seen', () => {
    const by = (id: string) => result?.checks.find((c) => c.checkId === id);
    expect(by('web.exposed-git')?.url).toBe(`https://legacy.test:${httpsSite.port}/.git/HEAD`);
    expect(by('web.exposed-git')?.evidence).toMatch(
      /^GET \/\.git\/HEAD HTTP\/1\.1\nHost: legacy\.test:\d+\n\nHTTP\/1\.1 200 OK\nContent-Type: text\/plain[\s\S]*\n\nref: refs\/heads\/main/,
    );
    expect(by('web.cookie-flags')?.evidence).toBe('sessionid: without Secure, HttpOnly, SameSite');
    expect(by('tls.legacy-version')?.evidence).toMatch(/^Handshake completed with TLSv1 \(cipher /);
    expect(by('tls.certificate-expired')?.evidence).toContain('3 days before the scan');
    expect(by('web.header-csp')?.evidence).toBe(
      'No Content-Security-Policy header (csp-not-implemented, -25)',
    );
    expect(by('web.no-https-redirect')?.evidence).toMatch(
      /^GET \/ HTTP\/1\.1\nHost: legacy\.test:\d+\n\nHTTP\/1\.1 200 OK/,
    );
    expect(by('service.version-disclosed')?.evidence).toBe('Server: nginx/1.22.1; X-Powered-By: PHP/8.1.2');
  });

  it("files TLS findings on the endpoint's port, and no-https-redirect on the http counterpart", () => {
    const tls = result!.checks.filter((c) => c.checkId.startsWith('tls.'));
    expect(tls.length).toBeGreaterThan(0);
    for (const c of tls)
      expect(c).toMatchObject({ port: httpsSite.port, url: `https://legacy.test:${httpsSite.port}/` });
    expect(result?.tlsPort).toBe(httpsSite.port);
    const counterpart = `http://legacy.test:${httpSite.port}/`;
    expect(result?.httpCounterpart).toBe(counterpart);
    expect(result!.checks.find((c) => c.checkId === 'web.no-https-redirect')?.url).toBe(counterpart);
  });

  it('sends only GET and HEAD to the paths of its fixed list', () => {
    for (const p of httpsSite.paths)
      expect(p).toMatch(
        /^\/(|\.git\/HEAD|\.env|server-status|nginx_status|phpinfo\.php|info\.php|backup\.zip|backup\.tar\.gz|db\.sql|dump\.sql|rampart-[0-9a-f]{16}(\.html|\/))$/,
      );
  });
});

describe('a well-configured site and a bare one', () => {
  it('scores the well-configured site A+ with no header finding', async () => {
    const cert = makeCertificate({
      commonName: 'good.test',
      altNames: ['DNS:good.test'],
      key: 'ec:prime256v1',
    });
    const good = await site(
      routes(
        {
          '/': send(200, '<html>ok</html>', { 'Set-Cookie': 'session=1; Secure; HttpOnly; SameSite=Strict' }),
        },
        {
          'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
          'Strict-Transport-Security': 'max-age=63072000',
          'X-Content-Type-Options': 'nosniff',
          'X-Frame-Options': 'DENY',
          'Referrer-Policy': 'no-referrer',
        },
      ),
      { cert },
    );
    const redirector = await site((req, res) => {
      res.writeHead(301, { Location: `https://good.test:${good.port}${req.url}` });
      res.end();
    });
    const { results } = await scan([`https://good.test:${good.port}/`], {
      now: () => new Date(cert.notBefore.getTime() + DAY),
      counterpartPorts: { http: redirector.port, https: good.port },
    });
    expect(results[0]?.headerScore).toEqual({ score: 125, grade: 'A+' });
    // Only the test certificate's own trust is reported.
    expect(ids(results[0])).toEqual(['tls.certificate-self-signed']);
  });

  it('scores a bare http site F', async () => {
    const bare = await site(routes({ '/': send(200, 'hello') }));
    const { results } = await scan(
      [`http://127.0.0.1:${bare.port}/`],
      {},
      { ...TEMPLATE, exposedFiles: false },
    );
    // CSP -25, HSTS (no https) -20, no redirection -20, X-Content-Type-Options -5, X-Frame-Options -20.
    expect(results[0]?.headerScore).toEqual({ score: 10, grade: 'F' });
    expect(ids(results[0])).toEqual([
      'web.header-csp',
      'web.header-referrer-policy',
      'web.header-x-content-type-options',
      'web.header-x-frame-options',
    ]);
  });
});

describe('exposed files against the soft-404 baseline', () => {
  it('a site answering 200 with the same page to every path gives no exposed-file finding', async () => {
    // The page even looks like .git/HEAD: only the baseline tells it apart.
    const catchAll = await site((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ref: refs/heads/main\n');
    });
    const { results } = await scan(
      [`http://127.0.0.1:${catchAll.port}/`],
      {},
      { ...TEMPLATE, headerChecks: false },
    );
    expect(results[0]?.status).toBe(200);
    expect(ids(results[0])).toEqual([]);
    expect(catchAll.paths.filter((p) => p.startsWith('/rampart-'))).toHaveLength(2);
  });

  it('reports a directory listing on the URL path', async () => {
    const listing =
      '<html><head><title>Index of /files/</title></head><body><h1>Index of /files/</h1><hr><pre><a href="../">../</a>\n<a href="a.txt">a.txt</a></pre></body></html>';
    const s = await site(routes({ '/files/': send(200, listing) }));
    const { results } = await scan(
      [`http://127.0.0.1:${s.port}/files/`],
      {},
      { ...TEMPLATE, headerChecks: false },
    );
    expect(ids(results[0])).toEqual(['web.directory-listing']);
    expect(results[0]?.checks[0]?.evidence).toContain('<title>Index of /files/</title>');
  });

  /** An nginx-style autoindex page of /files/ linking these names. */
  const indexOf = (names: string[]) =>
    `<html><head><title>Index of /files/</title></head><body><h1>Index of /files/</h1><hr><pre><a href="../">../</a>\n${names
      .map((n) => `<a href="${encodeURIComponent(n)}">${n}</a>`)
      .join('\n')}</pre></body></html>`;

  it('a listing naming backup and dump files that download: one finding naming them', async () => {
    const s = await site(
      routes({
        '/files/': send(
          200,
          indexOf(['backup.sql', 'db.sqlite', 'site.tar.gz', 'old.bak', 'gone.dump', 'report.pdf', 'sub/']),
        ),
        '/files/backup.sql': send(200, 'CREATE TABLE users (id int);\n', { 'Content-Type': 'text/plain' }),
        '/files/db.sqlite': send(200, 'SQLite format 3\u0000', {
          'Content-Type': 'application/octet-stream',
        }),
        '/files/site.tar.gz': send(200, Buffer.from([0x1f, 0x8b, 8, 0]), {
          'Content-Type': 'application/gzip',
        }),
        // Listed, but not served: no finding for these.
        '/files/old.bak': send(403, '<html><body>Forbidden</body></html>'),
        '/files/report.pdf': send(200, '%PDF-1.7', { 'Content-Type': 'application/pdf' }),
      }),
    );
    const { results } = await scan(
      [`http://127.0.0.1:${s.port}/files/`],
      {},
      { ...TEMPLATE, headerChecks: false },
    );
    expect(ids(results[0])).toEqual(['web.directory-listing', 'web.listed-backup']);
    const found = results[0]!.checks.find((c) => c.checkId === 'web.listed-backup')!;
    expect(found.url).toBe(`http://127.0.0.1:${s.port}/files/`);
    expect(found.details?.files).toEqual(['backup.sql', 'db.sqlite', 'site.tar.gz']);
    expect(found.evidence).toMatch(/^Listed and downloadable: backup\.sql, db\.sqlite, site\.tar\.gz/);
  });

  it('a listing without backup names, or whose backups answer the soft-404 page, gives no such finding', async () => {
    const soft = '<html><body>Welcome</body></html>';
    const s = await site((req, res) => {
      if (req.url === '/files/')
        return send(200, indexOf(['readme.txt', 'style.css', 'sqlite-notes.html', 'dump.sql']))(res);
      // Every other path is the same page: dump.sql is the soft-404, not a dump.
      send(200, soft)(res);
    });
    const { results } = await scan(
      [`http://127.0.0.1:${s.port}/files/`],
      {},
      { ...TEMPLATE, headerChecks: false },
    );
    expect(ids(results[0])).toEqual(['web.directory-listing']);
  });

  it('reads bodies with a cap: a 20 MB answer is cut, the scan goes on', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 'a');
    const s = await site(routes({ '/': send(200, big, { 'Content-Type': 'text/plain' }) }));
    const { results } = await scan([`http://127.0.0.1:${s.port}/`], {}, { ...TEMPLATE, exposedFiles: false });
    expect(results[0]?.status).toBe(200);
    expect(results[0]?.error).toBeNull();
  });
});

describe('redirects', () => {
  let s: Site;
  beforeAll(async () => {
    s = await site(
      routes({
        '/': send(301, '', { Location: '/step' }),
        '/step': send(302, '', { Location: '/final' }),
        '/final': send(200, 'done'),
        '/away': send(302, '', { Location: 'http://elsewhere.test/' }),
        '/loop': send(302, '', { Location: '/loop' }),
      }),
    );
  });

  it('follows redirects on the same host to the end', async () => {
    const { results } = await scan([`http://site.test:${s.port}/`], {}, { ...TEMPLATE, exposedFiles: false });
    expect(results[0]?.finalUrl).toBe(`http://site.test:${s.port}/final`);
    expect(results[0]?.status).toBe(200);
  });

  it('does not follow a redirect to another host', async () => {
    const { results } = await scan(
      [`http://site.test:${s.port}/away`],
      {},
      { ...TEMPLATE, exposedFiles: false },
    );
    expect(results[0]?.status).toBe(302);
    expect(results[0]?.notes).toContain(
      `Redirect from http://site.test:${s.port}/away to http://elsewhere.test not followed: another host.`,
    );
  });

  it(`stops after ${MAX_REDIRECTS} redirects`, async () => {
    const before = s.paths.filter((p) => p === '/loop').length;
    const { results } = await scan(
      [`http://site.test:${s.port}/loop`],
      {},
      { ...TEMPLATE, exposedFiles: false },
    );
    expect(results[0]?.notes.some((n) => n.startsWith(`More than ${MAX_REDIRECTS} redirects`))).toBe(true);
    expect(s.paths.filter((p) => p === '/loop').length - before).toBe(MAX_REDIRECTS + 1);
  });
});

describe('refusals, bad input, budgets and aborts', () => {
  it('a refused host gets no packet and no result', async () => {
    const s = await site(routes({ '/': send(200, 'x') }));
    const { counts, results } = await scan([`http://127.0.0.1:${s.port}/`], {
      check: () => ({ rule: 'NotAllowed', message: 'not allowed' }),
    });
    expect(counts).toEqual({ scanned: 0, refused: 1, budgetExhausted: null });
    expect(results).toEqual([]);
    expect(s.connections).toBe(0);
  });

  it('a name that does not resolve is reported with an error', async () => {
    const { results } = await scan(['http://nowhere.invalid/']);
    expect(results[0]?.error).toMatch(/^nowhere\.invalid did not resolve/);
  });

  it.each([
    ['ftp://127.0.0.1/', /http or https/],
    ['http://user:secret@127.0.0.1/', /credentials/],
    ['/relative', /absolute/],
    ['', /url/],
  ])('a bad URL (%s) is a RangeError before any packet', async (url, message) => {
    const s = await site(routes({ '/': send(200, 'x') }));
    await expect(scan([`http://127.0.0.1:${s.port}/`, url])).rejects.toThrow(message);
    expect(s.connections).toBe(0);
  });

  it.each([
    [{ requestTimeoutMs: 0 }, 'requestTimeoutMs'],
    [{ urlBudgetMs: 'x' }, 'urlBudgetMs'],
    [{ runBudgetMs: -1 }, 'runBudgetMs'],
    [{ requestsPerSecond: 0 }, 'requestsPerSecond'],
    [{ tlsChecks: 'yes' }, 'tlsChecks'],
    [{ headerChecks: undefined }, 'headerChecks'],
    [{ exposedFiles: 1 }, 'exposedFiles'],
    [{ requestTimeoutMs: 5000, urlBudgetMs: 1000 }, 'urlBudgetMs'],
  ])('a bad template (%o) is a RangeError naming %s', async (change, field) => {
    await expect(scan(['http://127.0.0.1/'], {}, { ...TEMPLATE, ...change } as WebTemplate)).rejects.toThrow(
      new RegExp(`^web template: ${field} `),
    );
  });

  it('keeps what a URL found when its budget runs out (injected clock)', async () => {
    let clock = 0;
    const s = await site((req, res) => {
      clock += 600; // each request "takes" 600 ms on the injected clock
      routes({ '/': send(200, 'x', { Server: 'nginx/1.22.1' }) })(req, res);
    });
    const { counts, results } = await scan(
      [`http://127.0.0.1:${s.port}/`],
      { monotonic: () => clock },
      { ...TEMPLATE, urlBudgetMs: 1000, requestTimeoutMs: 1000 },
    );
    expect(results[0]?.budgetExhausted).toBe('url');
    expect(results[0]?.software[0]?.product).toBe('nginx');
    expect(counts.budgetExhausted).toBeNull();
    expect(s.paths.length).toBeLessThanOrEqual(3);
  });

  it('stops the run when the run budget runs out, keeping results so far', async () => {
    let clock = 0;
    const s = await site((req, res) => {
      clock += 1500;
      routes({ '/': send(200, 'x') })(req, res);
    });
    const urls = [1, 2, 3].map((n) => `http://127.0.0.1:${s.port}/?n=${n}`);
    const { counts, results } = await scan(
      urls,
      { monotonic: () => clock },
      { ...TEMPLATE, runBudgetMs: 2000, requestTimeoutMs: 1000, urlBudgetMs: 1000 },
    );
    expect(counts.budgetExhausted).toBe('run');
    expect(results.length).toBeLessThan(3);
    expect(results.at(-1)?.budgetExhausted).toBe('run');
  });

  it('an abort stops the run', async () => {
    const s = await site(() => undefined); // never answers
    const controller = new AbortController();
    const running = scan([`http://127.0.0.1:${s.port}/`], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped by test')), 100);
    await expect(running).rejects.toThrow('stopped by test');
  });
});
