/**
 * OWASP Dependency-Check XML reports (`--format XML`, schema dependency-check.1.x and 2.x):
 * `<analysis> <projectInfo> <dependencies> <dependency> … <vulnerabilities>`.
 *
 * - One finding per dependency × vulnerability, suppressed ones included (as DefectDojo counts
 *   them); a <suppressedVulnerability> gets the state RiskAccepted with the suppression's notes.
 *   Related dependencies (the same library found in other files) get no findings of their own.
 * - Asset: the scanned project, `{ kind: 'CodeRepository', repository: <projectInfo name> }`
 *   ("dependency-check project" when the report names none).
 * - Location: the package, named from its package URL ("group:artifact" for Maven,
 *   "namespace/name" otherwise) or an old report's Maven identifier, else the file name; the
 *   file path is the evidence. One Software record per dependency that has a package URL.
 * - Vulnerability: the rule id is the vulnerability's name (a CVE id, or an advisory id such as
 *   "GHSA-…"/"NPM-…"), CWE ids from <cwes>, CVSS v3 vector (built from the metrics) and base
 *   score, references from <references>. No fixed version is set: <vulnerableSoftware> bounds
 *   belong to the CPE that matched, often another product than the dependency (CPE guessing).
 *
 * Severity — see DEPENDENCY_CHECK_SEVERITY, taken from the first of: cvssV3 baseSeverity, cvssV2
 * severity, the vulnerability's own <severity>; without any, Medium.
 *
 * | Dependency-Check      | Severity |
 * |-----------------------|----------|
 * | CRITICAL              | Critical |
 * | HIGH                  | High     |
 * | MEDIUM, MODERATE      | Medium   |
 * | LOW                   | Low      |
 * | INFO, INFORMATIONAL, NONE | Info |
 * | none given / unknown  | Medium   |
 */
import type { Readable } from 'node:stream';
import { cweIdsIn } from '../../parsing/ids.js';
import { parsePurl } from '../../parsing/purl.js';
import { ReportError } from '../../parsing/report-error.js';
import {
  child,
  children,
  childText,
  type XmlAncestor,
  type XmlElement,
  xmlElements,
} from '../../parsing/xml.js';
import { cvss2Of, cvss3VectorOf, cvssScoreOf } from '../common/cvss-score.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { unique } from '../common/report-values.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type {
  AssetRef,
  FindingRecord,
  Importer,
  ImportRecord,
  LocationRef,
  ParseContext,
  Severity,
  SoftwareRecord,
  VulnerabilityRef,
} from '../types.js';

export const DEPENDENCY_CHECK_SEVERITY: Readonly<Record<string, Severity>> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  MODERATE: 'Medium',
  LOW: 'Low',
  INFO: 'Info',
  INFORMATIONAL: 'Info',
  NONE: 'Info',
};

/** The severity when the report gives none this importer knows. */
export const DEPENDENCY_CHECK_DEFAULT_SEVERITY: Severity = 'Medium';

const DEFAULT_PROJECT = 'dependency-check project';

interface PackageOf {
  name: string;
  version?: string;
  purl?: string;
}

/** The dependency's package: its package URL, an old report's Maven identifier, or its file name. */
function packageOf(dependency: XmlElement): PackageOf | undefined {
  const identifiers = child(dependency, 'identifiers');
  for (const pkg of identifiers ? children(identifiers, 'package') : []) {
    const id = childText(pkg, 'id');
    const purl = parsePurl(id);
    if (!purl) continue;
    const separator = purl.type === 'maven' ? ':' : '/';
    return {
      name: purl.namespace ? `${purl.namespace}${separator}${purl.name}` : purl.name,
      ...(purl.version ? { version: purl.version } : {}),
      purl: id,
    };
  }
  // dependency-check.1.x: <identifier type="maven"><name>(group:artifact:version)</name>.
  for (const identifier of identifiers ? children(identifiers, 'identifier') : []) {
    if (identifier.attributes.type !== 'maven') continue;
    const parts = (childText(identifier, 'name') ?? '').replace(/^\(|\)$/g, '').split(':');
    if (parts.length === 3 && parts.every(Boolean))
      return { name: `${parts[0]}:${parts[1]}`, version: parts[2] };
  }
  const fileName = childText(dependency, 'fileName');
  return fileName ? { name: fileName } : undefined;
}

/** "NETWORK" or "N" → "N": the first letter is the CVSS v3 abbreviation of every metric value. */
function cvss3Of(element: XmlElement | undefined): { vector?: string; score?: number } {
  if (!element) return {};
  const metric = (name: string) => childText(element, name)?.charAt(0).toUpperCase();
  const parts = [
    ['AV', metric('attackVector')],
    ['AC', metric('attackComplexity')],
    ['PR', metric('privilegesRequired')],
    ['UI', metric('userInteraction')],
    ['S', metric('scope')],
    ['C', metric('confidentialityImpact')],
    ['I', metric('integrityImpact')],
    ['A', metric('availabilityImpact')],
  ];
  const version = childText(element, 'version') === '3.0' ? '3.0' : '3.1';
  const vector = parts.every(([, v]) => v)
    ? cvss3VectorOf(parts.map(([k, v]) => `${k}:${v}`).join('/'), version)
    : undefined;
  const score = cvssScoreOf(childText(element, 'baseScore'));
  return { ...(vector ? { vector } : {}), ...(score !== undefined ? { score } : {}) };
}

/**
 * CVSS v2 from its metrics, spelled out as in NVD's 1.1 feeds ("NETWORK", "PARTIAL"): the first
 * letter is the v2 abbreviation of every value. Dependency-Check writes the Authentication metric
 * as <authenticationr> (sic); <authentication> is read too. For a CVE NVD rated only with v3 it
 * may fill <cvssV2> with the v3 rating (impacts "H", no authentication; PR6439.xml): metrics that
 * are not a v2 vector make the score suspect too, so neither is kept.
 */
function cvss2From(element: XmlElement | undefined): Pick<VulnerabilityRef, 'cvss2Vector' | 'cvss2Score'> {
  if (!element) return {};
  const metric = (...names: string[]) =>
    names
      .map((name) => childText(element, name))
      .find(Boolean)
      ?.charAt(0)
      .toUpperCase();
  const parts = [
    ['AV', metric('accessVector')],
    ['AC', metric('accessComplexity')],
    ['Au', metric('authenticationr', 'authentication')],
    ['C', metric('confidentialImpact', 'confidentialityImpact')],
    ['I', metric('integrityImpact')],
    ['A', metric('availabilityImpact')],
  ];
  const vector = parts.map(([k, v]) => `${k}:${v ?? ''}`).join('/');
  const given = parts.some(([, v]) => v);
  const cvss2 = cvss2Of(cvssScoreOf(childText(element, 'score')), given ? vector : undefined);
  return given && !cvss2.cvss2Vector ? {} : cvss2;
}

function severityOf(vulnerability: XmlElement): Severity {
  const candidates = [
    childText(child(vulnerability, 'cvssV3') ?? vulnerability, 'baseSeverity'),
    childText(child(vulnerability, 'cvssV2') ?? vulnerability, 'severity'),
    childText(vulnerability, 'severity'),
  ];
  for (const candidate of candidates) {
    const severity = candidate && DEPENDENCY_CHECK_SEVERITY[candidate.toUpperCase()];
    if (severity) return severity;
  }
  return DEPENDENCY_CHECK_DEFAULT_SEVERITY;
}

function findingOf(
  asset: AssetRef,
  location: LocationRef,
  filePath: string | undefined,
  vulnerability: XmlElement,
  limits: TextLimits,
): FindingRecord | undefined {
  const name = childText(vulnerability, 'name');
  if (!name) return undefined;
  const cwes = child(vulnerability, 'cwes');
  const cweText = [...(cwes ? children(cwes, 'cwe') : []), ...children(vulnerability, 'cwe')].map(
    (c) => c.text,
  );
  const references = unique(
    children(child(vulnerability, 'references') ?? vulnerability, 'reference').map((r) =>
      childText(r, 'url'),
    ),
  );
  const cvss3 = cvss3Of(child(vulnerability, 'cvssV3'));
  const suppressed = vulnerability.name === 'suppressedVulnerability';
  const notes = childText(vulnerability, 'notes');
  return tidyRecord<FindingRecord>(
    {
      type: 'finding',
      asset,
      vulnerability: {
        ruleId: name,
        title: name,
        ...vulnerabilityIds(name, []),
        description: childText(vulnerability, 'description')?.replace(/\s*\n\s*/g, ' '),
        cweIds: cweIdsIn(cweText.join(' ')),
        ...cvss2From(child(vulnerability, 'cvssV2')),
        cvss3Vector: cvss3.vector,
        cvss3Score: cvss3.score,
        references,
      },
      location,
      severity: severityOf(vulnerability),
      evidence: filePath ? `File: ${filePath}` : undefined,
      ...(suppressed
        ? {
            state: {
              state: 'RiskAccepted' as const,
              reason: notes
                ? `Suppressed in Dependency-Check: ${notes.replace(/\s*\n\s*/g, ' ')}`
                : 'Suppressed in Dependency-Check.',
            },
          }
        : {}),
    },
    limits,
  );
}

async function* records(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  let asset: AssetRef = { kind: 'CodeRepository', repository: DEFAULT_PROJECT };
  let warnedNoPackage = false;
  const pick = (name: string, ancestors: readonly XmlAncestor[]) => {
    if (ancestors.length === 0 && name !== 'analysis')
      throw new ReportError(
        `Not an OWASP Dependency-Check XML report: the root element is <${name}>, not <analysis>.`,
      );
    if (ancestors.length !== 1 && ancestors.length !== 2) return false;
    if (ancestors.length === 1) return name === 'projectInfo';
    return name === 'dependency' && ancestors[1]!.name === 'dependencies';
  };
  for await (const { element } of xmlElements(input, pick)) {
    if (element.name === 'projectInfo') {
      const name = childText(element, 'name');
      if (name) asset = { kind: 'CodeRepository', repository: name };
      continue;
    }
    const pkg = packageOf(element);
    const vulnerabilities = child(element, 'vulnerabilities');
    if (pkg?.purl)
      yield tidyRecord<SoftwareRecord>(
        {
          type: 'software',
          asset,
          name: pkg.name,
          version: pkg.version,
          category: 'Library',
          purl: pkg.purl,
        },
        limits,
      );
    if (!vulnerabilities) continue;
    if (!pkg) {
      if (!warnedNoPackage)
        context.warn('Vulnerabilities of a dependency without a package or file name were skipped.');
      warnedNoPackage = true;
      continue;
    }
    const location: LocationRef = {
      kind: 'Package',
      packageName: pkg.name,
      ...(pkg.version ? { packageVersion: pkg.version } : {}),
    };
    const filePath = childText(element, 'filePath') ?? childText(element, 'fileName');
    for (const vulnerability of vulnerabilities.children) {
      if (vulnerability.name !== 'vulnerability' && vulnerability.name !== 'suppressedVulnerability')
        continue;
      const finding = findingOf(asset, location, filePath, vulnerability, limits);
      if (finding) yield finding;
    }
  }
}

function detect(head: string): number {
  if (!/<analysis[\s>]/.test(head)) return 0;
  if (/dependency-check[.\d]*\.xsd/.test(head)) return 1;
  return /<scanInfo[\s>]/.test(head) && /<dependencies[\s>]/.test(head) ? 0.85 : 0.2;
}

async function* parse(source: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined)
    throw new ReportError('The report is empty: expected an OWASP Dependency-Check XML report.');
  if (first !== '<')
    throw new ReportError(`Not an OWASP Dependency-Check XML report: it starts with "${first}", not XML.`);
  try {
    yield* records(input, context);
  } finally {
    input.destroy();
  }
}

export const dependencyCheckImporter: Importer = {
  format: 'dependency-check',
  label: 'OWASP Dependency-Check (XML report)',
  tool: 'OWASP Dependency-Check',
  detect,
  parse,
};
