import { cweIdsIn } from '../../parsing/ids.js';
import { asArray, asNumber, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
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
 * Trivy's severities as Rampart's. UNKNOWN means no vendor rated the vulnerability: it is Info,
 * unless the report itself carries a CVSS v3 base score, whose band is used instead.
 */
export const TRIVY_SEVERITY: Readonly<Record<string, Severity>> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  LOW: 'Low',
  UNKNOWN: 'Info',
};

/** Where a Trivy item was found: the artifact and the result (target) that lists it. */
export interface TrivyScope {
  asset: AssetRef;
  target?: string;
  /** os-pkgs, lang-pkgs, config, secret, license, license-file. */
  resultClass?: string;
  /** The package manager or config kind: debian, npm, terraform, kubernetes… */
  resultType?: string;
  /** Kubernetes reports: "namespace/Kind/name" of the resource the result belongs to. */
  resource?: string;
  /** Kubernetes reports: the resource's namespace. */
  namespace?: string;
}

function severityOf(value: unknown, cvss3Score?: number): Severity {
  const key = asText(value)?.toUpperCase() ?? 'UNKNOWN';
  const rated = Object.hasOwn(TRIVY_SEVERITY, key) ? TRIVY_SEVERITY[key]! : 'Info';
  if (rated === 'Info' && cvss3Score !== undefined) return severityOfCvssScore(cvss3Score);
  return rated;
}

/** CVSS sources in the order DefectDojo's Trivy parser prefers them after the severity's own. */
const CVSS_SOURCES = ['nvd', 'ghsa', 'redhat', 'bitnami'];

/**
 * The CVSS of the source Trivy took the severity from, else NVD, GHSA, Red Hat, Bitnami, else
 * any source: v2, v3 and v4 are chosen independently (a GHSA entry may have only a v4 vector).
 */
function cvssOf(
  v: JsonObject,
): Pick<
  VulnerabilityRef,
  'cvss2Vector' | 'cvss2Score' | 'cvss3Vector' | 'cvss3Score' | 'cvss4Vector' | 'cvss4Score'
> {
  const bySource = asObject(v.CVSS) ?? {};
  const order = [asText(v.SeveritySource), ...CVSS_SOURCES, ...Object.keys(bySource)];
  const entries = order
    .map((source) => asObject(source ? bySource[source] : undefined))
    .filter((e): e is JsonObject => e !== undefined);
  const v2 = entries.find(
    (e) => cvss2Of(cvssScoreOf(e.V2Score), asText(e.V2Vector)).cvss2Score !== undefined,
  );
  const v3 = entries.find((e) => cvss3VectorOf(asText(e.V3Vector)));
  const v4 = entries.find((e) => cvss4VectorOf(asText(e.V40Vector)));
  const v3Vector = cvss3VectorOf(asText(v3?.V3Vector));
  return {
    ...(v2 ? cvss2Of(cvssScoreOf(v2.V2Score), asText(v2.V2Vector)) : {}),
    cvss3Vector: v3Vector,
    cvss3Score: cvssScoreOf(v3?.V3Score) ?? cvss3BaseScore(v3Vector),
    cvss4Vector: cvss4VectorOf(asText(v4?.V40Vector)),
    cvss4Score: cvssScoreOf(v4?.V40Score),
  };
}

function references(item: JsonObject): string[] {
  return [asText(item.PrimaryURL), ...texts(item.References)].filter((r): r is string => r !== undefined);
}

/**
 * The status Trivy copies from the distribution's advisory. Only "not_affected" is a decision
 * about this package (the vendor's VEX statement), so only it closes the finding. "fixed" means
 * a fix exists, not that it is installed; "will_not_fix", "fix_deferred", "end_of_life",
 * "affected", "under_investigation" and "unknown" all leave the package vulnerable, and whether
 * to accept that is the user's call, not the vendor's.
 */
function vendorState(status: string | undefined): StateRef | undefined {
  if (status !== 'not_affected') return undefined;
  return {
    state: 'FalsePositive',
    reason: 'The vendor states this package is not affected (Trivy status not_affected).',
  };
}

function lines(entries: [string, string | undefined][]): string {
  return entries
    .filter(([, value]) => value)
    .map(([label, value]) => `${label}: ${value}`)
    .join('\n');
}

export function vulnerabilityFinding(v: JsonObject, scope: TrivyScope): FindingRecord | undefined {
  const id = asText(v.VulnerabilityID);
  const packageName = asText(v.PkgName);
  if (!id || !packageName) return undefined;
  const cvss = cvssOf(v);
  const layer = asObject(v.Layer);
  const location: LocationRef = {
    kind: 'Package',
    packageName,
    packageVersion: asText(v.InstalledVersion),
    filePath: asText(v.PkgPath),
  };
  return {
    type: 'finding',
    asset: scope.asset,
    vulnerability: {
      ruleId: id,
      title: asText(v.Title) ?? id,
      ...vulnerabilityIds(id, texts(v.VendorIDs)),
      description: asText(v.Description),
      cweIds: cweIdsIn(texts(v.CweIDs).join(' ')),
      ...cvss,
      references: references(v),
      publishedAt: asText(v.PublishedDate),
    },
    location,
    severity: severityOf(v.Severity, cvss.cvss3Score),
    evidence: lines([
      ['Target', scope.target && `${scope.target}${scope.resultType ? ` (${scope.resultType})` : ''}`],
      ['Resource', scope.resource],
      ['Installed', `${packageName} ${location.packageVersion ?? ''}`.trim()],
      ['Package path', location.filePath],
      ['Package URL', asText(asObject(v.PkgIdentifier)?.PURL) ?? asText(v.Ref)],
      ['Status', asText(v.Status)],
      ['Severity source', asText(v.SeveritySource)],
      ['Layer', asText(layer?.DiffID) ?? asText(layer?.Digest)],
    ]),
    toolFindingId: asText(v.Fingerprint),
    state: vendorState(asText(v.Status)),
    fixedIn: asText(v.FixedVersion),
  };
}

/**
 * The file a config finding is in. Kubernetes results name a resource ("Deployment/app"): its
 * namespace is put in front, as the same name may be used in every namespace.
 */
function configPath(scope: TrivyScope): string | undefined {
  if (scope.namespace && scope.target) return `${scope.namespace}/${scope.target}`;
  return scope.target;
}

function causeEvidence(m: JsonObject): string {
  const cause = asObject(m.CauseMetadata) ?? {};
  const code = asArray(asObject(cause.Code)?.Lines)
    .map(asObject)
    .filter((line) => line && asNumber(line.Number) !== undefined)
    // Content keeps its indentation; Highlighted (with terminal colours) is left out.
    .map((line) => `${asNumber(line!.Number)}: ${typeof line!.Content === 'string' ? line!.Content : ''}`)
    .join('\n');
  const head = lines([
    ['Message', asText(m.Message)],
    ['Resource', asText(cause.Resource)],
    ['Provider', [asText(cause.Provider), asText(cause.Service)].filter(Boolean).join(' / ')],
  ]);
  return code ? `${head}\n\n${code}` : head;
}

/**
 * A failed configuration check. Passed checks (Status PASS, listed with --include-non-failures)
 * are not findings; EXCEPTION marks a check the user waived in a Trivy policy, which is a risk
 * they accepted.
 */
export function misconfigurationFinding(m: JsonObject, scope: TrivyScope): FindingRecord | undefined {
  const status = asText(m.Status)?.toUpperCase();
  const id = asText(m.ID) ?? asText(m.AVDID);
  if (status === 'PASS' || !id) return undefined;
  const filePath = configPath(scope);
  const line = asNumber(asObject(m.CauseMetadata)?.StartLine);
  const avdId = asText(m.AVDID);
  return {
    type: 'finding',
    asset: scope.asset,
    vulnerability: {
      ruleId: id,
      title: asText(m.Title) ?? id,
      ...(avdId && avdId !== id ? { aliases: [avdId] } : {}),
      description: asText(m.Description),
      solution: asText(m.Resolution),
      references: references(m),
    },
    location: filePath ? { kind: 'File', filePath, ...(line && line > 0 ? { line } : {}) } : { kind: 'None' },
    severity: severityOf(m.Severity),
    evidence: causeEvidence(m),
    state:
      status === 'EXCEPTION'
        ? { state: 'RiskAccepted', reason: 'Waived by an exception in the Trivy policy.' }
        : undefined,
  };
}

/** A secret found in a file; Trivy masks the secret itself in `Match`. */
export function secretFinding(s: JsonObject, scope: TrivyScope): FindingRecord | undefined {
  const id = asText(s.RuleID);
  if (!id) return undefined;
  const line = asNumber(s.StartLine);
  return {
    type: 'finding',
    asset: scope.asset,
    vulnerability: {
      ruleId: id,
      title: asText(s.Title) ?? id,
      description: asText(s.Category) && `A secret of category ${asText(s.Category)} is stored in the file.`,
    },
    location: scope.target
      ? { kind: 'File', filePath: scope.target, ...(line && line > 0 ? { line } : {}) }
      : { kind: 'None' },
    severity: severityOf(s.Severity),
    evidence: asText(s.Match),
  };
}

/** A license Trivy's policy classifies (forbidden, restricted…) with a severity. */
export function licenseFinding(l: JsonObject, scope: TrivyScope): FindingRecord | undefined {
  const name = asText(l.Name);
  if (!name) return undefined;
  const category = asText(l.Category);
  const packageName = asText(l.PkgName);
  const filePath = asText(l.FilePath);
  const location: LocationRef = packageName
    ? { kind: 'Package', packageName, filePath }
    : filePath
      ? { kind: 'File', filePath }
      : { kind: 'None' };
  return {
    type: 'finding',
    asset: scope.asset,
    vulnerability: {
      ruleId: `license:${name}`,
      title: `License ${name}${category ? ` (${category})` : ''}`,
      description: category && `Trivy's license policy classifies ${name} as ${category}.`,
      references: texts([l.Link]),
    },
    location,
    severity: severityOf(l.Severity),
    evidence: lines([
      ['Target', scope.target],
      ['Confidence', asNumber(l.Confidence)?.toString()],
    ]),
  };
}

/** A package Trivy listed (with --list-all-pkgs) as software of the asset. */
export function packageSoftware(p: JsonObject, scope: TrivyScope): SoftwareRecord | undefined {
  const name = asText(p.Name);
  if (!name) return undefined;
  const purl = asText(asObject(p.Identifier)?.PURL);
  const category =
    scope.resultClass === 'os-pkgs'
      ? 'OsPackage'
      : scope.resultClass === 'lang-pkgs'
        ? 'Library'
        : softwareCategoryOfPurl(purl);
  return { type: 'software', asset: scope.asset, name, version: asText(p.Version), category, purl };
}

const MODIFIED_KINDS = new Map<string, (item: JsonObject, scope: TrivyScope) => FindingRecord | undefined>([
  ['vulnerability', vulnerabilityFinding],
  ['misconfiguration', misconfigurationFinding],
  ['secret', secretFinding],
  ['license', licenseFinding],
]);

function modifiedState(status: string | undefined, why: string): StateRef | undefined {
  const detail = why ? `: ${why}` : '';
  if (status === 'not_affected') return { state: 'FalsePositive', reason: `Not affected (VEX)${detail}` };
  if (status === 'fixed') return { state: 'Fixed', reason: `Fixed (VEX)${detail}` };
  if (status === 'ignored') return { state: 'RiskAccepted', reason: `Ignored in Trivy${detail}` };
  return undefined;
}

/**
 * A finding Trivy suppressed and listed apart (ExperimentalModifiedFindings, --show-suppressed):
 * a VEX "not_affected" is a false positive for this asset, a VEX "fixed" is fixed, and an entry
 * of .trivyignore ("ignored") is a risk the user accepted. Other statuses stay open.
 */
export function modifiedFinding(entry: JsonObject, scope: TrivyScope): FindingRecord | undefined {
  const inner = asObject(entry.Finding);
  if (!inner) return undefined;
  const map = MODIFIED_KINDS.get(asText(entry.Type)?.toLowerCase() ?? '');
  const finding = map?.(inner, scope);
  if (!finding) return undefined;
  const statement = asText(entry.Statement);
  const source = asText(entry.Source);
  const why = [statement, source && `source: ${source}`].filter(Boolean).join('; ');
  const state = modifiedState(asText(entry.Status)?.toLowerCase(), why);
  return { ...finding, state: state ?? finding.state };
}
