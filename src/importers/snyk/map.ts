import { cweIdsIn } from '../../parsing/ids.js';
import { asArray, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import {
  cvss3BaseScore,
  cvss3VectorOf,
  cvss4VectorOf,
  cvssScoreOf,
  severityOfCvssScore,
} from '../common/cvss-score.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type { AssetRef, Severity, VulnerabilityRef } from '../types.js';

/**
 * Snyk's severities as Rampart's, one to one. The rating is Snyk's own: `severityWithCritical`
 * when the report has it (CLIs of 2020–2021 capped `severity` at "high" and put "critical"
 * there), else `severity`. DefectDojo rates by the band of `cvssScore` instead; the two differ
 * for operating-system packages, where Snyk follows the distribution's triage (a Debian "minor
 * issue" is low even when its NVD score is 9.8) — that triage is what Snyk tells its users, so it
 * is kept. Anything else (no rating) takes the band of the CVSS score, else Info.
 */
export const SNYK_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
};

function rated(value: unknown): Severity | undefined {
  const key = asText(value)?.toLowerCase() ?? '';
  return Object.hasOwn(SNYK_SEVERITY, key) ? SNYK_SEVERITY[key] : undefined;
}

export function severityOf(vuln: JsonObject, cvss3Score: number | undefined): Severity {
  const own = rated(vuln.severityWithCritical) ?? rated(vuln.severity);
  if (own) return own;
  return cvss3Score === undefined ? 'Info' : severityOfCvssScore(cvss3Score);
}

/**
 * Ids of the weakness other than CVE and CWE: GHSA, ALTERNATIVE (older Snyk ids), NSP… Bare
 * numbers (NSP advisories) get their scheme's name, since "1234" alone names nothing.
 */
function otherIds(identifiers: JsonObject): string[] {
  return Object.entries(identifiers)
    .filter(([scheme]) => scheme !== 'CVE' && scheme !== 'CWE')
    .flatMap(([scheme, list]) => texts(list).map((id) => (/^\d+$/.test(id) ? `${scheme}-${id}` : id)));
}

/** The "## Remediation" section of Snyk's markdown description, which DefectDojo also uses. */
function remediationOf(description: string | undefined): string | undefined {
  const match = description?.match(/^##\s*Remediation\s*$([\s\S]*?)(?=^##\s|$(?![\s\S]))/m);
  return match?.[1]?.trim() || undefined;
}

/** A CVSS v4 vector from `cvssSources` (newer CLIs list every assigner's vector there). */
function cvss4Of(vuln: JsonObject): Pick<VulnerabilityRef, 'cvss4Vector' | 'cvss4Score'> {
  const sources = asArray(vuln.cvssSources)
    .map(asObject)
    .filter((s): s is JsonObject => s !== undefined)
    .sort((a, b) => Number(asText(b.type) === 'primary') - Number(asText(a.type) === 'primary'));
  const v4 = sources.find((s) => cvss4VectorOf(asText(s.vector)));
  return { cvss4Vector: cvss4VectorOf(asText(v4?.vector)), cvss4Score: cvssScoreOf(v4?.baseScore) };
}

/** Snyk's public page of a vulnerability; license issues have none. */
function snykPage(id: string): string | undefined {
  return id.startsWith('snyk:lic:') ? undefined : `https://security.snyk.io/vuln/${encodeURIComponent(id)}`;
}

/**
 * The weakness of one Snyk issue. The rule id is Snyk's id (SNYK-JS-…, snyk:lic:…); the CVE ids
 * of `identifiers.CVE` make its identity across tools; GHSA and other ids are aliases.
 */
export function vulnerabilityOf(vuln: JsonObject, id: string): VulnerabilityRef {
  const identifiers = asObject(vuln.identifiers) ?? {};
  const description = asText(vuln.description);
  const cvss3Vector = cvss3VectorOf(asText(vuln.CVSSv3));
  const references = asArray(vuln.references).map((r) => asText(asObject(r)?.url));
  return {
    ruleId: id,
    title: asText(vuln.title) ?? id,
    ...vulnerabilityIds(id, [
      ...texts(identifiers.CVE),
      ...otherIds(identifiers),
      ...texts(vuln.alternativeIds),
    ]),
    description,
    solution: remediationOf(description),
    cweIds: cweIdsIn(texts(identifiers.CWE).join(' ')),
    cvss3Vector,
    // Snyk's score belongs to its v3 vector; without the vector it is left out.
    cvss3Score: cvss3Vector ? (cvssScoreOf(vuln.cvssScore) ?? cvss3BaseScore(cvss3Vector)) : undefined,
    ...cvss4Of(vuln),
    references: [snykPage(id), ...references, asText(vuln.licenseTemplateUrl)].filter(
      (u): u is string => u !== undefined,
    ),
    publishedAt: asText(vuln.publicationTime) ?? asText(vuln.disclosureTime),
  };
}

/**
 * The installed package of an issue. Snyk names an operating-system package "source/binary"
 * ("gcc-10/libgcc-s1", with packageName "gcc-10"): the binary is what is installed (and what other
 * scanners name), the source is kept for the evidence. Language packages have one name (an npm
 * scope or a Go module path also holds "/", hence the check on the language).
 */
export function packageOf(vuln: JsonObject): { name: string; source?: string } | undefined {
  const source = asText(vuln.packageName);
  const name = asText(vuln.name) ?? source;
  if (!name) return undefined;
  if (asText(vuln.language) === 'linux' && source && name.startsWith(`${source}/`))
    return { name: name.slice(source.length + 1), source };
  return { name };
}

/** What the report says about one scanned project (its fields after `vulnerabilities`). */
export interface ProjectFacts {
  projectName?: string;
  path?: string;
  displayTargetFile?: string;
  targetFile?: string;
  /** `from[0]` of its first issue: the project as Snyk resolved it, "name@version". */
  root?: string;
  /** From the first operating-system issue's package manager, "debian:11" → "debian 11". */
  operatingSystem?: string;
}

const DOCKER_PREFIX = 'docker-image|';

/**
 * The image of a Snyk Container result, or undefined for other projects. Its issues' root
 * "docker-image|repo/name@tag" is the image with its tag ("@sha256:…" is a digest and stays);
 * without issues the project name lacks the tag, and the scanned `path` is the best guess.
 */
function containerImage(facts: ProjectFacts): string | undefined {
  const fromRoot = facts.root?.startsWith(DOCKER_PREFIX) ? facts.root.slice(DOCKER_PREFIX.length) : undefined;
  if (fromRoot) {
    const at = fromRoot.lastIndexOf('@');
    if (at <= 0 || fromRoot.startsWith('sha256:', at + 1)) return fromRoot;
    return `${fromRoot.slice(0, at)}:${fromRoot.slice(at + 1)}`;
  }
  if (!facts.projectName?.startsWith(DOCKER_PREFIX)) return undefined;
  return facts.path ?? (facts.projectName.slice(DOCKER_PREFIX.length) || undefined);
}

/** "name@version" without the version (the last "@", so "@scope/name@1.0" keeps its scope). */
function withoutVersion(spec: string | undefined): string | undefined {
  const at = spec?.lastIndexOf('@') ?? -1;
  return at > 0 ? spec!.slice(0, at) : spec;
}

/**
 * The asset of a project: a container image (Snyk Container), else the code project by its
 * name — stable across machines, unlike the scanned `path` ("C:\workspace") — and, failing that,
 * its root package, target file or path. An application found inside an image
 * (`applications[]`) belongs to the image.
 */
export function projectAsset(facts: ProjectFacts, parent: AssetRef | undefined): AssetRef | undefined {
  const image = containerImage(facts);
  if (image) return { kind: 'ContainerImage', image, operatingSystem: facts.operatingSystem };
  if (parent?.kind === 'ContainerImage') return parent;
  const repository =
    facts.projectName ??
    withoutVersion(facts.root) ??
    facts.displayTargetFile ??
    facts.targetFile ??
    facts.path;
  return repository ? { kind: 'CodeRepository', repository } : undefined;
}

/** The manifest the project was read from, with "/" separators so Windows and Linux runs agree. */
export function targetFileOf(facts: ProjectFacts): string | undefined {
  return (facts.displayTargetFile ?? facts.targetFile)?.replace(/\\/g, '/');
}

/** "debian:11" → "debian 11", for an image's operating system. */
export function operatingSystemOf(vuln: JsonObject): string | undefined {
  if (asText(vuln.language) !== 'linux') return undefined;
  return asText(vuln.packageManager)?.replace(':', ' ');
}
