/**
 * Debian package versions, ordered exactly as dpkg orders them (`lib/dpkg/version.c`,
 * `parsehelp.c`; Debian policy §5.6.12): `[epoch:]upstream_version[-debian_revision]`.
 *
 * - The epoch is the part before the first `:` (a non-negative integer, 0 when absent); the
 *   revision is the part after the last `-` ("" when absent, which orders as "0").
 * - Upstream and revision are compared by alternating runs: a non-digit run char by char, where
 *   `~` sorts before everything (even the end of the string), the end next, then letters, then
 *   every other character; then a digit run compared numerically (leading zeros ignored).
 * - Input dpkg would refuse (or warn about) is refused here with an error naming the problem:
 *   empty, a bad epoch, an upstream part that does not start with a digit, illegal characters.
 */

export interface DpkgVersion {
  epoch: number;
  upstream: string;
  /** "" when the version has no `-revision`. */
  revision: string;
}

export class DpkgVersionError extends Error {
  constructor(version: string, problem: string) {
    super(`invalid dpkg version ${JSON.stringify(version)}: ${problem}`);
    this.name = 'DpkgVersionError';
  }
}

const MAX_EPOCH = 2147483647;
const UPSTREAM_CHARS = /^[A-Za-z0-9.+~:-]*$/;
const REVISION_CHARS = /^[A-Za-z0-9.+~]*$/;

/** Splits a version into epoch, upstream and revision, or throws a `DpkgVersionError`. */
export function parseDpkgVersion(version: string): DpkgVersion {
  if (typeof version !== 'string') throw new DpkgVersionError(String(version), 'not a string');
  const text = version.trim();
  if (text === '') throw new DpkgVersionError(version, 'version is empty');
  if (/\s/.test(text)) throw new DpkgVersionError(version, 'version has embedded spaces');
  const colon = text.indexOf(':');
  const epoch = colon === -1 ? 0 : epochOf(version, text.slice(0, colon));
  const rest = text.slice(colon + 1);
  if (rest === '') throw new DpkgVersionError(version, 'nothing after the epoch colon');
  const hyphen = rest.lastIndexOf('-');
  const upstream = hyphen === -1 ? rest : rest.slice(0, hyphen);
  const revision = hyphen === -1 ? '' : rest.slice(hyphen + 1);
  if (hyphen !== -1 && revision === '') throw new DpkgVersionError(version, 'revision is empty');
  if (upstream === '') throw new DpkgVersionError(version, 'upstream version is empty');
  if (!isDigit(upstream[0]!))
    throw new DpkgVersionError(version, 'upstream version does not start with a digit');
  if (!UPSTREAM_CHARS.test(upstream))
    throw new DpkgVersionError(version, 'invalid character in upstream version');
  if (!REVISION_CHARS.test(revision)) throw new DpkgVersionError(version, 'invalid character in revision');
  return { epoch, upstream, revision };
}

function epochOf(version: string, text: string): number {
  if (text === '') throw new DpkgVersionError(version, 'epoch is empty');
  if (!/^\d+$/.test(text)) throw new DpkgVersionError(version, 'epoch is not a non-negative number');
  const epoch = Number(text);
  if (epoch > MAX_EPOCH) throw new DpkgVersionError(version, 'epoch is too big');
  return epoch;
}

/** Whether the string is a valid dpkg version. */
export function isDpkgVersion(version: string): boolean {
  try {
    parseDpkgVersion(version);
    return true;
  } catch {
    return false;
  }
}

/** -1, 0 or 1 as `a` sorts before, with or after `b` in dpkg's order; throws on an invalid version. */
export function compareDpkgVersions(a: string | DpkgVersion, b: string | DpkgVersion): -1 | 0 | 1 {
  const left = typeof a === 'string' ? parseDpkgVersion(a) : a;
  const right = typeof b === 'string' ? parseDpkgVersion(b) : b;
  const order =
    left.epoch - right.epoch ||
    compareParts(left.upstream, right.upstream) ||
    compareParts(left.revision, right.revision);
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isLetter(c: string): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/** A character's weight in a non-digit run; `undefined` is the end of the string. */
function weight(c: string | undefined): number {
  if (c === undefined || isDigit(c)) return 0;
  if (isLetter(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

/** dpkg's `verrevcmp`: a negative, zero or positive number. */
function compareParts(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const diff = weight(a[i]) - weight(b[j]);
      if (diff !== 0) return diff;
      i += 1;
      j += 1;
    }
    while (a[i] === '0') i += 1;
    while (b[j] === '0') j += 1;
    let firstDiff = 0;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i += 1;
      j += 1;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDiff !== 0) return firstDiff;
  }
  return 0;
}
