/**
 * Whether a package version is affected by an OSV advisory's `affected` entries.
 *
 * Ordering by range type and ecosystem:
 * - `SEMVER` ranges, and `ECOSYSTEM` ranges of npm, crates.io and Go: SemVer 2.0 precedence (the
 *   `semver` package, strict parsing after dropping a leading `v`);
 * - PyPI: PEP 440 (`@renovatebot/pep440`: epochs, pre/post/dev releases, local versions);
 * - Debian and Ubuntu: dpkg's own order (`dpkg.ts`: epochs, `~`, revisions);
 * - Maven, RubyGems, NuGet, Packagist and every other ecosystem: the generic comparator of
 *   `cpe/version.ts` (numeric segments, pre-release words before the release, `5.2.20.RELEASE` ==
 *   `5.2.20`; for the rpm distributions `+` is part of the version, not build metadata). It is an
 *   approximation of those ecosystems' own rules, good for the version shapes their advisories use;
 * - a version one scheme cannot parse (say `1.2` under SemVer) is compared by the generic
 *   comparator instead, rather than dropped;
 * - `GIT` ranges name commits, which need the repository: they are reported as not evaluable.
 *
 * Events follow the OSV schema's evaluation: the events of a range sorted by version (`introduced:
 * "0"` first) pair into intervals `[introduced, fixed)` or `[introduced, last_affected]`, an
 * introduced without an end stays open; `limit` events, when present, cap the range (`v < limit`,
 * `*` = no cap). The explicit `versions` list is also checked. Nothing here throws: malformed ranges
 * are reported as not evaluable and a bad package reference as an error.
 */

import { compare as pep440Compare, valid as pep440Valid } from '@renovatebot/pep440';
import semver from 'semver';
import { readPurl } from '../../parsing/purl.js';
import { compareVersions } from '../cpe/version.js';
import type { OsvAffected, OsvEvent, OsvRange } from '../types.js';
import { compareDpkgVersions, isDpkgVersion } from './dpkg.js';
import { ecosystemBase, normalizePackageName } from './package-key.js';

export interface PackageVersion {
  ecosystem: string;
  name: string;
  version: string;
}

export interface AffectedMatch {
  /** Index of the `affected` entry that applied. */
  affectedIndex: number;
  ecosystem: string;
  name: string;
  via: 'range' | 'versions';
  rangeIndex?: number;
  rangeType?: OsvRange['type'];
  introduced?: string;
  fixed?: string;
  lastAffected?: string;
}

export interface NotEvaluable {
  affectedIndex: number;
  rangeIndex: number;
  reason: string;
}

export interface AffectedResult {
  affected: boolean;
  /** The first range or version list that holds the version. */
  match?: AffectedMatch;
  /** Ranges of this package that could not be evaluated (GIT ranges, malformed events). */
  notEvaluable: NotEvaluable[];
  /** Why nothing could be evaluated at all (an unreadable purl, an empty version). */
  error?: string;
}

type Compare = (a: string, b: string) => number;

const SEMVER_ECOSYSTEMS = new Set(['npm', 'crates.io', 'Go']);
const DPKG_ECOSYSTEMS = new Set(['Debian', 'Ubuntu']);
/** Distributions whose versions use `+` as part of the version (`1.1.1n-0+deb11u4`). */
const PACKAGE_MANAGER_ECOSYSTEMS = new Set([
  'Debian',
  'Ubuntu',
  'Red Hat',
  'Rocky Linux',
  'AlmaLinux',
  'SUSE',
  'openSUSE',
  'Photon OS',
]);

function semverOf(version: string): semver.SemVer | null {
  return semver.parse(version.trim().replace(/^[v=]+/i, ''));
}

const compareSemver: Compare = (a, b) => {
  const left = semverOf(a);
  const right = semverOf(b);
  return left && right ? semver.compare(left, right) : compareVersions(a, b);
};

const genericCompare: Compare = (a, b) => compareVersions(a, b);

const compareDistribution: Compare = (a, b) => compareVersions(a, b, { plusIsBuild: false });

const compareDpkg: Compare = (a, b) =>
  isDpkgVersion(a) && isDpkgVersion(b) ? compareDpkgVersions(a, b) : compareDistribution(a, b);

const comparePep440: Compare = (a, b) => {
  if (pep440Valid(a) && pep440Valid(b)) return pep440Compare(a, b);
  return compareVersions(a, b);
};

/** The ordering a range of this type in this ecosystem is evaluated with. */
export function comparatorFor(ecosystem: string, rangeType: OsvRange['type'] = 'ECOSYSTEM'): Compare {
  if (rangeType === 'SEMVER') return compareSemver;
  const base = ecosystemBase(ecosystem);
  if (SEMVER_ECOSYSTEMS.has(base)) return compareSemver;
  if (base === 'PyPI') return comparePep440;
  if (DPKG_ECOSYSTEMS.has(base)) return compareDpkg;
  if (PACKAGE_MANAGER_ECOSYSTEMS.has(base)) return compareDistribution;
  return genericCompare;
}

/** Compares two versions the way the ecosystem orders them. */
export function compareEcosystemVersions(ecosystem: string, a: string, b: string): number {
  return comparatorFor(ecosystem)(a, b);
}

interface Interval {
  introduced: string;
  fixed?: string;
  lastAffected?: string;
}

type RangeOutcome = { evaluable: true; interval: Interval | null } | { evaluable: false; reason: string };

/** Which interval of one range holds the version, if any. */
export function evaluateRange(range: OsvRange, ecosystem: string, version: string): RangeOutcome {
  if (!range || typeof range !== 'object') return { evaluable: false, reason: 'range is not an object' };
  if (range.type === 'GIT') return { evaluable: false, reason: 'GIT ranges name commits, not versions' };
  if (range.type !== 'SEMVER' && range.type !== 'ECOSYSTEM') {
    return { evaluable: false, reason: `unknown range type ${JSON.stringify(range.type)}` };
  }
  const events = readEvents(range.events);
  if (typeof events === 'string') return { evaluable: false, reason: events };
  const compare = comparatorFor(ecosystem, range.type);
  const limits = events.filter((e) => e.kind === 'limit').map((e) => e.version);
  if (limits.length > 0 && !limits.some((limit) => limit === '*' || compare(version, limit) < 0)) {
    return { evaluable: true, interval: null };
  }
  const interval = intervalsOf(events, compare).find((i) => holds(i, version, compare));
  return { evaluable: true, interval: interval ?? null };
}

interface Event {
  kind: 'introduced' | 'fixed' | 'last_affected' | 'limit';
  version: string;
}

const EVENT_KINDS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

/** The events of a range, or why they cannot be read. */
function readEvents(raw: unknown): Event[] | string {
  if (!Array.isArray(raw) || raw.length === 0) return 'range has no events';
  const events: Event[] = [];
  for (const item of raw as OsvEvent[]) {
    const kind =
      item && typeof item === 'object' ? EVENT_KINDS.find((k) => item[k] !== undefined) : undefined;
    const version = kind ? item[kind] : undefined;
    if (!kind || typeof version !== 'string' || version.trim() === '') {
      return `malformed event ${JSON.stringify(item)?.slice(0, 80)}`;
    }
    events.push({ kind, version: version.trim() });
  }
  if (!events.some((e) => e.kind === 'introduced')) return 'range has no introduced event';
  return events;
}

const KIND_ORDER = { introduced: 0, last_affected: 1, fixed: 2, limit: 3 };

function intervalsOf(events: Event[], compare: Compare): Interval[] {
  const sorted = events
    .filter((e) => e.kind !== 'limit')
    .sort((a, b) => eventOrder(a, b, compare) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  const intervals: Interval[] = [];
  let open: Interval | null = null;
  for (const event of sorted) {
    if (event.kind === 'introduced') {
      open ??= { introduced: event.version };
    } else if (open) {
      if (event.kind === 'fixed') open.fixed = event.version;
      else open.lastAffected = event.version;
      intervals.push(open);
      open = null;
    }
  }
  if (open) intervals.push(open);
  return intervals;
}

function eventOrder(a: Event, b: Event, compare: Compare): number {
  const aZero = a.kind === 'introduced' && a.version === '0';
  const bZero = b.kind === 'introduced' && b.version === '0';
  if (aZero || bZero) return aZero && bZero ? 0 : aZero ? -1 : 1;
  return compare(a.version, b.version);
}

function holds(interval: Interval, version: string, compare: Compare): boolean {
  if (interval.introduced !== '0' && compare(version, interval.introduced) < 0) return false;
  if (interval.fixed !== undefined) return compare(version, interval.fixed) < 0;
  if (interval.lastAffected !== undefined) return compare(version, interval.lastAffected) <= 0;
  return true;
}

/** Whether the version is listed in an explicit `versions` list. */
function listed(versions: unknown, ecosystem: string, version: string): boolean {
  if (!Array.isArray(versions)) return false;
  const compare = comparatorFor(ecosystem);
  return versions.some((v) => typeof v === 'string' && (v === version || compare(v, version) === 0));
}

/** Whether the advisory's ecosystem names the package's (`Debian:11` counts for `Debian`). */
function sameEcosystem(advisory: string, wanted: string): boolean {
  if (typeof advisory !== 'string') return false;
  if (wanted.includes(':')) return advisory.trim().toLowerCase() === wanted.trim().toLowerCase();
  return ecosystemBase(advisory) === ecosystemBase(wanted);
}

/**
 * Whether a package version is affected by these `affected` entries (one advisory's), and which
 * range or list says so. `pkg` is `{ ecosystem, name, version }` or a purl with a version.
 */
export function affectedBy(affected: OsvAffected[], pkg: PackageVersion | string): AffectedResult {
  const query = typeof pkg === 'string' ? packageOfPurl(pkg) : checkPackage(pkg);
  if (!query.ok) return { affected: false, notEvaluable: [], error: query.error };
  const { ecosystem, version } = query.pkg;
  const name = normalizePackageName(ecosystem, query.pkg.name);
  const result: AffectedResult = { affected: false, notEvaluable: [] };
  (Array.isArray(affected) ? affected : []).forEach((entry, affectedIndex) => {
    if (result.match || !entry || !sameEcosystem(entry.ecosystem, ecosystem)) return;
    if (normalizePackageName(ecosystem, entry.name) !== name) return;
    const base = { affectedIndex, ecosystem: entry.ecosystem, name: entry.name };
    result.match = matchRanges(entry, version, base, result.notEvaluable);
    if (!result.match && listed(entry.versions, ecosystem, version))
      result.match = { ...base, via: 'versions' };
  });
  result.affected = result.match !== undefined;
  return result;
}

function matchRanges(
  entry: OsvAffected,
  version: string,
  base: Pick<AffectedMatch, 'affectedIndex' | 'ecosystem' | 'name'>,
  notEvaluable: NotEvaluable[],
): AffectedMatch | undefined {
  const ranges = Array.isArray(entry.ranges) ? entry.ranges : [];
  for (const [rangeIndex, range] of ranges.entries()) {
    const outcome = evaluateRange(range, entry.ecosystem, version);
    if (!outcome.evaluable) {
      notEvaluable.push({ affectedIndex: base.affectedIndex, rangeIndex, reason: outcome.reason });
      continue;
    }
    if (!outcome.interval) continue;
    const { introduced, fixed, lastAffected } = outcome.interval;
    const match: AffectedMatch = { ...base, via: 'range', rangeIndex, rangeType: range.type, introduced };
    if (fixed !== undefined) match.fixed = fixed;
    if (lastAffected !== undefined) match.lastAffected = lastAffected;
    return match;
  }
  return undefined;
}

type PackageResult = { ok: true; pkg: PackageVersion } | { ok: false; error: string };

function checkPackage(pkg: PackageVersion): PackageResult {
  if (!pkg || typeof pkg !== 'object')
    return { ok: false, error: 'package must be { ecosystem, name, version }' };
  const { ecosystem, name, version } = pkg;
  if (typeof ecosystem !== 'string' || ecosystem.trim() === '')
    return { ok: false, error: 'package needs an ecosystem' };
  if (typeof name !== 'string' || name.trim() === '') return { ok: false, error: 'package needs a name' };
  if (typeof version !== 'string' || version.trim() === '')
    return { ok: false, error: 'package needs a version' };
  return { ok: true, pkg: { ecosystem: ecosystem.trim(), name: name.trim(), version: version.trim() } };
}

/** purl type → OSV ecosystem, and how namespace and name make the OSV package name. */
const PURL_TYPES: Record<string, { ecosystem: string; join: string }> = {
  npm: { ecosystem: 'npm', join: '/' },
  pypi: { ecosystem: 'PyPI', join: '/' },
  maven: { ecosystem: 'Maven', join: ':' },
  golang: { ecosystem: 'Go', join: '/' },
  gem: { ecosystem: 'RubyGems', join: '/' },
  cargo: { ecosystem: 'crates.io', join: '/' },
  nuget: { ecosystem: 'NuGet', join: '/' },
  composer: { ecosystem: 'Packagist', join: '/' },
  hex: { ecosystem: 'Hex', join: '/' },
  pub: { ecosystem: 'Pub', join: '/' },
};

/**
 * The OSV package a package URL names (`pkg:npm/%40scope/name@1.0.0`, `pkg:pypi/requests@2.30.0`,
 * `pkg:maven/org.springframework/spring-beans@5.3.17`): ecosystem, name and version. The purl
 * is read strictly: a part that is not valid percent-encoding is an error, not a guess.
 */
export function packageOfPurl(purl: string): PackageResult {
  const reading = readPurl(purl, { strictEncoding: true });
  if (!reading.ok) return reading;
  const { type, namespace, name, version } = reading.purl;
  if (version === undefined) return { ok: false, error: 'purl needs a version (…@version)' };
  const known = PURL_TYPES[type];
  if (!known) return { ok: false, error: `purl type "${type}" is not supported` };
  const segments = namespace === undefined ? [name] : [...namespace.split('/'), name];
  return { ok: true, pkg: { ecosystem: known.ecosystem, name: segments.join(known.join), version } };
}
