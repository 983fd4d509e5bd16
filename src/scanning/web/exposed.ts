// Exposed files: a fixed, small list of paths that should never be public, each with a content
// signature. A hit must match its signature AND differ from the site's soft-404 baseline (what it
// answers for paths that cannot exist), so a site that answers 200 with the same page to every
// path gives no finding. GET only, no payloads, no crawling.

import { createHash, randomBytes } from 'node:crypto';
import type { HttpAnswer } from './http.js';

export interface ExposedProbe {
  path: string;
  checkId: string;
  /** Does the body look like the file, not like an HTML page about it? */
  matches(body: Buffer, contentType: string | null): boolean;
}

const text = (body: Buffer): string => body.toString('latin1');
const looksHtml = (body: Buffer): boolean =>
  /<(?:!doctype\s+html|html|head|body)[\s>]/i.test(text(body).slice(0, 1024));

export const EXPOSED_PROBES: readonly ExposedProbe[] = [
  {
    path: '/.git/HEAD',
    checkId: 'web.exposed-git',
    matches: (body) =>
      /^(?:ref: refs\/\S{1,200}|[0-9a-f]{40}|[0-9a-f]{64})\s*$/.test(text(body).slice(0, 512)),
  },
  {
    path: '/.env',
    checkId: 'web.exposed-env',
    matches: (body) => {
      if (looksHtml(body)) return false;
      const lines = text(body)
        .split(/\r?\n/, 200)
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#'));
      const assignments = lines.filter((l) => /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]{0,100}=/.test(l));
      return assignments.length >= 1 && assignments.length >= lines.length / 2;
    },
  },
  {
    path: '/server-status',
    checkId: 'web.exposed-server-status',
    matches: (body) => /Apache Server Status for|Server Version: Apache/i.test(text(body)),
  },
  {
    path: '/nginx_status',
    checkId: 'web.exposed-server-status',
    matches: (body) =>
      /^Active connections:\s*\d+/m.test(text(body)) && /server accepts handled requests/.test(text(body)),
  },
  {
    path: '/phpinfo.php',
    checkId: 'web.exposed-phpinfo',
    matches: (body) => /<title>phpinfo\(\)<\/title>|<h1 class="p">PHP Version \d/i.test(text(body)),
  },
  {
    path: '/info.php',
    checkId: 'web.exposed-phpinfo',
    matches: (body) => /<title>phpinfo\(\)<\/title>|<h1 class="p">PHP Version \d/i.test(text(body)),
  },
  {
    path: '/backup.zip',
    checkId: 'web.exposed-backup',
    matches: (body) => body.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])),
  },
  {
    path: '/backup.tar.gz',
    checkId: 'web.exposed-backup',
    matches: (body) => body[0] === 0x1f && body[1] === 0x8b,
  },
  ...['/db.sql', '/dump.sql'].map((path) => ({
    path,
    checkId: 'web.exposed-backup',
    matches: (body: Buffer) =>
      !looksHtml(body) &&
      /(?:^|\n)\s*(?:CREATE TABLE|INSERT INTO|-- MySQL dump|-- PostgreSQL database dump|-- MariaDB dump)/i.test(
        text(body).slice(0, 8192),
      ),
  })),
];

/** What a web server's autoindex pages look like (nginx, Apache, lighttpd, Python's http.server). */
export function isDirectoryListing(body: Buffer): boolean {
  const t = text(body).slice(0, 16_384);
  return /<title>\s*Index of \//i.test(t) || /<h1>\s*(?:Index of|Directory listing for) \//i.test(t);
}

/**
 * Names of backup and dump files: database dumps (`*.sql`, `*.dump`, compressed too), database
 * files (`*.sqlite`, `*.sqlite3`, `*.db` but Windows' `Thumbs.db`), archives (`*.tar.gz`, `*.tgz`,
 * `*.zip`, `*.7z`, `*.rar`, …) and backup copies (`*.bak`, `*.backup`, `*.old`, `*.orig`, `*~`).
 */
const BACKUP_NAME =
  /(?:\.(?:sql|dump)(?:\.(?:gz|bz2|xz|zst|zip))?|\.(?:sqlite3?|db)|\.(?:tar(?:\.(?:gz|bz2|xz|zst))?|tgz|tbz2?|txz|zip|7z|rar|gz)|\.(?:bak|backup|old|orig|save|swp)|~)$/i;

/** At most this many listed backups are fetched to confirm them. */
export const LISTED_BACKUPS_CHECKED = 20;

/** Whether a file name looks like a backup or a dump. */
export function isBackupName(name: string): boolean {
  return name.length <= 255 && !/^thumbs\.db$/i.test(name) && BACKUP_NAME.test(name);
}

/**
 * The files a directory listing links to that look like backups: the listing's own entries only
 * (a plain name in the same directory, no `../`, no sub-directory, no other host), in its order.
 */
export function listedBackups(body: Buffer): string[] {
  const names = new Set<string>();
  for (const match of text(body)
    .slice(0, 262_144)
    .matchAll(/<a\s[^>]*?href="([^"?#]{1,1024})"/gi)) {
    let name: string;
    try {
      name = decodeURIComponent(match[1]!).replace(/^\.\//, '');
    } catch {
      continue;
    }
    if (name === '' || /[/\\:]/.test(name) || name.startsWith('.')) continue;
    if (isBackupName(name)) names.add(name);
  }
  return [...names];
}

/** Two paths no site has: one file, one directory, named at random. */
export function baselinePaths(): string[] {
  const id = () => randomBytes(8).toString('hex');
  return [`/rampart-${id()}.html`, `/rampart-${id()}/`];
}

/** One baseline answer, reduced to what a soft-404 keeps from path to path. */
export interface BaselineAnswer {
  status: number;
  length: number;
  hash: string;
  words: Set<string>;
}

/** The body with the requested path taken out (soft-404 pages often echo it), as words. */
export function reduce(answer: HttpAnswer, path: string): BaselineAnswer {
  const body = text(answer.body).split(path).join('').split(encodeURI(path)).join('');
  return {
    status: answer.status,
    length: body.length,
    hash: createHash('sha256').update(body).digest('hex'),
    words: new Set(
      body
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean)
        .slice(0, 5000),
    ),
  };
}

/**
 * Whether an answer is the site's soft-404 page again: same status class and the same body, or
 * bodies of nearly the same words (a Jaccard index of 0.9 or more) and length.
 */
export function sameAsBaseline(answer: BaselineAnswer, baseline: readonly BaselineAnswer[]): boolean {
  return baseline.some((b) => {
    if (Math.floor(b.status / 100) !== Math.floor(answer.status / 100)) return false;
    if (b.hash === answer.hash) return true;
    const lengthClose = Math.abs(b.length - answer.length) <= Math.max(32, b.length * 0.1);
    return lengthClose && jaccard(b.words, answer.words) >= 0.9;
  });
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let common = 0;
  for (const w of a) if (b.has(w)) common++;
  return common / (a.size + b.size - common);
}
