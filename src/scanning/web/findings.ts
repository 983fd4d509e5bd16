// What a web scan reports from the answers it got: header findings from the Observatory score,
// cookie flags, software named in headers, and evidence excerpts that are bounded and printable.

import { cpesFor, identify, productToken } from '../fingerprints/index.js';
import { printable } from '../fingerprints/text.js';
import type { CheckResult, WebSoftware } from '../types.js';
import { type HttpAnswer, header } from './http.js';
import type { Cookie, Score } from './observatory.js';

const EVIDENCE_HEADERS = ['content-type', 'content-length', 'server', 'location', 'last-modified'];

/** Request line, status line, a few headers and the first ~300 printable bytes of the body. */
export function exchangeEvidence(answer: HttpAnswer): string {
  const lines = [
    answer.requestLine,
    `Host: ${answer.host}`,
    '',
    `HTTP/${answer.httpVersion} ${answer.status} ${answer.statusText}`,
    ...answer.headerLines
      .filter(([n]) => EVIDENCE_HEADERS.includes(n.toLowerCase()))
      .map(([n, v]) => `${n}: ${v.slice(0, 200)}`),
  ];
  const head = lines.map((line) => printable(line)).join('\n');
  const body = printableBody(answer.body.subarray(0, 300));
  return (body === '' ? head : `${head}\n\n${body}`).slice(0, 4000);
}

/** Bytes as text with anything unprintable shown as a dot (line breaks kept). */
function printableBody(bytes: Buffer): string {
  let out = '';
  for (const b of bytes)
    out += b === 0x0a || (b >= 0x20 && b < 0x7f) ? String.fromCharCode(b) : b === 0x0d ? '' : '.';
  return out;
}

/** The checks the score's failed tests stand for, each with the header as seen. */
export function headerFindings(score: Score, https: boolean, url: string, answer: HttpAnswer): CheckResult[] {
  const results: CheckResult[] = [];
  const by = new Map(score.modifiers.map((m) => [m.test, m]));
  const add = (checkId: string, test: string, name: string) => {
    const m = by.get(test);
    const value = header(answer, name);
    results.push({
      checkId,
      port: null,
      url,
      evidence: `${value === null ? `No ${headerName(name)} header` : `${headerName(name)}: ${printable(value).slice(0, 1000)}`} (${m?.result}, ${m?.modifier})`,
      details: { result: m?.result, modifier: m?.modifier },
    });
  };
  if ((by.get('content-security-policy')?.modifier ?? 0) < 0)
    add('web.header-csp', 'content-security-policy', 'content-security-policy');
  if (https && (by.get('strict-transport-security')?.modifier ?? 0) < 0)
    add('web.header-hsts', 'strict-transport-security', 'strict-transport-security');
  if ((by.get('x-content-type-options')?.modifier ?? 0) < 0)
    add('web.header-x-content-type-options', 'x-content-type-options', 'x-content-type-options');
  if ((by.get('x-frame-options')?.modifier ?? 0) < 0)
    add('web.header-x-frame-options', 'x-frame-options', 'x-frame-options');
  const referrer = by.get('referrer-policy')?.result;
  if (referrer === 'referrer-policy-not-implemented' || (by.get('referrer-policy')?.modifier ?? 0) < 0)
    add('web.header-referrer-policy', 'referrer-policy', 'referrer-policy');
  const cookies = cookieFinding(score.cookies, url);
  if (cookies) results.push(cookies);
  return results;
}

function headerName(lower: string): string {
  return lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/** One finding per URL, listing every cookie that lacks a flag and what it lacks. */
export function cookieFinding(cookies: Cookie[], url: string): CheckResult | null {
  const lacking = cookies
    .map((c) => {
      const missing = [
        ...(c.secure ? [] : ['Secure']),
        ...(c.httpOnly ? [] : ['HttpOnly']),
        ...(c.sameSite === null
          ? ['SameSite']
          : ['strict', 'lax', 'none'].includes(c.sameSite)
            ? []
            : [`valid SameSite (${c.sameSite})`]),
      ];
      return { name: printable(c.name), missing };
    })
    .filter((c) => c.missing.length > 0);
  if (lacking.length === 0) return null;
  return {
    checkId: 'web.cookie-flags',
    port: null,
    url,
    evidence: lacking
      .map((c) => `${c.name}: without ${c.missing.join(', ')}`)
      .join('; ')
      .slice(0, 4000),
    details: { cookies: lacking },
  };
}

/** Headers that name the software behind a site. */
const SOFTWARE_HEADERS = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-generator'];

/** Display names of products known to the vendor alias table, as headers write them. */
const PRODUCT_NAMES: Record<string, string> = {
  'x-aspnet-version': 'ASP.NET',
  'x-aspnetmvc-version': 'ASP.NET MVC',
};

export function softwareOf(answers: HttpAnswer[], port: number): WebSoftware[] {
  const seen = new Map<string, WebSoftware>();
  for (const answer of answers) {
    for (const name of SOFTWARE_HEADERS) {
      const raw = header(answer, name);
      if (raw === null) continue;
      const value = printable(raw).trim().slice(0, 256);
      const key = `${name}\u0000${value}`;
      if (seen.has(key)) continue;
      seen.set(key, softwareFrom(name, value, port));
    }
  }
  return [...seen.values()];
}

function softwareFrom(name: string, value: string, port: number): WebSoftware {
  const display = headerName(name);
  if (name === 'server') {
    const found = identify({ port, httpHeaders: { server: value } });
    if (found?.product)
      return { header: display, value, product: found.product, version: found.version, cpes: found.cpes };
  }
  const fixed = PRODUCT_NAMES[name];
  if (fixed) {
    const version = /^\d[0-9A-Za-z.]{0,40}$/.test(value) ? value : null;
    return { header: display, value, product: fixed, version, cpes: cpesFor(fixed, version) };
  }
  const token = productToken(value);
  const product = token?.product ?? null;
  const version = token?.version ?? null;
  return { header: display, value, product, version, cpes: product ? cpesFor(product, version) : [] };
}

/** `service.version-disclosed` when any header names a version. */
export function versionDisclosed(software: WebSoftware[], url: string): CheckResult | null {
  const versioned = software.filter((s) => s.version !== null);
  if (versioned.length === 0) return null;
  return {
    checkId: 'service.version-disclosed',
    port: null,
    url,
    evidence: versioned
      .map((s) => `${s.header}: ${s.value}`)
      .join('; ')
      .slice(0, 4000),
    details: { software: versioned.map((s) => ({ product: s.product, version: s.version })) },
  };
}
