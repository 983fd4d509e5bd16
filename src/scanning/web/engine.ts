// The web scan engine: each URL fetched from the one address the policy allowed for its host,
// redirects followed on that host only, then its checks (TLS, HTTP→HTTPS, security headers scored
// as the HTTP Observatory scores them, software named in headers, exposed files against a soft-404
// baseline), within a request timeout, a per-URL budget and a run budget. URLs run one after
// another; requests are paced by a token bucket, all URLs together.

import { lookup } from 'node:dns/promises';
import { performance } from 'node:perf_hooks';
import { abortReason, refusalOf, TokenBucket } from '../runtime/limits.js';
import { WorkerPool } from '../runtime/pool.js';
import { endpointTlsChecks, probeTls } from '../tls/index.js';
import type { CheckResult, ScanProgress, TargetRefusal, WebTemplate, WebUrlResult } from '../types.js';
import {
  type BaselineAnswer,
  baselinePaths,
  EXPOSED_PROBES,
  isDirectoryListing,
  LISTED_BACKUPS_CHECKED,
  listedBackups,
  reduce,
  sameAsBaseline,
} from './exposed.js';
import { exchangeEvidence, headerFindings, softwareOf, versionDisclosed } from './findings.js';
import { type HttpAnswer, header, headers, request } from './http.js';
import { type RedirectionResult, scoreHeaders } from './observatory.js';
import { parseScanUrl, type ScanUrl, validateWebTemplate } from './template.js';

export interface WebScanOptions {
  signal: AbortSignal;
  /** Resolves a URL's host name (default: system resolver, node:dns lookup all). */
  resolve?: (name: string) => Promise<string[]>;
  /** The node's policy check before the first packet to an address (compilePolicy(spec.policy)). */
  check(address: string, hostname: string | null): TargetRefusal | null;
  /** The application's clock (certificate expiry). */
  now: () => Date;
  /** Budgets (injectable); monotonic milliseconds. */
  monotonic?: () => number;
  onUrl(result: WebUrlResult): void | Promise<void>;
  onProgress?(p: ScanProgress): void;
  /** Where the other scheme of a host is tried (default http 80, https 443); tests move them. */
  counterpartPorts?: { http: number; https: number };
}

export interface WebScanCounts {
  scanned: number;
  refused: number;
  budgetExhausted: 'run' | null;
}

export const MAX_REDIRECTS = 5;

class BudgetExhausted extends Error {
  constructor(readonly kind: 'url' | 'run') {
    super(kind === 'run' ? 'The run budget ran out.' : 'The URL budget ran out.');
  }
}

export async function webScan(
  urls: string[],
  template: WebTemplate,
  options: WebScanOptions,
): Promise<WebScanCounts> {
  validateWebTemplate(template);
  if (!Array.isArray(urls)) throw new RangeError('urls must be a list of http(s) URLs');
  // Every URL is read before the first packet: one bad URL fails the run before it starts.
  const targets = urls.map((u) => parseScanUrl(u));
  const monotonic = options.monotonic ?? (() => performance.now());
  const runDeadline = monotonic() + template.runBudgetMs;
  // Pacing keeps the real clock: the injected one drives budgets only.
  const bucket = new TokenBucket(template.requestsPerSecond);
  const counts: WebScanCounts = { scanned: 0, refused: 0, budgetExhausted: null };
  // One URL at a time, in order: a site is asked gently, and its answers read as a visit's.
  const pool = new WorkerPool({ signal: options.signal });
  const scan = async ([index, target]: [number, ScanUrl]) => {
    const result = await new UrlScan(target, template, options, bucket, monotonic, runDeadline).run();
    if (result === 'refused') counts.refused++;
    else {
      await pool.emit(() => options.onUrl(result));
      counts.scanned++;
      if (result.budgetExhausted === 'run') counts.budgetExhausted = 'run';
    }
    options.onProgress?.({ done: index + 1, total: targets.length, found: counts.scanned });
  };
  await pool.run(targets.entries(), 1, scan, () => {
    if (counts.budgetExhausted) return false;
    if (monotonic() < runDeadline) return true;
    counts.budgetExhausted = 'run';
    return false;
  });
  return counts;
}

async function systemResolve(name: string): Promise<string[]> {
  return (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
}

interface Chain {
  urls: URL[];
  answers: HttpAnswer[];
}

class UrlScan {
  private readonly result: WebUrlResult;
  private readonly deadline: number;
  private address = '';

  constructor(
    private readonly target: ScanUrl,
    private readonly template: WebTemplate,
    private readonly options: WebScanOptions,
    private readonly bucket: TokenBucket,
    private readonly monotonic: () => number,
    private readonly runDeadline: number,
  ) {
    this.deadline = Math.min(monotonic() + template.urlBudgetMs, runDeadline);
    this.result = {
      url: target.url.href,
      finalUrl: null,
      status: null,
      address: null,
      software: [],
      checks: [],
      headerScore: null,
      notes: [],
      error: null,
      budgetExhausted: null,
      tlsPort: null,
      httpCounterpart: null,
    };
  }

  async run(): Promise<WebUrlResult | 'refused'> {
    const address = await this.checkedAddress();
    if (address === 'refused') return 'refused';
    if (address === null) return this.result;
    this.address = address;
    this.result.address = address;
    try {
      await this.checks();
    } catch (error) {
      if (this.options.signal.aborted) throw abortReason(this.options.signal);
      if (error instanceof BudgetExhausted) {
        this.result.budgetExhausted = error.kind;
        this.result.notes.push(`${error.message} Checks not finished were not judged.`);
      } else if (this.result.status === null) this.result.error = describe(error);
      else this.result.notes.push(`A check could not finish: ${describe(error)}`);
    }
    return this.result;
  }

  /** The first address of the host the policy allows; 'refused' when none; null when unresolved. */
  private async checkedAddress(): Promise<string | 'refused' | null> {
    const { hostname, literal } = this.target;
    let addresses: string[];
    if (literal) addresses = [literal];
    else {
      try {
        addresses = await (this.options.resolve ?? systemResolve)(hostname as string);
      } catch (error) {
        if (this.options.signal.aborted) throw abortReason(this.options.signal);
        this.result.error = `${hostname} did not resolve: ${describe(error)}`;
        return null;
      }
      if (addresses.length === 0) {
        this.result.error = `${hostname} did not resolve to any address`;
        return null;
      }
    }
    for (const address of addresses)
      if (refusalOf(address, (a) => this.options.check(a, hostname)) === null) return address;
    return 'refused';
  }

  private async checks(): Promise<void> {
    const main = await this.follow(this.target.url);
    const final = main.answers.at(-1) as HttpAnswer;
    const finalUrl = main.urls[main.answers.length - 1] as URL;
    this.result.status = final.status;
    this.result.finalUrl = finalUrl.href;
    this.result.software = softwareOf(main.answers, this.target.port);
    const disclosed = versionDisclosed(this.result.software, this.result.url);
    if (disclosed) this.result.checks.push(disclosed);

    const redirection = await this.redirection(main);
    if (this.template.headerChecks) {
      const https = finalUrl.protocol === 'https:';
      const score = scoreHeaders({
        get: (name) => header(final, name),
        setCookies: main.answers.flatMap((a) => headers(a, 'set-cookie')),
        https,
        redirection,
      });
      this.result.headerScore = { score: score.score, grade: score.grade };
      this.result.checks.push(...headerFindings(score, https, this.result.url, final));
    }
    if (this.template.tlsChecks) {
      const httpsUrl = main.urls.slice(0, main.answers.length).find((u) => u.protocol === 'https:');
      if (httpsUrl) await this.tls(httpsUrl);
    }
    if (this.template.exposedFiles) await this.exposed(finalUrl, final);
  }

  /** One request to the checked address, paced and within the budgets. */
  private async fetch(url: URL, method: 'GET' | 'HEAD' = 'GET'): Promise<HttpAnswer> {
    const left = this.timeLeft();
    await this.bucket.take(this.options.signal);
    return request({
      url,
      address: this.address,
      method,
      timeoutMs: Math.max(1, Math.min(this.template.requestTimeoutMs, left)),
      signal: this.options.signal,
    });
  }

  /** Milliseconds left of the URL's budget; throws when it (or the run's) ran out. */
  private timeLeft(): number {
    const now = this.monotonic();
    if (now >= this.runDeadline) throw new BudgetExhausted('run');
    if (now >= this.deadline) throw new BudgetExhausted('url');
    return Math.ceil(this.deadline - now);
  }

  /** GET, then redirects on the same host, at most MAX_REDIRECTS. */
  private async follow(start: URL): Promise<Chain> {
    const chain: Chain = { urls: [start], answers: [] };
    let current = start;
    for (let hop = 0; ; hop++) {
      const answer = await this.fetch(current);
      chain.answers.push(answer);
      const location = answer.status >= 300 && answer.status < 400 ? header(answer, 'location') : null;
      if (location === null) return chain;
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        this.note(`Redirect from ${current.href} to an unreadable location not followed.`);
        return chain;
      }
      chain.urls.push(next);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        this.note(`Redirect from ${current.href} to a ${next.protocol} URL not followed.`);
        return chain;
      }
      if (!this.sameHost(next)) {
        this.note(`Redirect from ${current.href} to ${next.origin} not followed: another host.`);
        return chain;
      }
      if (hop + 1 > MAX_REDIRECTS) {
        this.note(`More than ${MAX_REDIRECTS} redirects from ${start.href}: stopped.`);
        return chain;
      }
      current = next;
    }
  }

  private sameHost(url: URL): boolean {
    const host = url.hostname
      .replace(/^\[|\]$/g, '')
      .toLowerCase()
      .replace(/\.$/, '');
    return host === (this.target.hostname ?? this.target.literal);
  }

  private note(text: string): void {
    if (!this.result.notes.includes(text)) this.result.notes.push(text);
  }

  /**
   * The Observatory's redirection test, and web.no-https-redirect: an http URL is judged by its
   * own chain; an https URL by the http variant of it on the http port.
   */
  private async redirection(main: Chain): Promise<RedirectionResult> {
    const ports = this.options.counterpartPorts ?? { http: 80, https: 443 };
    if (this.target.https) {
      const variant = new URL(this.target.url.href);
      variant.protocol = 'http:';
      variant.port = String(ports.http);
      let chain: Chain;
      try {
        chain = await this.follow(variant);
      } catch (error) {
        if (error instanceof BudgetExhausted || this.options.signal.aborted) throw error;
        this.result.httpCounterpart = variant.href;
        return 'redirection-not-needed-no-http';
      }
      this.result.httpCounterpart = variant.href;
      const result = redirectionOf(chain, (u) => this.sameHost(u));
      // Filed on the http URL: it is the one that lacks the redirect, not the https one.
      if (!isHttpsRedirect(result) && chain.answers[0]?.status === 200)
        this.noHttpsRedirect(
          chain.answers[0],
          variant.href,
          `the site answers https at ${this.target.url.origin}`,
        );
      return result;
    }
    const result = redirectionOf(main, (u) => this.sameHost(u));
    if (isHttpsRedirect(result) || main.answers[0]?.status !== 200) return result;
    const httpsVariant = new URL(this.target.url.href);
    httpsVariant.protocol = 'https:';
    httpsVariant.port = String(ports.https);
    try {
      const answer = await this.fetch(httpsVariant, 'HEAD');
      if (answer.status > 0)
        this.noHttpsRedirect(
          main.answers[0],
          this.result.url,
          `the host answers https on port ${ports.https}`,
        );
    } catch (error) {
      if (error instanceof BudgetExhausted || this.options.signal.aborted) throw error;
    }
    return result;
  }

  private noHttpsRedirect(answer: HttpAnswer, httpUrl: string, why: string): void {
    this.result.checks.push({
      checkId: 'web.no-https-redirect',
      port: null,
      url: httpUrl,
      evidence: `${exchangeEvidence(answer)}\n\n(no redirect to https, and ${why})`.slice(0, 4000),
    });
  }

  private async tls(url: URL): Promise<void> {
    const left = this.timeLeft();
    await this.bucket.take(this.options.signal);
    const port = url.port === '' ? 443 : Number(url.port);
    // The probe's handshakes are bounded by the URL's budget on the real clock as well.
    const budget = AbortSignal.timeout(left);
    const signal = AbortSignal.any([this.options.signal, budget]);
    let report: Awaited<ReturnType<typeof probeTls>>;
    try {
      report = await probeTls(this.address, port, {
        servername: this.target.hostname,
        timeoutMs: Math.max(1, Math.min(this.template.requestTimeoutMs, left)),
        signal,
      });
    } catch (error) {
      if (budget.aborted && !this.options.signal.aborted)
        throw new BudgetExhausted(this.monotonic() >= this.runDeadline ? 'run' : 'url');
      throw error;
    }
    if (!report) {
      this.note(`${url.host} did not complete a TLS handshake: TLS not judged.`);
      return;
    }
    for (const n of report.notes) this.note(n);
    // The endpoint's checks, on its port: the same findings a system scan of the port makes.
    const checks: CheckResult[] = endpointTlsChecks(report, {
      now: this.options.now(),
      address: this.address,
      hostname: this.target.hostname,
      port,
      url: this.result.url,
    });
    this.result.tlsPort = port;
    this.result.checks.push(...checks);
  }

  /** Exposed files and a directory listing, each judged against the soft-404 baseline. */
  private async exposed(base: URL, final: HttpAnswer): Promise<void> {
    const baseline: BaselineAnswer[] = [];
    for (const path of baselinePaths()) baseline.push(reduce(await this.fetch(new URL(path, base)), path));
    if (
      final.status >= 200 &&
      final.status < 300 &&
      isDirectoryListing(final.body) &&
      !sameAsBaseline(reduce(final, base.pathname), baseline)
    ) {
      this.result.checks.push({
        checkId: 'web.directory-listing',
        port: null,
        url: base.href,
        evidence: exchangeEvidence(final),
      });
      await this.listedBackups(base, final, baseline);
    }
    for (const probe of EXPOSED_PROBES) {
      const url = new URL(probe.path, base);
      const answer = await this.fetch(url);
      if (answer.status < 200 || answer.status >= 300) continue;
      if (!probe.matches(answer.body, header(answer, 'content-type'))) continue;
      if (sameAsBaseline(reduce(answer, probe.path), baseline)) continue;
      this.result.checks.push({
        checkId: probe.checkId,
        port: null,
        url: url.href,
        evidence: exchangeEvidence(answer),
      });
    }
  }

  /**
   * Backup and dump files a directory listing names: each fetched (GET) and kept only when it
   * answers 2xx with something other than the site's soft-404 page; one finding names them all.
   */
  private async listedBackups(base: URL, listing: HttpAnswer, baseline: BaselineAnswer[]): Promise<void> {
    const names = listedBackups(listing.body);
    const served: { name: string; status: number; bytes: number }[] = [];
    for (const name of names.slice(0, LISTED_BACKUPS_CHECKED)) {
      const url = new URL(encodeURIComponent(name), base);
      const answer = await this.fetch(url);
      if (answer.status < 200 || answer.status >= 300) continue;
      if (sameAsBaseline(reduce(answer, url.pathname), baseline)) continue;
      served.push({ name, status: answer.status, bytes: answer.body.length });
    }
    if (served.length === 0) return;
    const skipped = names.length - Math.min(names.length, LISTED_BACKUPS_CHECKED);
    this.result.checks.push({
      checkId: 'web.listed-backup',
      port: null,
      url: base.href,
      evidence: [
        `Listed and downloadable: ${served.map((f) => f.name).join(', ')}`,
        ...served.map(
          (f) =>
            `GET ${new URL(encodeURIComponent(f.name), base).pathname} → ${f.status}, ${f.bytes} bytes read`,
        ),
        ...(skipped > 0 ? [`${skipped} more listed backup names not fetched`] : []),
      ]
        .join('\n')
        .slice(0, 4000),
      details: { files: served.map((f) => f.name) },
    });
  }
}

function isHttpsRedirect(result: RedirectionResult): boolean {
  return (
    result === 'redirection-to-https' ||
    result === 'redirection-off-host-from-http' ||
    result === 'redirection-not-to-https-on-initial-redirection'
  );
}

/** The Observatory's redirection result of an http URL's chain. */
function redirectionOf(chain: Chain, sameHost: (url: URL) => boolean): RedirectionResult {
  const first = chain.urls[1];
  if (!first) return 'redirection-missing';
  const last = chain.urls.at(-1) as URL;
  if (first.protocol === 'https:')
    return sameHost(first) ? 'redirection-to-https' : 'redirection-off-host-from-http';
  return last.protocol === 'https:'
    ? 'redirection-not-to-https-on-initial-redirection'
    : 'redirection-not-to-https';
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message.slice(0, 500);
  return String(error).slice(0, 500);
}
