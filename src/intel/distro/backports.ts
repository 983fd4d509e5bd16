/**
 * Backport-aware decisions: whether a distribution build (from a banner) carries the
 * distribution's fix for each CVE its OSV records name.
 *
 * Distributions fix a CVE by a new package revision, not a new upstream version, so the upstream
 * match of a banner says nothing about `OpenSSH_8.9p1 Ubuntu-3ubuntu0.10`; the distribution's own
 * records decide, in dpkg order:
 * - `Fixed`: an entry of the build's release has a `fixed` version at or below the build: never
 *   report it; the evidence names the fix and the record (the USN when one carries the same fix).
 * - `Affected`: the build lies in an entry's range (before its fix, or no fix listed).
 * - `Undecidable`: the banner shows no revision, or the records have no entry for this package in
 *   the build's release: keep the upstream match, marked banner-only.
 *
 * The release is not in the banner. An entry belongs to the build's release when its upstream
 * version is the build's: that of its `fixed` version, else of the newest version it lists
 * (`versions` also holds a release's development history, so its oldest items are not the
 * release's). An Ubuntu Pro (ESM) entry counts like the release's own: a build at or past its fix
 * carries the fix, whichever stream it came from.
 */

import { compareDpkgVersions, isDpkgVersion, parseDpkgVersion } from '../osv/dpkg.js';
import { ecosystemBase } from '../osv/package-key.js';
import { affectedBy } from '../osv/ranges.js';
import type { OsvAdvisory, OsvAffected } from '../types.js';
import type { DistroBuild } from './banners.js';

/**
 * An OSV record of the distribution. Its CVEs are in `aliases` (older records), `upstream`
 * (osv.dev's DSA-, DLA-, DEBIAN-CVE- and UBUNTU-CVE- records now) or `related` (a USN's).
 */
export type DistroAdvisory = Pick<OsvAdvisory, 'id' | 'aliases' | 'affected' | 'upstream' | 'related'>;

export type BackportStatus = 'Fixed' | 'Affected' | 'Undecidable';

export interface BackportDecision {
  cveId: string;
  status: BackportStatus;
  /** Why, in words for the finding's evidence. */
  evidence: string;
  /** The release's fixed version, when the records name one. */
  fixedVersion?: string;
  /** The OSV ecosystem of the entry that decided (`Ubuntu:22.04:LTS`). */
  ecosystem?: string;
  /** The records that decided (the CVE record, and a USN carrying the same fix). */
  recordIds: string[];
}

interface Verdict {
  status: 'Fixed' | 'Affected';
  ecosystem: string;
  fixedVersion?: string;
  recordId: string;
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
/** A record id that is a CVE's, bare or with the distribution's prefix. */
const CVE_IN_ID = /^(?:[A-Z]+-)?(CVE-\d{4}-\d{4,})$/;

/** One decision per CVE named by records that track the build's package in its distribution. */
export function decideBackports(build: DistroBuild, records: DistroAdvisory[]): BackportDecision[] {
  if (!build.distribution) return [];
  const relevant = records.filter((record) => packageEntries(record, build).length > 0);
  const cveIds = [...new Set(relevant.flatMap(cveIdsOf))].sort();
  return cveIds.map((cveId) =>
    decideCve(
      build,
      cveId,
      relevant.filter((r) => cveIdsOf(r).includes(cveId)),
    ),
  );
}

/**
 * Whether the records hold any entry for the build's package in its release (told, as for the
 * decisions, by the upstream version of the entry's fix or newest listed version). Without one
 * nothing in them can decide for this build: the distribution's data for it is missing.
 */
export function holdsRelease(build: DistroBuild, records: DistroAdvisory[]): boolean {
  if (!build.distribution || !build.packageVersion || !isDpkgVersion(build.packageVersion)) return false;
  const upstream = parseDpkgVersion(build.packageVersion).upstream;
  return records.some((record) =>
    packageEntries(record, build).some((entry) => releaseUpstream(entry) === upstream),
  );
}

function decideCve(build: DistroBuild, cveId: string, records: DistroAdvisory[]): BackportDecision {
  const own = records.filter((r) => isRecordOf(r, cveId));
  const notices = records.filter((r) => !isRecordOf(r, cveId));
  if (!build.decidable || !build.packageVersion || !isDpkgVersion(build.packageVersion))
    return undecidableBuild(build, cveId, [...own, ...notices]);
  const verdicts = (list: DistroAdvisory[]) =>
    list.map((r) => verdictOf(build, build.packageVersion!, r)).filter((v) => v !== null);
  const ownVerdicts = verdicts(own);
  const noticeVerdicts = verdicts(notices);
  const decided = pick(ownVerdicts) ?? pick(noticeVerdicts);
  if (!decided) {
    return {
      cveId,
      status: 'Undecidable',
      evidence: `${build.distribution}'s records for ${cveId} have no ${build.packageName} entry for the release of ${build.upstreamVersion}; the upstream match stays, banner-only`,
      recordIds: records.map((r) => r.id),
    };
  }
  return decisionOf(build, cveId, decided, noticeVerdicts);
}

function decisionOf(
  build: DistroBuild,
  cveId: string,
  verdict: Verdict,
  notices: Verdict[],
): BackportDecision {
  const { status, ecosystem, fixedVersion } = verdict;
  const notice = notices.find((n) => n.status === status && n.fixedVersion === fixedVersion);
  const recordIds = [...new Set([verdict.recordId, ...(notice ? [notice.recordId] : [])])];
  const by =
    notice && notice.recordId !== verdict.recordId
      ? `${notice.recordId} (${verdict.recordId})`
      : verdict.recordId;
  const base = { cveId, status, ecosystem, recordIds, ...(fixedVersion ? { fixedVersion } : {}) };
  if (status === 'Fixed')
    return {
      ...base,
      evidence: `fixed in ${fixedVersion} by ${by} (${ecosystem} ${build.packageName} ${build.packageVersion})`,
    };
  const fix = fixedVersion ? `before the fix ${fixedVersion}` : 'no fix listed';
  return {
    ...base,
    evidence: `${ecosystem} ${build.packageName} ${build.packageVersion} is affected: ${fix} (${by})`,
  };
}

/** A fix anywhere in the release wins; otherwise an affected entry. */
function pick(verdicts: Verdict[]): Verdict | undefined {
  return verdicts.find((v) => v.status === 'Fixed') ?? verdicts.find((v) => v.status === 'Affected');
}

function verdictOf(build: DistroBuild, version: string, record: DistroAdvisory): Verdict | null {
  const upstream = parseDpkgVersion(version).upstream;
  const entries = packageEntries(record, build).filter((entry) => releaseUpstream(entry) === upstream);
  const verdicts: Verdict[] = [];
  for (const entry of entries) {
    const fixedVersion = fixedOf(entry);
    const base = {
      ecosystem: entry.ecosystem,
      recordId: record.id,
      ...(fixedVersion ? { fixedVersion } : {}),
    };
    if (fixedVersion && compareDpkgVersions(version, fixedVersion) >= 0)
      verdicts.push({ ...base, status: 'Fixed' });
    else if (affectedBy([entry], { ecosystem: entry.ecosystem, name: entry.name, version }).affected)
      verdicts.push({ ...base, status: 'Affected' });
  }
  return pick(verdicts) ?? null;
}

function undecidableBuild(build: DistroBuild, cveId: string, records: DistroAdvisory[]): BackportDecision {
  const fixes = records
    .flatMap((r) => packageEntries(r, build))
    .filter((entry) => releaseUpstream(entry) === build.upstreamVersion)
    .map((entry) => ({ ecosystem: entry.ecosystem, fixed: fixedOf(entry) }));
  const known = fixes.filter((f) => f.fixed).map((f) => `${f.fixed} (${f.ecosystem})`);
  const hint =
    known.length > 0 ? `; ${build.distribution} fixed it in ${[...new Set(known)].join(', ')}` : '';
  return {
    cveId,
    status: 'Undecidable',
    evidence: `the banner shows no ${build.distribution ?? ''} package revision of ${build.packageName} ${build.upstreamVersion}${hint}; the upstream match stays, banner-only`,
    recordIds: records.map((r) => r.id),
  };
}

function packageEntries(record: DistroAdvisory, build: DistroBuild): OsvAffected[] {
  return (record.affected ?? []).filter(
    (entry) => ecosystemBase(entry.ecosystem) === build.distribution && entry.name === build.packageName,
  );
}

function cveIdsOf(record: DistroAdvisory): string[] {
  const own = CVE_IN_ID.exec(record.id)?.[1];
  return [
    ...(own ? [own] : []),
    ...(record.aliases ?? []),
    ...(record.upstream ?? []),
    ...(record.related ?? []),
  ].filter((id) => CVE_ID.test(id));
}

/** The distribution's own record of the CVE (`CVE-…`, `DEBIAN-CVE-…`, `UBUNTU-CVE-…`), not a notice. */
function isRecordOf(record: DistroAdvisory, cveId: string): boolean {
  return CVE_IN_ID.exec(record.id)?.[1] === cveId;
}

function fixedOf(entry: OsvAffected): string | undefined {
  for (const range of entry.ranges ?? []) {
    const event = (range.events ?? []).find((e) => typeof e.fixed === 'string' && isDpkgVersion(e.fixed));
    if (event?.fixed) return event.fixed;
  }
  return undefined;
}

/** The upstream version of the release an entry describes: its fix's, else its newest listed version's. */
function releaseUpstream(entry: OsvAffected): string | undefined {
  const fixed = fixedOf(entry);
  if (fixed) return parseDpkgVersion(fixed).upstream;
  const listed = (entry.versions ?? []).filter(isDpkgVersion).sort(compareDpkgVersions);
  const newest = listed[listed.length - 1];
  return newest ? parseDpkgVersion(newest).upstream : undefined;
}
