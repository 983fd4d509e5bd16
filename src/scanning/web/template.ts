// What a web scan is allowed to be asked: its template's limits and the URLs it is given. Both
// come over the network to a remote node, so both are checked before any packet is sent.

import { isIP } from 'node:net';
import type { WebTemplate } from '../types.js';

const LIMITS = {
  requestTimeoutMs: [100, 120_000],
  urlBudgetMs: [1_000, 3_600_000],
  runBudgetMs: [1_000, 7 * 86_400_000],
} as const;

/** Throws a RangeError naming the field when the template is not one a node can run. */
export function validateWebTemplate(t: unknown): asserts t is WebTemplate {
  const fail = (field: string, rule: string): never => {
    throw new RangeError(`web template: ${field} ${rule}`);
  };
  if (typeof t !== 'object' || t === null || Array.isArray(t)) fail('template', 'must be an object');
  const template = t as Record<string, unknown>;
  for (const [field, [min, max]] of Object.entries(LIMITS)) {
    const value = template[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      fail(field, `must be an integer from ${min} to ${max} (milliseconds)`);
  }
  const rate = template.requestsPerSecond;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0 || rate > 1000)
    fail('requestsPerSecond', 'must be a number above 0 and at most 1000');
  for (const flag of ['tlsChecks', 'headerChecks', 'exposedFiles'])
    if (typeof template[flag] !== 'boolean') fail(flag, 'must be true or false');
  if ((template.urlBudgetMs as number) < (template.requestTimeoutMs as number))
    fail('urlBudgetMs', 'must be at least requestTimeoutMs');
}

/** A URL a web scan may be given: absolute http(s), a host, no credentials. */
export interface ScanUrl {
  url: URL;
  /** The host as a name, or null when the URL names an IP address. */
  hostname: string | null;
  /** The host to connect to when it is an IP literal (brackets removed). */
  literal: string | null;
  port: number;
  https: boolean;
}

/** Reads one URL of a web scan; a RangeError naming the URL when it cannot be scanned. */
export function parseScanUrl(text: unknown): ScanUrl {
  if (typeof text !== 'string' || text.length === 0 || text.length > 2048)
    throw new RangeError(`url must be a text of 1 to 2048 characters: ${String(text).slice(0, 100)}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError(`url is not an absolute URL: ${text.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RangeError(
      `url must be http or https, not ${url.protocol.replace(/:$/, '')}: ${text.slice(0, 200)}`,
    );
  if (url.username !== '' || url.password !== '')
    throw new RangeError('url must not carry credentials (user:password@)');
  if (url.hostname === '') throw new RangeError(`url has no host: ${text.slice(0, 200)}`);
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(bare) === 0 ? null : bare;
  const https = url.protocol === 'https:';
  url.hash = '';
  return {
    url,
    hostname: literal ? null : url.hostname.toLowerCase().replace(/\.$/, ''),
    literal,
    port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
    https,
  };
}
