/**
 * npm audit JSON reports (`npm audit --json`), both layouts, one importer:
 *
 * - npm 6: `{ actions, advisories: { "<id>": { id, module_name, title, severity, cves, cwe,
 *   github_advisory_id, url, vulnerable_versions, patched_versions, recommendation, overview,
 *   references, cvss, findings: [{ version, paths, dev }] } }, muted, metadata }`. One finding per
 *   advisory × installed version of its package (findings[].version); the paths of that version
 *   go to the description.
 * - npm 7 and later: `{ auditReportVersion: 2, vulnerabilities: { "<package>": { name, severity,
 *   isDirect, via: [advisory | "<package>"], effects, range, nodes, fixAvailable } }, metadata }`.
 *   One finding per advisory × package: each advisory object of `via` (with `source`, `title`,
 *   `url`, `severity`, `cwe`, `cvss`, `range`) is a finding at the package it names. A `via` entry
 *   that is only a package name says the package is affected through that dependency: its
 *   advisories are reported at that dependency, so it makes no finding of its own. npm 7+ does
 *   not report installed versions: the location has no version and the vulnerable range and the
 *   node_modules paths are in the description.
 *
 * Asset: `{ kind: 'CodeRepository', repository: 'npm project' }` — npm audit does not name the
 * project it audits. Rule id: the GitHub advisory id (GHSA-…) when the report gives one, else
 * "npm-advisory-<id>"; CVE ids and the GHSA id are kept as CVE ids and aliases.
 *
 * Severity (NPM_AUDIT_SEVERITY): critical → Critical, high → High, moderate → Medium, low → Low,
 * info → Info; the advisory's own severity (npm 7+: the via object's, not the package's, which
 * is the highest of all its advisories). Unknown values are Info, or the band of the CVSS score.
 *
 * fixedIn: npm 6 patched_versions (">=1.10.2"); npm 7+ the fix npm offers: "express@4.18.3"
 * (with "(semver-major)" when it is one), or "npm audit fix" when fixAvailable is just true.
 *
 * An error report (`{ "error": { code, summary } }`, e.g. ENOLOCK) fails with its summary.
 *
 * Memory: one advisory or one package entry at a time.
 */
import type { Readable } from 'node:stream';
import { cweIdsIn } from '../../parsing/ids.js';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asArray, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { cvss3BaseScore, cvss3VectorOf, cvssScoreOf, severityOfCvssScore } from '../common/cvss-score.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { httpUrlsIn } from '../common/report-values.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type { AssetRef, FindingRecord, Importer, ImportRecord, ParseContext, Severity } from '../types.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const NPM_AUDIT_SHAPE = shapeCheck('an npm audit JSON report', [
  ['', 'object', 'an object'],
  ['vulnerabilities', 'object?', 'an object of vulnerabilities by package name'],
  ['vulnerabilities.*', 'object', 'a vulnerability object'],
  ['advisories', 'object?', 'an object of advisories by id'],
  ['advisories.*', 'object', 'an advisory object'],
]);

/** npm's severities as Rampart's. */
export const NPM_AUDIT_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  moderate: 'Medium',
  low: 'Low',
  info: 'Info',
};

export const NPM_AUDIT_ASSET: AssetRef = { kind: 'CodeRepository', repository: 'npm project' };

/** Paths of one installed version listed in a description; the rest are counted. */
const MAX_PATHS = 20;

function severityOf(value: unknown, score: number | undefined): Severity {
  const key = asText(value)?.toLowerCase() ?? '';
  if (Object.hasOwn(NPM_AUDIT_SEVERITY, key)) return NPM_AUDIT_SEVERITY[key]!;
  return score !== undefined ? severityOfCvssScore(score) : 'Info';
}

function ghsaIn(...values: unknown[]): string | undefined {
  for (const value of values) {
    const match = /\bGHSA(?:-[23456789cfghjmpqrvwx]{4}){3}\b/i.exec(asText(value) ?? '');
    if (match) return `GHSA${match[0].slice(4).toLowerCase()}`;
  }
  return undefined;
}

function cvssOf(value: unknown): { cvss3Vector?: string; cvss3Score?: number } {
  const cvss = asObject(value);
  const vector = cvss3VectorOf(asText(cvss?.vectorString));
  if (!vector) return {};
  return { cvss3Vector: vector, cvss3Score: cvssScoreOf(cvss?.score) ?? cvss3BaseScore(vector) };
}

function cwesOf(value: unknown): string[] {
  return cweIdsIn(Array.isArray(value) ? texts(value).join(' ') : asText(value));
}

function pathsText(paths: string[]): string | undefined {
  if (paths.length === 0) return undefined;
  const shown = paths.slice(0, MAX_PATHS).map((p) => `- ${p}`);
  if (paths.length > MAX_PATHS) shown.push(`- … and ${paths.length - MAX_PATHS} more`);
  return shown.join('\n');
}

/** npm 6: the findings of one advisory, one per installed version. */
export function advisoryFindings(advisory: JsonObject): FindingRecord[] {
  const packageName = asText(advisory.module_name);
  const id = asText(advisory.id);
  if (!packageName || !id) return [];
  const ghsa = ghsaIn(advisory.github_advisory_id, advisory.url);
  const ruleId = ghsa ?? `npm-advisory-${id}`;
  const cvss = cvssOf(advisory.cvss);
  const url = asText(advisory.url);
  const references = [
    ...(url ? [url] : []),
    ...httpUrlsIn(asText(advisory.references)?.replace(/[()[\]]/g, ' ')),
  ];
  const vulnerableVersions = asText(advisory.vulnerable_versions);
  const base = {
    ruleId,
    title: asText(advisory.title) ?? ruleId,
    ...vulnerabilityIds(ruleId, [...texts(advisory.cves), ghsa, `npm-advisory-${id}`]),
    solution: asText(advisory.recommendation),
    cweIds: cwesOf(advisory.cwe),
    ...cvss,
    references,
    publishedAt: asText(advisory.created),
  };
  // Installed versions, each with its paths; the same version may be listed more than once.
  const versions = new Map<string, { paths: string[]; dev: boolean }>();
  for (const item of asArray(advisory.findings)) {
    const f = asObject(item);
    const version = asText(f?.version) ?? '';
    const entry = versions.get(version) ?? { paths: [], dev: true };
    entry.paths.push(...texts(f?.paths));
    if (f?.dev !== true) entry.dev = false;
    versions.set(version, entry);
  }
  if (versions.size === 0) versions.set('', { paths: [], dev: false });
  const fixedIn = asText(advisory.patched_versions);
  return [...versions].map(([version, { paths, dev }]) => ({
    type: 'finding',
    asset: NPM_AUDIT_ASSET,
    vulnerability: {
      ...base,
      description: [
        asText(advisory.overview),
        vulnerableVersions ? `Vulnerable versions of ${packageName}: ${vulnerableVersions}` : undefined,
        dev && paths.length > 0 ? 'A development dependency.' : undefined,
        pathsText(paths) ? `Dependency paths:\n${pathsText(paths)}` : undefined,
      ]
        .filter(Boolean)
        .join('\n\n'),
    },
    location: { kind: 'Package', packageName, ...(version ? { packageVersion: version } : {}) },
    severity: severityOf(advisory.severity, cvss.cvss3Score),
    ...(fixedIn && fixedIn !== '<0.0.0' ? { fixedIn } : {}),
  }));
}

function fixOf(value: unknown): string | undefined {
  if (value === true) return 'npm audit fix';
  const fix = asObject(value);
  const name = asText(fix?.name);
  const version = asText(fix?.version);
  if (!name || !version) return undefined;
  return `${name}@${version}${fix?.isSemVerMajor === true ? ' (semver-major)' : ''}`;
}

/** npm 7+: the findings of one package entry, one per advisory in its `via`. */
export function packageFindings(entry: JsonObject, key: string): FindingRecord[] {
  const packageName = asText(entry.name) ?? key;
  const nodes = texts(entry.nodes);
  const fixedIn = fixOf(entry.fixAvailable);
  const out: FindingRecord[] = [];
  for (const item of asArray(entry.via)) {
    const via = asObject(item);
    if (!via) continue; // a dependency's name: its advisories are reported at it
    // An advisory is about the package it names; npm lists it under that package.
    if (asText(via.name) && asText(via.name) !== packageName) continue;
    const source = asText(via.source);
    const ghsa = ghsaIn(via.url);
    const ruleId = ghsa ?? (source ? `npm-advisory-${source}` : undefined);
    if (!ruleId) continue;
    const cvss = cvssOf(via.cvss);
    const url = asText(via.url);
    const range = asText(via.range) ?? asText(entry.range);
    out.push({
      type: 'finding',
      asset: NPM_AUDIT_ASSET,
      vulnerability: {
        ruleId,
        title: asText(via.title) ?? ruleId,
        ...vulnerabilityIds(ruleId, [ghsa, source ? `npm-advisory-${source}` : undefined]),
        description: [
          range ? `Vulnerable versions of ${packageName}: ${range}` : undefined,
          entry.isDirect === true ? 'A direct dependency.' : undefined,
          pathsText(nodes) ? `Installed at:\n${pathsText(nodes)}` : undefined,
        ]
          .filter(Boolean)
          .join('\n\n'),
        cweIds: cwesOf(via.cwe),
        ...cvss,
        references: url ? [url] : [],
      },
      location: { kind: 'Package', packageName },
      severity: severityOf(via.severity, cvss.cvss3Score),
      ...(fixedIn ? { fixedIn } : {}),
    });
  }
  return out;
}

/** Top-level keys of an npm audit report (npm 6 or 7+). */
const NPM_KEYS = new Set(['advisories', 'auditReportVersion', 'actions', 'muted']);

function notNpm(): ReportError {
  return new ReportError(
    'This is not an npm audit JSON report: it has neither "advisories" (npm 6) nor "auditReportVersion" and a "vulnerabilities" object keyed by package (npm 7+).',
  );
}

export const npmAuditImporter: Importer = {
  format: 'npm-audit',
  label: 'npm audit JSON (npm 6 and npm 7+)',
  tool: 'npm audit',

  /**
   * npm 6 reports are rated 0.9 and more: their advisories hold `"findings": [` lists with
   * titles and severities, which DefectDojo's generic format also matches (at 0.85).
   */
  detect(head: string): number {
    if (
      !head
        .replace(/^\uFEFF/, '')
        .trimStart()
        .startsWith('{')
    )
      return 0;
    if (/"auditReportVersion"\s*:\s*\d/.test(head)) return 0.95;
    if (
      /"advisories"\s*:\s*\{/.test(head) &&
      /"(module_name|patched_versions|vulnerable_versions)"\s*:/.test(head)
    )
      return 0.95;
    if (/"advisories"\s*:\s*\{/.test(head) && /"actions"\s*:\s*\[/.test(head) && /"muted"\s*:/.test(head))
      return 0.9;
    if (
      /"vulnerabilities"\s*:\s*\{/.test(head) &&
      /"via"\s*:\s*\[/.test(head) &&
      /"fixAvailable"\s*:/.test(head)
    )
      return 0.85;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: an npm audit JSON report was expected.');
    if (start.first !== '{') throw notNpm();
    const limits: TextLimits = textLimits(context);
    let recognised = false;
    let skipped = 0;
    const pick = (path: JsonPath): boolean => {
      if (path.length === 1 && NPM_KEYS.has(String(path[0]))) recognised = true;
      if (path.length === 1 && path[0] === 'error') return true;
      return path.length === 2 && (path[0] === 'advisories' || path[0] === 'vulnerabilities');
    };
    const values = jsonValues(start.input, pick, {
      onValue: NPM_AUDIT_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) {
      if (path[0] === 'error') {
        const error = asObject(value);
        const summary = asText(error?.summary) ?? asText(error?.detail) ?? asText(value) ?? 'no details';
        const code = asText(error?.code);
        throw new ReportError(
          `npm audit reported an error instead of an audit${code ? ` (${code})` : ''}: ${summary}`,
        );
      }
      const item = asObject(value);
      if (typeof path[1] === 'number') throw notNpm(); // a list, not npm's object keyed by package
      if (!item) {
        skipped += 1;
        continue;
      }
      if (path[0] === 'vulnerabilities' && !('via' in item) && !('range' in item) && !('nodes' in item))
        throw notNpm();
      const findings =
        path[0] === 'advisories' ? advisoryFindings(item) : packageFindings(item, String(path[1]));
      if (findings.length === 0 && path[0] === 'advisories') skipped += 1;
      for (const finding of findings) yield tidyRecord(finding, limits);
      if (path[0] === 'vulnerabilities') recognised = true;
    }
    if (!recognised) throw notNpm();
    if (skipped > 0) context.warn(`${skipped} npm audit entries without a package name or id were skipped.`);
  },
};
