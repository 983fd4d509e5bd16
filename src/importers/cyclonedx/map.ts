import { cweId } from '../../parsing/ids.js';
import { parsePurl } from '../../parsing/purl.js';
import {
  cvss2Of,
  cvss3BaseScore,
  cvss3VectorOf,
  cvss4VectorOf,
  cvssScoreOf,
  severityOfCvssScore,
} from '../common/cvss-score.js';
import { softwareCategoryOfPurl } from '../common/package-category.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type {
  AssetRef,
  FindingRecord,
  LocationRef,
  Severity,
  SoftwareRecord,
  StateRef,
  VulnerabilityRef,
} from '../types.js';

/**
 * A BOM read from JSON or XML into one shape, so both are mapped the same way. Only what the
 * records need is kept.
 */
export interface CdxComponent {
  bomRef?: string;
  type?: string;
  name: string;
  group?: string;
  version?: string;
  purl?: string;
  cpe?: string;
  publisher?: string;
}

export interface CdxRating {
  method?: string;
  severity?: string;
  score?: number;
  vector?: string;
}

export interface CdxAnalysis {
  state?: string;
  justification?: string;
  detail?: string;
  responses: string[];
}

export interface CdxVulnerability {
  id?: string;
  sourceUrl?: string;
  /** Ids of the same vulnerability elsewhere (`references[].id`): CVE-…, GHSA-… */
  referenceIds: string[];
  referenceUrls: string[];
  advisoryUrls: string[];
  ratings: CdxRating[];
  cwes: string[];
  description?: string;
  detail?: string;
  recommendation?: string;
  published?: string;
  analysis?: CdxAnalysis;
  /** bom-refs of the affected components, with the first version the BOM marks unaffected. */
  affects: { ref: string; fixedVersion?: string }[];
}

/**
 * CycloneDX `ratings[].severity` as Rampart's. "info" and "none" are Info; "unknown" (and no
 * rating) is Info unless a score gives a band.
 */
export const CYCLONEDX_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
  none: 'Info',
};

function rated(word: string | undefined): Severity | undefined {
  const key = word?.trim().toLowerCase() ?? '';
  return Object.hasOwn(CYCLONEDX_SEVERITY, key) ? CYCLONEDX_SEVERITY[key] : undefined;
}

const CVSS3_METHODS = new Set(['cvssv3', 'cvssv31']);

type CvssFields = Pick<
  VulnerabilityRef,
  'cvss2Vector' | 'cvss2Score' | 'cvss3Vector' | 'cvss3Score' | 'cvss4Vector' | 'cvss4Score'
>;

function method(rating: CdxRating | undefined): string {
  return rating?.method?.trim().toLowerCase() ?? '';
}

/** The first CVSS v3 rating (CVSSv3 is CVSS 3.0, CVSSv31 is 3.1), the first v4 and the first v2 one. */
function cvssRatings(ratings: CdxRating[]): { v2?: CdxRating; v3?: CdxRating; v4?: CdxRating } {
  const usable = (r: CdxRating) => r.vector !== undefined || r.score !== undefined;
  return {
    v2: ratings.find((r) => method(r) === 'cvssv2' && usable(r)),
    v3: ratings.find((r) => CVSS3_METHODS.has(method(r)) && usable(r)),
    v4: ratings.find((r) => method(r) === 'cvssv4' && usable(r)),
  };
}

function cvssOf(v3: CdxRating | undefined, v4: CdxRating | undefined, v2: CdxRating | undefined): CvssFields {
  const cvss3Vector = cvss3VectorOf(v3?.vector, method(v3) === 'cvssv3' ? '3.0' : '3.1');
  return {
    ...(v2 ? cvss2Of(cvssScoreOf(v2.score), v2.vector) : {}),
    cvss3Vector,
    cvss3Score: cvssScoreOf(v3?.score) ?? cvss3BaseScore(cvss3Vector),
    cvss4Vector: cvss4VectorOf(v4?.vector),
    cvss4Score: cvssScoreOf(v4?.score),
  };
}

/** A rating's severity word, else the band of its score. */
function ratingSeverity(rating: CdxRating | undefined, score: number | undefined): Severity | undefined {
  if (!rating) return undefined;
  return rated(rating.severity) ?? (score === undefined ? undefined : severityOfCvssScore(score));
}

/**
 * The severity of a vulnerability: the CVSS v3 rating's (its severity word, else the band of its
 * score), else the CVSS v4 rating's, else the first severity word, else the band of the first
 * score, else Info. CVSS first because BOM generators list many sources' ratings (Trivy lists
 * every vendor's) and CVSS is the one they share.
 */
function severityOf(
  ratings: CdxRating[],
  v3: CdxRating | undefined,
  v4: CdxRating | undefined,
  cvss: CvssFields,
): Severity {
  const word = ratings.map((r) => rated(r.severity)).find((s) => s !== undefined);
  const score = ratings.map((r) => cvssScoreOf(r.score)).find((s) => s !== undefined);
  return (
    ratingSeverity(v3, cvss.cvss3Score) ??
    ratingSeverity(v4, cvss.cvss4Score) ??
    word ??
    (score === undefined ? 'Info' : severityOfCvssScore(score))
  );
}

/**
 * VEX: `analysis.state` "not_affected" and "false_positive" are false positives, "resolved" and
 * "resolved_with_pedigree" are fixed; "exploitable" and "in_triage" leave the finding open.
 */
export function analysisState(analysis: CdxAnalysis | undefined): StateRef | undefined {
  const state = analysis?.state?.trim().toLowerCase();
  if (!state) return undefined;
  const justification = analysis?.justification ? ` (${analysis.justification})` : '';
  const reason = `${state}${justification}${analysis?.detail ? `: ${analysis.detail}` : ''}`;
  if (state === 'not_affected' || state === 'false_positive') return { state: 'FalsePositive', reason };
  if (state === 'resolved' || state === 'resolved_with_pedigree') return { state: 'Fixed', reason };
  return undefined;
}

/** Where the component is, or the reference read as a package URL when no component has it. */
function packageLocation(component: CdxComponent | undefined, ref: string): LocationRef {
  if (component) return { kind: 'Package', packageName: component.name, packageVersion: component.version };
  const purl = parsePurl(ref);
  return purl
    ? { kind: 'Package', packageName: purl.name, packageVersion: purl.version }
    : { kind: 'Package', packageName: ref };
}

export interface Affected {
  ref: string;
  component: CdxComponent | undefined;
  fixedVersion?: string;
}

/** One finding per affected component of a vulnerability. */
export function vulnerabilityFindings(
  v: CdxVulnerability,
  asset: AssetRef,
  affected: Affected[],
): FindingRecord[] {
  const id = v.id?.trim();
  if (!id) return [];
  const { v2, v3, v4 } = cvssRatings(v.ratings);
  const cvss = cvssOf(v3, v4, v2);
  const severity = severityOf(v.ratings, v3, v4, cvss);
  const vulnerability: VulnerabilityRef = {
    ruleId: id,
    title: id,
    ...vulnerabilityIds(id, v.referenceIds),
    description: [v.description, v.detail].filter((t) => t?.trim()).join('\n\n'),
    solution: v.recommendation,
    cweIds: v.cwes.map((c) => cweId(c.replace(/^CWE-/i, ''))).filter((c): c is string => c !== undefined),
    ...cvss,
    references: [v.sourceUrl, ...v.advisoryUrls, ...v.referenceUrls].filter((u): u is string => !!u),
    publishedAt: v.published,
  };
  const state = analysisState(v.analysis);
  return affected.map(({ ref, component, fixedVersion }) => ({
    type: 'finding',
    asset,
    vulnerability,
    location: packageLocation(component, ref),
    severity,
    evidence: [
      `Component: ${component ? (component.purl ?? [component.name, component.version].filter(Boolean).join(' ')) : ref}`,
      v.analysis?.state && `Analysis: ${v.analysis.state}`,
      v.analysis && v.analysis.responses.length > 0 && `Responses: ${v.analysis.responses.join(', ')}`,
    ]
      .filter(Boolean)
      .join('\n'),
    state,
    fixedIn: fixedVersion,
  }));
}

/** Component types that are software installed in the asset (not the image or a file itself). */
const SOFTWARE_TYPES = new Map<string, NonNullable<SoftwareRecord['category']>>([
  ['library', 'Library'],
  ['framework', 'Library'],
  ['application', 'Application'],
  ['operating-system', 'OperatingSystem'],
  ['firmware', 'Firmware'],
]);

/** A component as software: Library, or OsPackage for a deb/rpm/apk package URL. */
export function componentSoftware(c: CdxComponent, asset: AssetRef): SoftwareRecord | undefined {
  const category = SOFTWARE_TYPES.get(c.type?.toLowerCase() ?? 'library');
  if (!category) return undefined;
  const byPurl = c.purl ? softwareCategoryOfPurl(c.purl) : undefined;
  return {
    type: 'software',
    asset,
    name: c.name,
    version: c.version,
    vendor: c.publisher,
    category: byPurl === 'OsPackage' ? 'OsPackage' : category,
    cpe: c.cpe,
    purl: c.purl,
  };
}

/** "name:tag", "name@sha256:…" or "name" from a container component's name and version. */
function imageReference(c: CdxComponent): string {
  const lastPart = c.name.slice(c.name.lastIndexOf('/') + 1);
  if (lastPart.includes(':') || lastPart.includes('@') || !c.version) return c.name;
  return c.version.startsWith('sha256:') ? `${c.name}@${c.version}` : `${c.name}:${c.version}`;
}

/**
 * The asset a BOM describes (`metadata.component`): a container is the image; anything else
 * (application, library, file, device) is a project, by its group and name.
 */
export function bomAsset(c: CdxComponent | undefined): AssetRef | undefined {
  if (!c) return undefined;
  if (c.type?.toLowerCase() === 'container') return { kind: 'ContainerImage', image: imageReference(c) };
  return { kind: 'CodeRepository', repository: c.group ? `${c.group}/${c.name}` : c.name };
}
