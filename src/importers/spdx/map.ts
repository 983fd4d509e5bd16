import { asArray, asObject, asText, type JsonObject } from '../../parsing/json-fields.js';
import { softwareCategoryOfPurl } from '../common/package-category.js';
import { unique } from '../common/report-values.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import { imageOfPurl } from '../openvex/product.js';
import type { AssetRef, FindingRecord, Severity, SoftwareRecord } from '../types.js';

/**
 * SPDX 2.x has no field for severity, score or vector: an advisory reference only names the
 * vulnerability. Medium, as DefectDojo has it, so a named CVE is not hidden by a minimum-severity
 * filter; the scanner's own report gives the real rating.
 */
export const SPDX_SEVERITY: Severity = 'Medium';

/** A SECURITY external reference that points at a weakness. */
interface Advisory {
  type: string;
  locator: string;
  comment?: string;
}

export interface SpdxPackage {
  spdxId?: string;
  name: string;
  version?: string;
  purl?: string;
  cpe?: string;
  supplier?: string;
  purpose?: string;
  advisories: Advisory[];
}

/**
 * SECURITY reference types that point at a weakness. cpe22Type and cpe23Type (and swid) are
 * SECURITY references too, but they say what the package is: they give its CPE, never a finding.
 */
const ADVISORY_TYPES = new Set(['advisory', 'fix', 'url']);

/** SPDX writes NOASSERTION and NONE where a value is unknown: placeholders, not data. */
function clean(value: unknown): string | undefined {
  const text = asText(value);
  return text && !/^(NOASSERTION|NONE)$/i.test(text) ? text : undefined;
}

/** "SECURITY", "security", "PACKAGE_MANAGER" and "PACKAGE-MANAGER" are each one category. */
function category(ref: JsonObject): string {
  return (asText(ref.referenceCategory) ?? '').toUpperCase().replace(/_/g, '-');
}

/** An SPDX package as the importer needs it; undefined without a name. */
export function spdxPackage(value: JsonObject): SpdxPackage | undefined {
  const name = clean(value.name);
  if (!name) return undefined;
  const refs = asArray(value.externalRefs)
    .map(asObject)
    .filter((r): r is JsonObject => r !== undefined);
  const located = (type: string) =>
    refs.find((r) => asText(r.referenceType) === type && clean(r.referenceLocator));
  const cpe = located('cpe23Type') ?? located('cpe22Type');
  return {
    spdxId: asText(value.SPDXID),
    name,
    version: clean(value.versionInfo),
    purl: clean(located('purl')?.referenceLocator),
    cpe: clean(cpe?.referenceLocator),
    supplier: clean(value.supplier),
    purpose: asText(value.primaryPackagePurpose)?.toUpperCase().replace(/_/g, '-'),
    advisories: refs
      .filter((r) => category(r) === 'SECURITY' && ADVISORY_TYPES.has(asText(r.referenceType) ?? ''))
      .filter((r) => clean(r.referenceLocator) !== undefined)
      .map((r) => ({
        type: asText(r.referenceType)!,
        locator: clean(r.referenceLocator)!,
        comment: clean(r.comment),
      })),
  };
}

const CVE = /\bCVE-\d{4}-\d{4,}\b/gi;
const GHSA = /\bGHSA(?:-[23456789cfghjmpqrvwx]{4}){3}\b/gi;

/**
 * The CVE and GitHub advisory ids in a text (an advisory URL and its comment: SPDX 2.x has no
 * other place for them), in order, once each. CVE ids upper case; GHSA ids as GitHub writes
 * them, "GHSA-" and the rest lower case.
 */
export function vulnerabilityIdsIn(text: string): string[] {
  const found = [...text.matchAll(CVE), ...text.matchAll(GHSA)]
    .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
    .map(([id]) => (/^cve/i.test(id) ? id.toUpperCase() : `GHSA-${id.slice(5).toLowerCase()}`));
  return [...new Set(found)];
}

/** The package's advisories by the vulnerability they name; the count of those naming none. */
function advisoriesById(pkg: SpdxPackage): { byId: Map<string, Advisory[]>; unnamed: number } {
  const byId = new Map<string, Advisory[]>();
  let unnamed = 0;
  for (const advisory of pkg.advisories) {
    const ids = vulnerabilityIdsIn(`${advisory.locator} ${advisory.comment ?? ''}`);
    if (ids.length === 0) unnamed += 1;
    for (const id of ids) byId.set(id, [...(byId.get(id) ?? []), advisory]);
  }
  return { byId, unnamed };
}

function evidenceOf(pkg: SpdxPackage, refs: Advisory[]): string {
  return [
    `Package: ${[pkg.name, pkg.version].filter(Boolean).join(' ')}`,
    pkg.purl && `Package URL: ${pkg.purl}`,
    pkg.spdxId && `SPDX id: ${pkg.spdxId}`,
    ...refs.map((r) => `${r.type}: ${r.locator}${r.comment ? ` (${r.comment})` : ''}`),
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * A package's findings: one per vulnerability its advisory references name, so a CVE named by
 * both an advisory and a fix reference is one finding with both links. `unnamed` counts the
 * references that name no CVE or GHSA id (nothing to file them under).
 */
export function packageFindings(
  pkg: SpdxPackage,
  asset: AssetRef,
): { findings: FindingRecord[]; unnamed: number } {
  const { byId, unnamed } = advisoriesById(pkg);
  const findings = [...byId].map<FindingRecord>(([id, refs]) => ({
    type: 'finding',
    asset,
    vulnerability: {
      ruleId: id,
      title: id,
      ...vulnerabilityIds(id, []),
      references: unique(refs.map((r) => r.locator)),
    },
    location: { kind: 'Package', packageName: pkg.name, packageVersion: pkg.version },
    severity: SPDX_SEVERITY,
    evidence: evidenceOf(pkg, refs),
    toolFindingId: `${pkg.spdxId ?? pkg.name}|${id}`,
  }));
  return { findings, unnamed };
}

/** primaryPackagePurpose as a software category; a container is an image, not software. */
const PURPOSES = new Map<string, NonNullable<SoftwareRecord['category']> | null>([
  ['OPERATING-SYSTEM', 'OperatingSystem'],
  ['APPLICATION', 'Application'],
  ['FIRMWARE', 'Firmware'],
  ['CONTAINER', null],
]);

/** "Organization: Example Corp" or "Person: Jane Doe (jane@example.com)" → the name alone. */
function vendorOf(supplier: string | undefined): string | undefined {
  return (
    supplier?.replace(/^(Organization|Person|Tool)\s*:\s*/i, '').replace(/\s*\([^()]*@[^()]*\)\s*$/, '') ||
    undefined
  );
}

/** A package as software: by its purpose, else Library (OsPackage for deb/rpm/apk package URLs). */
export function packageSoftware(pkg: SpdxPackage, asset: AssetRef): SoftwareRecord | undefined {
  const purpose = PURPOSES.get(pkg.purpose ?? '');
  if (purpose === null || imageOfPurl(pkg.purl)) return undefined;
  return {
    type: 'software',
    asset,
    name: pkg.name,
    version: pkg.version,
    vendor: vendorOf(pkg.supplier),
    category: purpose ?? softwareCategoryOfPurl(pkg.purl),
    cpe: pkg.cpe,
    purl: pkg.purl,
  };
}

/** True for a package that is a container image (syft names the image it scanned DocumentRoot-Image). */
export function isImage(pkg: SpdxPackage): boolean {
  return (
    pkg.purpose === 'CONTAINER' ||
    imageOfPurl(pkg.purl) !== undefined ||
    (pkg.spdxId?.startsWith('SPDXRef-DocumentRoot-Image-') ?? false)
  );
}

/** "name:tag" or "name@sha256:…" from an image package without an oci/docker package URL. */
function imageReference(pkg: SpdxPackage): string {
  if (!pkg.version || /[:@]/.test(pkg.name.slice(pkg.name.lastIndexOf('/') + 1))) return pkg.name;
  return pkg.version.includes(':') ? `${pkg.name}@${pkg.version}` : `${pkg.name}:${pkg.version}`;
}

/**
 * The asset an SBOM describes: the image when its subject is one (a container package, see
 * isImage); anything else a project named after the document (its `name`, which SPDX requires
 * and tools set to what they scanned), else after the subject package.
 */
export function subjectAsset(
  subject: SpdxPackage | undefined,
  documentName: string | undefined,
): AssetRef | undefined {
  if (subject && isImage(subject))
    return { kind: 'ContainerImage', image: imageOfPurl(subject.purl) ?? imageReference(subject) };
  const name = documentName ?? subject?.name;
  return name ? { kind: 'CodeRepository', repository: name } : undefined;
}
