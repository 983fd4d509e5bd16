import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { OfficialSources } from '../../src/intel/sync/sources.js';

// A stand-in for the official intelligence sources on 127.0.0.1, answering as they do from real
// records (test/fixtures/intel, see its SOURCES.md): NVD API 2.0 pages built from the NVD records
// by lastModified window and startIndex, a KEV catalogue and an EPSS file cut from the real ones,
// and osv.dev's ecosystem zips. Tests of the sync point it here: no test reaches the internet.

const FIXTURES = new URL('../fixtures/intel/', import.meta.url);
export const NVD_PATH = '/rest/json/cves/2.0';
const DAY = 86_400_000;

/** The real NVD records, by id, with their lastModified (NVD writes UTC without a zone). */
export const RECORDS = readdirSync(new URL('nvd/', FIXTURES))
  .sort()
  .map(
    (f) =>
      JSON.parse(readFileSync(new URL(`nvd/${f}`, FIXTURES), 'utf8')) as { id: string; lastModified: string },
  )
  .slice(0, 6);
export const modified = (r: { lastModified: string }) => new Date(`${r.lastModified}Z`).getTime();

/** The real KEV catalogue's first three entries, as the catalogue. */
function kevAnswer(): string {
  const kev = JSON.parse(readFileSync(new URL('kev/known_exploited_vulnerabilities.json', FIXTURES), 'utf8'));
  const vulnerabilities = kev.vulnerabilities.slice(0, 3);
  return JSON.stringify({ ...kev, count: vulnerabilities.length, vulnerabilities });
}
/** The real EPSS file's comment line, header and first ten scores, gzipped as FIRST serves it. */
function epssAnswer(): Buffer {
  const lines = readFileSync(new URL('epss/epss_scores-subset.csv', FIXTURES), 'utf8').split('\n');
  return gzipSync(`${lines.slice(0, 12).join('\n')}\n`);
}

/** NVD's answer to one page request: 404 for a window over 120 days, as NVD does. */
function nvdAnswer(url: URL): { status: number; body: string } {
  const p = url.searchParams;
  const start = p.get('lastModStartDate');
  const end = p.get('lastModEndDate');
  if ((start === null) !== (end === null)) return { status: 404, body: '' };
  let records = RECORDS;
  if (start && end) {
    const [from, to] = [Date.parse(start), Date.parse(end)];
    if (!(to > from) || to - from > 120 * DAY) return { status: 404, body: '' };
    records = RECORDS.filter((r) => modified(r) >= from && modified(r) <= to);
  }
  const startIndex = Number(p.get('startIndex') ?? 0);
  const perPage = Number(p.get('resultsPerPage') ?? 2000);
  const page = records.slice(startIndex, startIndex + perPage);
  return {
    status: 200,
    body: JSON.stringify({
      resultsPerPage: page.length,
      startIndex,
      totalResults: records.length,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp: '2026-11-21T12:00:00.000',
      vulnerabilities: page.map((cve) => ({ cve })),
    }),
  };
}

export interface Answer {
  status: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
}
export interface Seen {
  path: string;
  url: URL;
  at: number;
  headers: IncomingHttpHeaders;
}

export class IntelMirror {
  base = '';
  seen: Seen[] = [];
  /** One-shot answers that come before the recorded ones: the first that matches is used and dropped. */
  special: { match: (url: URL) => boolean; answer: Answer }[] = [];
  /** Told of each request before it is answered (a test stops the sync there). */
  onRequest: (url: URL) => void = () => {};
  private readonly kev = kevAnswer();
  private readonly epss = epssAnswer();
  private server: Server | undefined;

  /** `now` stamps each request with the application's time. */
  constructor(private readonly now: () => number) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      this.seen.push({ path: url.pathname, url, at: this.now(), headers: req.headers });
      this.onRequest(url);
      const i = this.special.findIndex((s) => s.match(url));
      const answer: Answer =
        i >= 0
          ? this.special.splice(i, 1)[0]!.answer
          : (this.recorded(url) ?? { status: 404, body: 'no such file' });
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The official sources as this mirror serves them, two NVD records a page. */
  sources(): OfficialSources {
    return {
      nvd: { url: `${this.base}${NVD_PATH}`, resultsPerPage: 2 },
      kev: `${this.base}/kev.json`,
      epss: `${this.base}/epss.csv.gz`,
      osv: { url: `${this.base}/osv`, ecosystems: ['npm', 'PyPI'] },
    };
  }

  private recorded(url: URL): Answer | undefined {
    if (url.pathname === NVD_PATH) return nvdAnswer(url);
    if (url.pathname === '/kev.json') return { status: 200, body: this.kev };
    if (url.pathname === '/epss.csv.gz') return { status: 200, body: this.epss };
    const zip = /^\/osv\/([^/]+)\/all\.zip$/.exec(url.pathname);
    if (zip?.[1] === 'npm' || zip?.[1] === 'PyPI')
      return { status: 200, body: readFileSync(new URL(`osv-zip/${zip[1]}-all.zip`, FIXTURES)) };
    return undefined;
  }
}
