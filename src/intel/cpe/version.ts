/**
 * A version comparator for the version strings found in NVD CPEs, scanner banners and package
 * feeds, none of which agree on one scheme.
 *
 * Rules (`compareVersions(a, b)` returns <0, 0 or >0):
 * - Surrounding space is ignored, case is ignored, a leading `v`/`V` before a digit is dropped.
 * - `N:` at the start is an epoch (Debian `1:2.3`), compared first; no epoch is epoch 0.
 * - Everything from the first `+` on is build metadata and ignored (`1.0.0+build` == `1.0.0`), as
 *   in SemVer; with `{ plusIsBuild: false }` (dpkg/rpm versions) `+` only separates.
 * - The rest is cut into items: runs of digits (numbers) and runs of letters (words); any other
 *   character (`.`, `-`, `_`, `~`, `(`…) only separates. `7.0.0-rc1`, `7.0.0rc1` and `7.0.0.rc.1`
 *   are the same version.
 * - Items are compared left to right. A missing item counts as `0` against a number and as "the
 *   release itself" against a word, so `2.4` == `2.4.0` and `8.9` < `8.9p1`.
 * - A number is greater than any word at the same place (`1.0.1` > `1.0p1`).
 * - Words are ranked: dev/snapshot/nightly < alpha/a < beta/b < milestone/m < rc/c/cr/pre/preview
 *   < the release < any other word; final/ga/release/stable mean the release itself and are
 *   skipped (`5.2.20.RELEASE` == `5.2.20`, `13.2-RELEASE-p5` == `13.2p5`). Words of the
 *   same pre-release rank are synonyms (`m1` == `milestone1`); other words compare alphabetically.
 *   So `7.0.0-rc1` < `7.0.0-rc2` < `7.0.0` and `1.0.0-alpha` < `1.0.0-alpha.1` < `1.0.0-beta`.
 * - A single letter glued to the end of a number, with nothing after it, is a letter release (OpenSSL
 *   `1.1.1k`, ProFTPD `1.3.5b`): it sorts after the release, so `1.1.1` < `1.1.1a` < `1.1.1k` < `1.1.2`.
 *   Followed by digits (`1.0a1`, `1.0b2`) the letter is a pre-release again, as in PEP 440.
 * - OpenSSH portable `p1` is an ordinary "other word": `8.9` < `8.9p1` < `8.9p2` < `8.10`, `9.7p1` < `9.8`.
 * - A string that does not start with a digit (after the `v` and the epoch), such as `r2` or
 *   `latest`, is unparseable: it and anything compared with it fall back to a case-insensitive
 *   natural string order. Numbers beyond 2^53 lose precision (no real version has them).
 */

/** A word's rank among qualifiers; numbers outrank every word. */
const RANK_DEV = 0;
const RANK_ALPHA = 1;
const RANK_BETA = 2;
const RANK_MILESTONE = 3;
const RANK_RC = 4;
const RANK_RELEASE = 5;
const RANK_OTHER = 6;

const WORD_RANKS: ReadonlyMap<string, number> = new Map([
  ['dev', RANK_DEV],
  ['snapshot', RANK_DEV],
  ['nightly', RANK_DEV],
  ['alpha', RANK_ALPHA],
  ['a', RANK_ALPHA],
  ['beta', RANK_BETA],
  ['b', RANK_BETA],
  ['milestone', RANK_MILESTONE],
  ['m', RANK_MILESTONE],
  ['rc', RANK_RC],
  ['c', RANK_RC],
  ['cr', RANK_RC],
  ['pre', RANK_RC],
  ['preview', RANK_RC],
  ['final', RANK_RELEASE],
  ['ga', RANK_RELEASE],
  ['release', RANK_RELEASE],
  ['stable', RANK_RELEASE],
]);

export interface VersionWord {
  rank: number;
  word: string;
}

/** A number or a ranked word. */
export type VersionItem = number | VersionWord;

export interface ParsedVersion {
  /** The input, trimmed. */
  raw: string;
  epoch: number;
  items: VersionItem[];
  /** True when the string is not version-like and compares as text. */
  lexical: boolean;
}

const RELEASE_WORD: VersionWord = { rank: RANK_RELEASE, word: '' };
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Parses a version; null for a non-string or an empty/blank string. */
export interface VersionOptions {
  /**
   * Whether `+` starts build metadata to ignore (SemVer; the default) or is an ordinary separator
   * (dpkg and rpm versions, where `1.1.1n-0+deb11u4` > `1.1.1n-0+deb11u3`).
   */
  plusIsBuild?: boolean;
}

export function parseVersion(input: string, options: VersionOptions = {}): ParsedVersion | null {
  if (typeof input !== 'string') return null;
  const raw = input.trim();
  if (raw === '') return null;
  let rest = raw.toLowerCase();
  let epoch = 0;
  const epochMatch = /^(\d+):(?=.)/.exec(rest);
  if (epochMatch) {
    epoch = Number(epochMatch[1]);
    rest = rest.slice(epochMatch[0].length);
  }
  if (/^v\d/.test(rest)) rest = rest.slice(1);
  const plus = options.plusIsBuild === false ? -1 : rest.indexOf('+');
  if (plus > 0) rest = rest.slice(0, plus);
  if (!/^\d/.test(rest)) return { raw, epoch: 0, items: [], lexical: true };
  return { raw, epoch, items: tokenize(rest), lexical: false };
}

function tokenize(text: string): VersionItem[] {
  const items: VersionItem[] = [];
  for (const chunk of text.split(/[^a-z0-9]+/)) {
    if (chunk === '') continue;
    const runs = chunk.match(/\d+|[a-z]+/g) ?? [];
    runs.forEach((run, i) => {
      if (/^\d/.test(run)) {
        items.push(Number(run));
        return;
      }
      const afterNumber = i > 0;
      const lastInChunk = i === runs.length - 1;
      // OpenSSL-style letter release: "1.1.1k" — a lone letter glued to a number, ending the chunk.
      const letterRelease = afterNumber && lastInChunk && run.length === 1;
      const item = letterRelease ? { rank: RANK_OTHER, word: run } : wordItem(run);
      // "5.2.20.RELEASE", "13.2-RELEASE-p5": words that mean the release itself say nothing.
      if (item.rank !== RANK_RELEASE) items.push(item);
    });
  }
  return items;
}

function wordItem(word: string): VersionWord {
  return { rank: WORD_RANKS.get(word) ?? RANK_OTHER, word };
}

/** Compares two parsed versions: <0, 0, >0. */
export function compareParsed(a: ParsedVersion, b: ParsedVersion): number {
  if (a.lexical || b.lexical) return collator.compare(a.raw, b.raw);
  if (a.epoch !== b.epoch) return a.epoch - b.epoch;
  const length = Math.max(a.items.length, b.items.length);
  for (let i = 0; i < length; i++) {
    const order = compareItems(a.items[i], b.items[i]);
    if (order !== 0) return order;
  }
  return 0;
}

function compareItems(a: VersionItem | undefined, b: VersionItem | undefined): number {
  if (a === undefined && b === undefined) return 0;
  if (typeof a === 'number' || typeof b === 'number') {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (a === undefined) return 0 - (b as number);
    if (b === undefined) return a as number;
    return typeof a === 'number' ? 1 : -1;
  }
  return compareWords(a ?? RELEASE_WORD, b ?? RELEASE_WORD);
}

function compareWords(a: VersionWord, b: VersionWord): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.rank !== RANK_OTHER) return 0;
  return a.word < b.word ? -1 : a.word > b.word ? 1 : 0;
}

/**
 * Compares two version strings. Total: empty or non-string values compare as text (before
 * everything), so sorting never throws.
 */
export function compareVersions(a: string, b: string, options: VersionOptions = {}): number {
  const left = parseVersion(a, options);
  const right = parseVersion(b, options);
  if (left && right) return compareParsed(left, right);
  return collator.compare(String(a ?? '').trim(), String(b ?? '').trim());
}

export function versionsEqual(a: string, b: string): boolean {
  return compareVersions(a, b) === 0;
}

/**
 * Joins a CPE version and update into one comparable version, so that `openssh:8.5:p1` compares
 * as `8.5p1` and `tomcat:9.0.0:milestone1` as `9.0.0milestone1` (== `9.0.0.M1`).
 */
export function joinVersionUpdate(version: string, update: string): string {
  if (update === '') return version;
  return /^[a-z]/i.test(update) ? `${version}${update}` : `${version}-${update}`;
}

/**
 * The dotted numeric start of a version (`8.5` of `8.5p1`, `9.0.0` of `9.0.0.M1`), or null when
 * the version has none or is nothing else.
 */
export function numericPrefix(version: string): string | null {
  const match = /^v?(\d+(?:\.\d+)*)/i.exec(version.trim());
  if (!match?.[1] || match[0].length === version.trim().length) return null;
  return match[1];
}

/**
 * Splits a version whose suffix is an update marker with a number (`8.5p1` → `8.5` + `p1`,
 * `3.0.0-rc1` → `3.0.0` + `rc1`). A bare letter (`1.1.1k`) is not split: NVD keeps OpenSSL-style
 * letters in the version field but OpenSSH-style `p1` in the update field.
 */
export function splitUpdateSuffix(version: string): { version: string; update: string } | null {
  const match = /^(v?\d+(?:\.\d+)*)[-_.]?([a-z]+\d+)$/i.exec(version.trim());
  if (!match?.[1] || !match[2]) return null;
  return { version: match[1], update: match[2].toLowerCase() };
}
