// One recogniser per protocol. Each reads the bounded, printable lines of a banner (see text.ts)
// and returns a guess, or null when the banner is not its protocol. Patterns are anchored and
// bounded so that hostile banners cannot make them backtrack for long.

import { guess, VERSION } from './guess.js';
import { mysqlProduct, readMysqlGreeting } from './mysql.js';
import type { ServiceGuess } from './types.js';

export interface Seen {
  port: number;
  lines: string[];
  bytes: Buffer;
}

const HTTPS_PORTS = new Set([443, 4443, 8443, 9443]);

/** `SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10`: protocol, software version, then an optional comment. */
export function ssh(seen: Seen): ServiceGuess | null {
  const line = seen.lines[0];
  const match = line === undefined ? null : /^SSH-\d\.\d{1,2}-(\S{1,100})/.exec(line);
  if (!line || !match) return null;
  const software = match[1]!;
  // Only the release (`9.2p1`): a vendor patch set glued on (`9.2p1-hpn14v15`) is no NVD version.
  const openssh = /^OpenSSH_(?:for_Windows_)?(\d{1,3}(?:\.\d{1,3}){0,3}(?:p\d{1,3})?)/.exec(software);
  if (openssh) return guess('ssh', 'OpenSSH', openssh[1]!, line);
  const dropbear = new RegExp(`^dropbear(?:_(${VERSION}))?$`, 'i').exec(software);
  if (dropbear) return guess('ssh', 'Dropbear', dropbear[1] ?? null, line);
  return guess('ssh', null, null, line);
}

/** Server header tokens (`Apache/2.4.52 (Ubuntu) OpenSSL/3.0.2`): the first known product wins. */
const SERVER_PRODUCTS: readonly [RegExp, string][] = [
  [/^nginx$/i, 'nginx'],
  [/^apache$/i, 'Apache httpd'],
  [/^microsoft-iis$/i, 'Microsoft IIS'],
  [/^lighttpd$/i, 'lighttpd'],
  [/^caddy$/i, 'Caddy'],
  [/^openresty$/i, 'OpenResty'],
];

/** An HTTP response's Server header, from the headers given or from a raw response banner. */
export function http(seen: Seen, headers: Record<string, string> | undefined): ServiceGuess | null {
  const service = HTTPS_PORTS.has(seen.port) ? 'https' : 'http';
  const server = headers ? headerValue(headers, 'server') : serverFromBanner(seen.lines);
  if (server === undefined) return null;
  if (server === null)
    return guess(service, null, null, seen.lines[0] ?? 'HTTP response without a Server header');
  for (const token of server.replace(/\([^)]{0,200}\)/g, ' ').split(/\s+/, 20)) {
    const [name, version] = token.split('/', 2);
    const product = SERVER_PRODUCTS.find(([pattern]) => pattern.test(name ?? ''))?.[1];
    if (!product) continue;
    const release = version === undefined ? null : new RegExp(`^${VERSION}$`).exec(version);
    return guess(service, product, release?.[0] ?? null, `Server: ${server}`);
  }
  const token = productToken(server);
  return guess(service, token?.product ?? null, token?.version ?? null, `Server: ${server}`);
}

/**
 * The first product token of a header naming software outside the table above (`SimpleHTTP/0.6
 * Python/3.11.2`, `Jetty(9.4.51)`, `PHP/8.1.2`, `Drupal 10 (https://www.drupal.org)`): shared by
 * system scans (a Server header on any port) and web scans (Server, X-Powered-By, …), so both name
 * the same product. Null when the value starts with no name.
 */
export function productToken(value: string): { product: string; version: string | null } | null {
  const match = /^([A-Za-z][A-Za-z0-9 ._+-]{0,60}?)(?:[/ (](\d[0-9A-Za-z.+~_-]{0,40})\)?)?(?:[\s;,(]|$)/.exec(
    value,
  );
  const product = match?.[1]?.trim();
  return product ? { product, version: match?.[2] ?? null } : null;
}

function headerValue(headers: Record<string, string>, name: string): string | null {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value.slice(0, 512).trim();
  }
  return null;
}

/** undefined: not an HTTP response; null: a response without a Server header. */
function serverFromBanner(lines: string[]): string | null | undefined {
  if (!/^HTTP\/\d(?:\.\d)? \d{3}\b/.test(lines[0] ?? '')) return undefined;
  for (const line of lines.slice(1)) {
    const match = /^server:[ \t]*(.*)$/i.exec(line);
    if (match) return match[1]!.trim();
  }
  return null;
}

/** Redis answers RESP: `-NOAUTH …` or `+PONG` to a PING, `redis_version:` in INFO. */
export function redis(seen: Seen): ServiceGuess | null {
  for (const line of seen.lines) {
    const info = new RegExp(`^redis_version:(${VERSION})$`).exec(line.trim());
    if (info) return guess('redis', 'Redis', info[1]!, line);
  }
  const first = seen.lines[0] ?? '';
  if (/^(?:\+PONG|-NOAUTH |-DENIED Redis )/.test(first)) return guess('redis', 'Redis', null, first);
  return null;
}

const FTP_PORTS = new Set([21, 990, 2121]);
const SMTP_PORTS = new Set([25, 465, 587, 2525]);

/** A `220` greeting is FTP or SMTP: the product says which, else the text, else the port. */
export function greeting220(seen: Seen): ServiceGuess | null {
  const lines = seen.lines.filter((line) => /^220[ -]/.test(line));
  if (lines.length === 0) return null;
  for (const line of lines) {
    const found = ftpProduct(line) ?? smtpProduct(line);
    if (found) return found;
  }
  const first = lines[0]!;
  if (/\bE?SMTP\b/.test(first) || SMTP_PORTS.has(seen.port)) return guess('smtp', null, null, first);
  if (/\bFTP\b/i.test(first) || FTP_PORTS.has(seen.port)) return guess('ftp', null, null, first);
  return null;
}

function ftpProduct(line: string): ServiceGuess | null {
  const vsftpd = new RegExp(`\\(vsFTPd (${VERSION})\\)`).exec(line);
  if (vsftpd) return guess('ftp', 'vsftpd', vsftpd[1]!, line);
  const proftpd = new RegExp(`\\bProFTPD(?: (${VERSION}))? Server\\b`).exec(line);
  if (proftpd) return guess('ftp', 'ProFTPD', proftpd[1] ?? null, line);
  if (/\bPure-FTPd\b/.test(line)) return guess('ftp', 'Pure-FTPd', null, line);
  return null;
}

function smtpProduct(line: string): ServiceGuess | null {
  if (/\bE?SMTP Postfix\b/.test(line)) return guess('smtp', 'Postfix', null, line);
  const exim = new RegExp(`\\bE?SMTP Exim (${VERSION})`).exec(line);
  if (exim) return guess('smtp', 'Exim', exim[1]!, line);
  // Sendmail writes "Sendmail 8.15.2/8.15.2;": the binary's version, then its configuration's.
  const sendmail = /\bE?SMTP Sendmail (\d[0-9A-Za-z.+~_-]{0,40}?)(?:\/|;|\s|$)/.exec(line);
  if (sendmail) return guess('smtp', 'Sendmail', sendmail[1]!, line);
  return null;
}

/** IMAP and POP3 servers that name themselves in their greeting. */
const MAILBOX_PRODUCTS: readonly [RegExp, string][] = [
  [/\bDovecot\b/, 'Dovecot'],
  [/\bCourier-IMAP\b|\bCourier\b|\bDouble Precision, Inc\./, 'Courier'],
  [/\bCyrus (?:IMAP|POP3)4? (?:Murder )?v?(\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)/, 'Cyrus IMAP'],
  [/\bCyrus (?:IMAP|POP3)\b/, 'Cyrus IMAP'],
];

/** `* OK … Dovecot ready.` (IMAP), `+OK Dovecot ready.` (POP3), Courier and Cyrus alike. */
export function mailbox(seen: Seen): ServiceGuess | null {
  const first = seen.lines[0] ?? '';
  const service = /^\* (?:OK|PREAUTH)\b/.test(first) ? 'imap' : /^\+OK\b/.test(first) ? 'pop3' : null;
  if (!service) return null;
  for (const [pattern, product] of MAILBOX_PRODUCTS) {
    const match = pattern.exec(first);
    if (match) return guess(service, product, match[1] ?? null, first);
  }
  // Courier's POP3 greets with only "+OK Hello there.": too common a phrase to name a product.
  return guess(service, null, null, first);
}

/** The MySQL/MariaDB greeting packet (binary). */
export function mysql(seen: Seen): ServiceGuess | null {
  const greeting = readMysqlGreeting(seen.bytes);
  if (!greeting) return null;
  if (greeting.kind === 'error') {
    const product = /\bMariaDB\b/.test(greeting.message)
      ? 'MariaDB'
      : /\bMySQL\b/.test(greeting.message)
        ? 'MySQL'
        : null;
    return guess('mysql', product, null, greeting.message);
  }
  const { product, version } = mysqlProduct(greeting.serverVersion);
  return guess('mysql', product, version, greeting.serverVersion);
}
