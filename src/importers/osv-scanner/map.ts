import { cweIdsIn } from '../../parsing/ids.js';
import { asArray, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import {
  cvss2Of,
  cvss3BaseScore,
  cvss3VectorOf,
  cvss4VectorOf,
  cvssScoreOf,
  severityOfCvssScore,
} from '../common/cvss-score.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type { AssetRef, FindingRecord, Severity, VulnerabilityRef } from '../types.js';

/**
 * The advisory's own rating (`database_specific.severity`, GitHub's scale) as Rampart's; the
 * "Ubuntu" severity entries use the same words plus negligible (→ Info) and untriaged.
 */
export const OSV_SEVERITY: Readonly<Record<string, Severity>> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MODERATE: 'Medium',
  MEDIUM: 'Medium',
  LOW: 'Low',
  NEGLIGIBLE: 'Info',
};

function rated(value: unknown): Severity | undefined {
  const key = asText(value)?.toUpperCase() ?? '';
  return Object.hasOwn(OSV_SEVERITY, key) ? OSV_SEVERITY[key] : undefined;
}

function severityEntries(vuln: JsonObject): JsonObject[] {
  return asArray(vuln.severity)
    .map(asObject)
    .filter((e): e is JsonObject => e !== undefined);
}

function cvssOf(
  vuln: JsonObject,
): Pick<VulnerabilityRef, 'cvss2Vector' | 'cvss2Score' | 'cvss3Vector' | 'cvss3Score' | 'cvss4Vector'> {
  const entries = severityEntries(vuln);
  const score = (type: string) => asText(entries.find((e) => asText(e.type)?.toUpperCase() === type)?.score);
  const cvss3Vector = cvss3VectorOf(score('CVSS_V3'));
  return {
    // OSV gives vectors only: the v2 score is the vector's.
    ...cvss2Of(undefined, score('CVSS_V2')),
    cvss3Vector,
    cvss3Score: cvss3BaseScore(cvss3Vector),
    cvss4Vector: cvss4VectorOf(score('CVSS_V4')),
  };
}

/**
 * The advisory's own severity: GitHub's rating in `database_specific`, else the band of its
 * CVSS v3 base score, else an Ubuntu priority. Undefined when the advisory rates nothing (most
 * PyPI advisories): the package's groups then lend the rating of an alias (see index.ts).
 */
export function ownSeverity(vuln: JsonObject, cvss3Score: number | undefined): Severity | undefined {
  const github = rated(asObject(vuln.database_specific)?.severity);
  if (github) return github;
  if (cvss3Score !== undefined) return severityOfCvssScore(cvss3Score);
  const ubuntu = severityEntries(vuln).find((e) => asText(e.type)?.toLowerCase() === 'ubuntu');
  return rated(ubuntu?.score);
}

export interface OsvPackage {
  name?: string;
  version?: string;
  ecosystem?: string;
  commit?: string;
}

export function packageOf(value: unknown): OsvPackage {
  const p = asObject(value) ?? {};
  return {
    name: asText(p.name),
    version: asText(p.version),
    ecosystem: asText(p.ecosystem),
    commit: asText(p.commit),
  };
}

/** The affected entries about this package (an advisory may list several packages). */
function affectedEntries(vuln: JsonObject, pkg: OsvPackage): JsonObject[] {
  const all = asArray(vuln.affected)
    .map(asObject)
    .filter((a): a is JsonObject => a !== undefined);
  const same = all.filter(
    (a) => asText(asObject(a.package)?.name)?.toLowerCase() === pkg.name?.toLowerCase(),
  );
  return same.length > 0 ? same : all;
}

/** How many leading parts ("3", "2", "10") two versions share. */
function sharedParts(a: string, b: string): number {
  const x = a.split(/[.\-+]/);
  const y = b.split(/[.\-+]/);
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n += 1;
  return n;
}

/**
 * The fixed version for the installed one. GitHub splits an advisory by release line into
 * affected entries whose `versions` list the installed version; PyPI advisories put every line's
 * fix in one range, so the fixes of the installed version's line (most leading parts in
 * common: 3.2.4 → 3.2.10, not 2.2.25) are kept. Commits (GIT ranges) count only when no
 * release fixes it.
 */
function fixedIn(affected: JsonObject[], pkg: OsvPackage): string | undefined {
  const containing = affected.filter((a) => pkg.version && texts(a.versions).includes(pkg.version));
  const pool = containing.length > 0 ? containing : affected;
  const ranges = pool.flatMap((a) => asArray(a.ranges).map(asObject)).filter((r): r is JsonObject => !!r);
  const fixes = (git: boolean) =>
    ranges
      .filter((r) => (asText(r.type)?.toUpperCase() === 'GIT') === git)
      .flatMap((r) => asArray(r.events).map((e) => asText(asObject(e)?.fixed)))
      .filter((f): f is string => f !== undefined);
  let found = [...new Set(fixes(false))];
  if (found.length === 0) found = [...new Set(fixes(true))];
  const installed = pkg.version;
  if (installed && found.length > 1) {
    const best = Math.max(...found.map((f) => sharedParts(installed, f)));
    if (best > 0) found = found.filter((f) => sharedParts(installed, f) === best);
  }
  return found.length > 0 ? found.join(', ') : undefined;
}

function cwes(vuln: JsonObject, affected: JsonObject[]): string[] {
  const fromAdvisory = texts(asObject(vuln.database_specific)?.cwe_ids);
  const fromAffected = affected.flatMap((a) =>
    asArray(asObject(a.database_specific)?.cwes).map((c) => asText(asObject(c)?.cweId)),
  );
  return cweIdsIn([...fromAdvisory, ...fromAffected].join(' '));
}

/** A git source's package has no name: the repository the advisory's ranges name stands for it. */
function repositoryOf(affected: JsonObject[]): string | undefined {
  return affected
    .flatMap((a) => asArray(a.ranges).map((r) => asText(asObject(r)?.repo)))
    .find((repo) => repo !== undefined);
}

export interface OsvSource {
  path?: string;
  type?: string;
}

/**
 * The project a source belongs to: the folder of a lockfile or SBOM, the path of a scanned git
 * repository or directory, the image of a container scan. osv-scanner reports paths on the
 * scanning machine, so each folder scanned is its own code repository asset.
 */
export function sourceAsset(source: OsvSource): AssetRef {
  const path = source.path?.replace(/[/\\]+$/, '') || '(unknown)';
  const type = source.type?.toLowerCase();
  if (type === 'docker' || type === 'image') return { kind: 'ContainerImage', image: path };
  if (type === 'git' || type === 'directory') return { kind: 'CodeRepository', repository: path };
  const folder = path.replace(/[/\\][^/\\]*$/, '');
  return { kind: 'CodeRepository', repository: folder && folder !== path ? folder : path };
}

/** One vulnerability of one package; severity may be undefined until the groups are read. */
export function vulnerabilityFinding(
  vuln: JsonObject,
  pkg: OsvPackage,
  source: OsvSource,
  extra: { dependencyGroups: string[] },
): { finding: FindingRecord; ownSeverity?: Severity } | undefined {
  const id = asText(vuln.id);
  if (!id) return undefined;
  const affected = affectedEntries(vuln, pkg);
  const packageName = pkg.name ?? repositoryOf(affected) ?? asText(asObject(affected[0]?.package)?.name);
  if (!packageName) return undefined;
  const packageVersion = pkg.version ?? pkg.commit;
  const cvss = cvssOf(vuln);
  const severity = ownSeverity(vuln, cvss.cvss3Score);
  const fix = fixedIn(affected, pkg);
  const related = [
    ...texts(vuln.aliases),
    ...texts(vuln.upstream),
    ...texts(vuln.related).filter((r) => /^CVE-/i.test(r)),
  ];
  const finding: FindingRecord = {
    type: 'finding',
    asset: sourceAsset(source),
    vulnerability: {
      ruleId: id,
      title: asText(vuln.summary) ?? id,
      ...vulnerabilityIds(id, related),
      description: asText(vuln.details),
      cweIds: cwes(vuln, affected),
      ...cvss,
      references: asArray(vuln.references)
        .map((r) => asText(asObject(r)?.url))
        .filter((u): u is string => u !== undefined),
      publishedAt: asText(vuln.published),
    },
    location: { kind: 'Package', packageName, packageVersion, filePath: source.path },
    severity: severity ?? 'Info',
    evidence: [
      source.path && `Source: ${source.path}${source.type ? ` (${source.type})` : ''}`,
      `Package: ${packageName} ${packageVersion ?? ''}${pkg.ecosystem ? ` (${pkg.ecosystem})` : ''}`.trim(),
      extra.dependencyGroups.length > 0 && `Dependency groups: ${extra.dependencyGroups.join(', ')}`,
      fix && `Fixed in: ${fix}`,
    ]
      .filter(Boolean)
      .join('\n'),
    fixedIn: fix,
  };
  return { finding, ownSeverity: severity };
}

/** A package's groups: ids that are aliases of one another, with the highest CVSS score (v1.7+). */
export interface OsvGroup {
  ids: string[];
  maxSeverity?: number;
}

export function groupsOf(value: unknown): OsvGroup[] {
  return asArray(value)
    .map(asObject)
    .filter((g): g is JsonObject => g !== undefined)
    .map((g) => ({ ids: [...texts(g.ids), ...texts(g.aliases)], maxSeverity: cvssScoreOf(g.max_severity) }));
}
