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
import type { AssetRef, FindingRecord, Severity, StateRef, VulnerabilityRef } from '../types.js';

/**
 * Grype's severities as Rampart's. Negligible is Debian's "unimportant" and Ubuntu's
 * "negligible": the distribution judged the issue not worth a security fix, so it is Info, as
 * DefectDojo has it (Low would put such entries, often a third of an image's matches, under a
 * remediation deadline). Unknown, or no severity, takes the first related vulnerability's
 * rating (the NVD record of a distribution advisory), else the band of the CVSS v3 score, else
 * Info.
 */
export const GRYPE_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  negligible: 'Info',
};

function rated(value: unknown): Severity | undefined {
  const key = asText(value)?.toLowerCase() ?? '';
  return Object.hasOwn(GRYPE_SEVERITY, key) ? GRYPE_SEVERITY[key] : undefined;
}

function severityOf(vulnerability: JsonObject, related: JsonObject[], cvss3Score?: number): Severity {
  const own = rated(vulnerability.severity);
  if (own) return own;
  for (const r of related) {
    const theirs = rated(r.severity);
    if (theirs) return theirs;
  }
  return cvss3Score === undefined ? 'Info' : severityOfCvssScore(cvss3Score);
}

/** The match's own CVSS entries first ("Primary" before "Secondary"), then its related ones'. */
function cvssEntries(vulnerability: JsonObject, related: JsonObject[]): JsonObject[] {
  const own = asArray(vulnerability.cvss)
    .map(asObject)
    .filter((e): e is JsonObject => e !== undefined)
    .sort((a, b) => Number(asText(b.type) === 'Primary') - Number(asText(a.type) === 'Primary'));
  const theirs = related.flatMap((r) => asArray(r.cvss).map(asObject)).filter((e): e is JsonObject => !!e);
  return [...own, ...theirs];
}

function cvssOf(
  entries: JsonObject[],
): Pick<
  VulnerabilityRef,
  'cvss2Vector' | 'cvss2Score' | 'cvss3Vector' | 'cvss3Score' | 'cvss4Vector' | 'cvss4Score'
> {
  const v2Of = (e: JsonObject | undefined) =>
    cvss2Of(cvssScoreOf(asObject(e?.metrics)?.baseScore), asText(e?.vector));
  const v2 = entries.find((e) => asText(e.version)?.startsWith('2') && v2Of(e).cvss2Score !== undefined);
  const v3 = entries.find((e) => asText(e.version)?.startsWith('3') && cvss3VectorOf(asText(e.vector)));
  const v4 = entries.find((e) => asText(e.version)?.startsWith('4') && cvss4VectorOf(asText(e.vector)));
  const v3Version = asText(v3?.version) === '3.0' ? '3.0' : '3.1';
  const cvss3Vector = cvss3VectorOf(asText(v3?.vector), v3Version);
  return {
    ...(v2 ? v2Of(v2) : {}),
    cvss3Vector,
    cvss3Score: cvssScoreOf(asObject(v3?.metrics)?.baseScore) ?? cvss3BaseScore(cvss3Vector),
    cvss4Vector: cvss4VectorOf(asText(v4?.vector)),
    cvss4Score: cvssScoreOf(asObject(v4?.metrics)?.baseScore),
  };
}

function evidenceOf(match: JsonObject, artifact: JsonObject, fix: JsonObject | undefined): string {
  // Older Grype wrote one object, with matchedOn.constraint; later versions a list.
  const raw = Array.isArray(match.matchDetails) ? match.matchDetails : [match.matchDetails];
  const details = raw.map(asObject).filter((d): d is JsonObject => !!d);
  const how = details
    .map((d) => {
      const constraint =
        asText(asObject(d.found)?.versionConstraint) ?? asText(asObject(d.matchedOn)?.constraint);
      const type = asText(d.type);
      return `${asText(d.matcher) ?? 'matcher'}${type ? ` (${type})` : ''}${constraint ? `, constraint ${constraint}` : ''}`;
    })
    .join('; ');
  const paths = asArray(artifact.locations)
    .map((l) => asText(asObject(l)?.path))
    .filter(Boolean);
  return [
    how && `Matched by: ${how}`,
    asText(artifact.type) && `Package type: ${asText(artifact.type)}`,
    asText(artifact.purl) && `Package URL: ${asText(artifact.purl)}`,
    paths.length > 0 && `Locations: ${paths.join(', ')}`,
    asText(fix?.state) && `Fix state: ${asText(fix?.state)}`,
  ]
    .filter(Boolean)
    .join('\n');
}

/** One Grype match (a vulnerability of one package artifact) as a finding. */
export function matchFinding(match: JsonObject, asset: AssetRef): FindingRecord | undefined {
  const vulnerability = asObject(match.vulnerability);
  const artifact = asObject(match.artifact);
  const id = asText(vulnerability?.id);
  const packageName = asText(artifact?.name);
  if (!vulnerability || !artifact || !id || !packageName) return undefined;
  const related = asArray(match.relatedVulnerabilities)
    .map(asObject)
    .filter((r): r is JsonObject => r !== undefined);
  const cvss = cvssOf(cvssEntries(vulnerability, related));
  const fix = asObject(vulnerability.fix);
  const fixVersions = texts(fix?.versions);
  return {
    type: 'finding',
    asset,
    vulnerability: {
      ruleId: id,
      title: id,
      ...vulnerabilityIds(
        id,
        related.map((r) => asText(r.id)),
      ),
      description:
        asText(vulnerability.description) ?? related.map((r) => asText(r.description)).find(Boolean),
      ...cvss,
      references: [
        asText(vulnerability.dataSource),
        ...texts(vulnerability.urls),
        ...texts(vulnerability.links), // older Grype
        ...related.flatMap((r) => [asText(r.dataSource), ...texts(r.urls)]),
      ].filter((u): u is string => u !== undefined),
    },
    location: {
      kind: 'Package',
      packageName,
      packageVersion: asText(artifact.version),
      filePath: asText(asObject(asArray(artifact.locations)[0])?.path),
    },
    severity: severityOf(vulnerability, related, cvss.cvss3Score),
    evidence: evidenceOf(match, artifact, fix),
    fixedIn: fixVersions.length > 0 ? fixVersions.join(', ') : undefined,
  };
}

/**
 * The decision behind an ignored match (`ignoredMatches`, with `appliedIgnoreRules`): a VEX
 * "not_affected" is a false positive, a VEX "fixed" is fixed, and a rule that names the
 * vulnerability is a risk the user accepted. Rules that only filter (`--only-fixed` adds a
 * "fix-state" rule, package-type rules) are no decision about the finding: such matches are
 * left out, as Grype itself leaves them out of its results.
 */
export function ignoredState(match: JsonObject): StateRef | undefined {
  const rules = asArray(match.appliedIgnoreRules)
    .map(asObject)
    .filter((r): r is JsonObject => r !== undefined);
  for (const rule of rules) {
    const status = asText(rule['vex-status'])?.toLowerCase();
    const why = [asText(rule['vex-justification']), asText(rule.reason)].filter(Boolean).join('; ');
    if (status === 'not_affected')
      return { state: 'FalsePositive', reason: `Not affected (VEX)${why ? `: ${why}` : ''}` };
    if (status === 'fixed') return { state: 'Fixed', reason: `Fixed (VEX)${why ? `: ${why}` : ''}` };
  }
  const named = rules.find((r) => asText(r.vulnerability));
  if (!named) return undefined;
  return {
    state: 'RiskAccepted',
    reason: asText(named.reason) ?? `Ignored by a Grype ignore rule for ${asText(named.vulnerability)}.`,
  };
}

/**
 * The asset Grype scanned: an image (source.type "image") by the name it was given on the
 * command line, else its first tag or id; a directory or file by its path.
 */
export function sourceAsset(
  source: JsonObject | undefined,
  distro: JsonObject | undefined,
): AssetRef | undefined {
  const target = source?.target;
  const targetObject = asObject(target);
  const operatingSystem =
    [asText(distro?.name), asText(distro?.version)].filter(Boolean).join(' ') || undefined;
  if (asText(source?.type) === 'image') {
    const image =
      asText(targetObject?.userInput) ??
      texts(targetObject?.tags)[0] ??
      texts(targetObject?.repoDigests)[0] ??
      asText(targetObject?.imageID);
    if (image) return { kind: 'ContainerImage', image, operatingSystem };
  }
  const path = asText(target) ?? asText(targetObject?.userInput) ?? asText(targetObject?.path);
  return path ? { kind: 'CodeRepository', repository: path } : undefined;
}
