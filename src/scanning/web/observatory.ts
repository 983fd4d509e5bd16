// Security headers scored the way Mozilla's HTTP Observatory scores them: start at 100, take the
// penalties, and add the bonuses only when the result is 90 (A) or more; never below 0. Modifiers
// and the grade chart are the published ones:
//   https://developer.mozilla.org/en-US/observatory/docs/tests_and_scoring
//   https://github.com/mozilla/http-observatory/blob/main/httpobs/docs/scoring.md
// Scored here: Content Security Policy, cookies, HSTS, redirection, Referrer-Policy,
// X-Content-Type-Options, X-Frame-Options. Not scored (modifier 0): Subresource Integrity (needs
// the HTML's scripts), CORS, HSTS preloading (needs the preload list) and CSP in <meta>. HSTS on a
// site with an untrusted certificate is not penalised here: the TLS checks report the certificate.

export interface Modifier {
  test: string;
  result: string;
  modifier: number;
}

export interface HeaderInput {
  /** Lower-case header name → value of the final response (repeated headers joined with ", "). */
  get(name: string): string | null;
  /** Set-Cookie values of every response on the way (redirects included). */
  setCookies: string[];
  /** The final response was over https. */
  https: boolean;
  redirection: RedirectionResult;
}

export type RedirectionResult =
  | 'redirection-to-https'
  | 'redirection-not-needed-no-http'
  | 'redirection-off-host-from-http'
  | 'redirection-not-to-https-on-initial-redirection'
  | 'redirection-missing'
  | 'redirection-not-to-https';

const REDIRECTION: Record<RedirectionResult, number> = {
  'redirection-to-https': 0,
  'redirection-not-needed-no-http': 0,
  'redirection-off-host-from-http': -5,
  'redirection-not-to-https-on-initial-redirection': -10,
  'redirection-missing': -20,
  'redirection-not-to-https': -20,
};

const GRADES: ReadonlyArray<[number, string]> = [
  [100, 'A+'],
  [90, 'A'],
  [85, 'A-'],
  [80, 'B+'],
  [70, 'B'],
  [65, 'B-'],
  [60, 'C+'],
  [50, 'C'],
  [45, 'C-'],
  [40, 'D+'],
  [30, 'D'],
  [25, 'D-'],
  [0, 'F'],
];

export function gradeOf(score: number): string {
  return GRADES.find(([min]) => score >= min)?.[1] ?? 'F';
}

export interface Score {
  score: number;
  grade: string;
  modifiers: Modifier[];
  csp: Csp | null;
  cookies: Cookie[];
}

export function scoreHeaders(input: HeaderInput): Score {
  const csp = parseCsp(input.get('content-security-policy'));
  const hsts = hstsResult(input);
  const cookies = input.setCookies.map(parseCookie).filter((c): c is Cookie => c !== null);
  const modifiers: Modifier[] = [
    cspModifier(csp, input.https),
    cookieModifier(cookies, input.https, hsts.modifier === 0),
    hsts,
    { test: 'redirection', result: input.redirection, modifier: REDIRECTION[input.redirection] },
    referrerModifier(input.get('referrer-policy')),
    xctoModifier(input.get('x-content-type-options')),
    xfoModifier(input.get('x-frame-options'), csp),
  ];
  const penalties = modifiers.filter((m) => m.modifier < 0).reduce((sum, m) => sum + m.modifier, 0);
  const bonuses = modifiers.filter((m) => m.modifier > 0).reduce((sum, m) => sum + m.modifier, 0);
  let score = Math.max(0, 100 + penalties);
  if (score >= 90) score += bonuses;
  return { score, grade: gradeOf(score), modifiers, csp, cookies };
}

// --- Content Security Policy ------------------------------------------------------------------

export interface Csp {
  directives: Map<string, string[]>;
  invalid: boolean;
}

export function parseCsp(value: string | null): Csp | null {
  if (value === null) return null;
  const directives = new Map<string, string[]>();
  let invalid = false;
  // Several policies (repeated headers joined by ", ") all apply; the first of a directive is kept.
  for (const policy of value.split(',')) {
    for (const part of policy.split(';')) {
      const tokens = part.trim().split(/\s+/).filter(Boolean);
      const name = tokens.shift()?.toLowerCase();
      if (!name) continue;
      if (!/^[a-z-]+$/.test(name)) invalid = true;
      else if (!directives.has(name))
        directives.set(
          name,
          tokens.map((t) => t.toLowerCase()),
        );
    }
  }
  return { directives, invalid: invalid || directives.size === 0 };
}

function effective(csp: Csp, directive: string): string[] | null {
  return csp.directives.get(directive) ?? csp.directives.get('default-src') ?? null;
}

const BROAD = new Set(['*', 'http:', 'https:', 'data:', 'blob:']);

function cspModifier(csp: Csp | null, https: boolean): Modifier {
  const test = 'content-security-policy';
  if (!csp) return { test, result: 'csp-not-implemented', modifier: -25 };
  if (csp.invalid) return { test, result: 'csp-header-invalid', modifier: -25 };
  const script = effective(csp, 'script-src');
  const object = effective(csp, 'object-src');
  const unsafeScript =
    script === null ||
    object === null ||
    script.some((s) => s === "'unsafe-inline'" || BROAD.has(s)) ||
    object.some((s) => BROAD.has(s) && s !== 'data:' && s !== 'blob:') ||
    object.includes('*');
  if (unsafeScript) return { test, result: 'csp-implemented-with-unsafe-inline', modifier: -20 };
  const sources = [...csp.directives.values()].flat();
  if (https && sources.some((s) => s === 'http:' || s.startsWith('http://')))
    return { test, result: 'csp-implemented-with-insecure-scheme', modifier: -20 };
  if (script.includes("'unsafe-eval'"))
    return { test, result: 'csp-implemented-with-unsafe-eval', modifier: -10 };
  const style = effective(csp, 'style-src') ?? [];
  if (style.some((s) => s === "'unsafe-inline'" || BROAD.has(s)))
    return { test, result: 'csp-implemented-with-unsafe-inline-in-style-src-only', modifier: 0 };
  const defaultNone = csp.directives.get('default-src')?.join(' ') === "'none'";
  return defaultNone
    ? { test, result: 'csp-implemented-with-no-unsafe-default-src-none', modifier: 10 }
    : { test, result: 'csp-implemented-with-no-unsafe', modifier: 5 };
}

// --- Cookies ----------------------------------------------------------------------------------

export interface Cookie {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite: string | null;
}

export function parseCookie(value: string): Cookie | null {
  const [pair, ...attributes] = value.split(';');
  const name = pair?.split('=', 1)[0]?.trim();
  if (!name) return null;
  const cookie: Cookie = { name: name.slice(0, 100), secure: false, httpOnly: false, sameSite: null };
  for (const attribute of attributes) {
    const [key, ...rest] = attribute.split('=');
    const k = key?.trim().toLowerCase();
    if (k === 'secure') cookie.secure = true;
    else if (k === 'httponly') cookie.httpOnly = true;
    else if (k === 'samesite') cookie.sameSite = rest.join('=').trim().toLowerCase();
  }
  return cookie;
}

/** The Observatory's notion of a session cookie: its name says login or session. */
export function isSessionCookie(cookie: Cookie): boolean {
  const name = cookie.name.toLowerCase();
  return name.includes('sess') || name.includes('login');
}

function cookieModifier(cookies: Cookie[], https: boolean, hstsProtected: boolean): Modifier {
  const test = 'cookies';
  if (cookies.length === 0) return { test, result: 'cookies-not-found', modifier: 0 };
  const sessions = cookies.filter(isSessionCookie);
  // The worst result wins, in the Observatory's order.
  if (sessions.some((c) => !c.secure || !https))
    return hstsProtected && https
      ? { test, result: 'cookies-session-without-secure-flag-but-protected-by-hsts', modifier: -10 }
      : { test, result: 'cookies-session-without-secure-flag', modifier: -40 };
  if (sessions.some((c) => !c.httpOnly))
    return { test, result: 'cookies-session-without-httponly-flag', modifier: -30 };
  if (cookies.some((c) => c.sameSite !== null && !['strict', 'lax', 'none'].includes(c.sameSite)))
    return { test, result: 'cookies-samesite-flag-invalid', modifier: -20 };
  if (cookies.some((c) => c.name.toLowerCase().includes('csrf') && c.sameSite === null))
    return { test, result: 'cookies-anticsrf-without-samesite-flag', modifier: -20 };
  if (cookies.some((c) => !c.secure || !https))
    return hstsProtected && https
      ? { test, result: 'cookies-without-secure-flag-but-protected-by-hsts', modifier: -5 }
      : { test, result: 'cookies-without-secure-flag', modifier: -20 };
  if (cookies.every((c) => c.sameSite === 'strict' || c.sameSite === 'lax'))
    return { test, result: 'cookies-secure-with-httponly-sessions-and-samesite', modifier: 5 };
  return { test, result: 'cookies-secure-with-httponly-sessions', modifier: 0 };
}

// --- HSTS, Referrer-Policy, X-Content-Type-Options, X-Frame-Options ----------------------------

export const HSTS_SIX_MONTHS = 15_768_000;

export function hstsMaxAge(value: string | null): number | null {
  if (value === null) return null;
  const match = /(?:^|;)\s*max-age\s*=\s*"?(\d{1,12})"?\s*(?:;|$)/i.exec(value);
  return match ? Number(match[1]) : null;
}

function hstsResult(input: HeaderInput): Modifier {
  const test = 'strict-transport-security';
  if (!input.https) return { test, result: 'hsts-not-implemented-no-https', modifier: -20 };
  const value = input.get('strict-transport-security');
  if (value === null) return { test, result: 'hsts-not-implemented', modifier: -20 };
  const maxAge = hstsMaxAge(value);
  if (maxAge === null) return { test, result: 'hsts-header-invalid', modifier: -20 };
  if (maxAge < HSTS_SIX_MONTHS)
    return { test, result: 'hsts-implemented-max-age-less-than-six-months', modifier: -10 };
  return { test, result: 'hsts-implemented-max-age-at-least-six-months', modifier: 0 };
}

const REFERRER_PRIVATE = new Set([
  'no-referrer',
  'same-origin',
  'strict-origin',
  'strict-origin-when-cross-origin',
]);
const REFERRER_UNSAFE = new Set(['origin', 'origin-when-cross-origin', 'unsafe-url']);

/** The policy that applies: the last value a browser recognises (a list gives fallbacks). */
export function referrerPolicy(value: string | null): string | null {
  if (value === null) return null;
  const known = value
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter((v) => REFERRER_PRIVATE.has(v) || REFERRER_UNSAFE.has(v) || v === 'no-referrer-when-downgrade');
  return known.at(-1) ?? 'invalid';
}

function referrerModifier(value: string | null): Modifier {
  const test = 'referrer-policy';
  const policy = referrerPolicy(value);
  if (policy === null) return { test, result: 'referrer-policy-not-implemented', modifier: 0 };
  if (REFERRER_PRIVATE.has(policy)) return { test, result: 'referrer-policy-private', modifier: 5 };
  if (policy === 'no-referrer-when-downgrade')
    return { test, result: 'referrer-policy-no-referrer-when-downgrade', modifier: 0 };
  if (REFERRER_UNSAFE.has(policy)) return { test, result: 'referrer-policy-unsafe', modifier: -5 };
  return { test, result: 'referrer-policy-header-invalid', modifier: -5 };
}

function xctoModifier(value: string | null): Modifier {
  const test = 'x-content-type-options';
  if (value === null) return { test, result: 'x-content-type-options-not-implemented', modifier: -5 };
  if (value.trim().toLowerCase() === 'nosniff')
    return { test, result: 'x-content-type-options-nosniff', modifier: 0 };
  return { test, result: 'x-content-type-options-header-invalid', modifier: -5 };
}

function xfoModifier(value: string | null, csp: Csp | null): Modifier {
  const test = 'x-frame-options';
  if (csp && !csp.invalid && csp.directives.has('frame-ancestors'))
    return { test, result: 'x-frame-options-implemented-via-csp', modifier: 5 };
  if (value === null) return { test, result: 'x-frame-options-not-implemented', modifier: -20 };
  const v = value.trim().toLowerCase();
  if (v === 'deny' || v === 'sameorigin')
    return { test, result: 'x-frame-options-sameorigin-or-deny', modifier: 0 };
  if (v.startsWith('allow-from ')) return { test, result: 'x-frame-options-allow-from-origin', modifier: 0 };
  return { test, result: 'x-frame-options-header-invalid', modifier: -20 };
}
