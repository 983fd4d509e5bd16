/**
 * Semgrep JSON reports.
 *
 * Layouts:
 * - The native output of `semgrep --json` (and `semgrep ci --json`): `{ version, results: [{
 *   check_id, path, start: { line, col }, end, extra: { message, severity, metadata, lines, fix,
 *   fingerprint, is_ignored, sca_info? } }], errors, paths, skipped_rules }`. One finding per
 *   result, in the file at its first line. Supply-chain results (`extra.sca_info`) are located at
 *   the dependency instead: `sca_info.dependency_match.found_dependency` gives the package, its
 *   version, the lockfile and its line; the CVE is `metadata.sca-vuln-database-identifier` and
 *   the fix `metadata.sca-fix-versions`.
 * - The Semgrep App supply-chain API (`/deployments/…/ssc-vulns`): `{ vulns: [{ advisory: {
 *   ruleId, title, description, severity, references: { cveIds, cweIds, urls } }, repositoryName,
 *   matchedDependency, dependencyFileLocation, closestSafeDependency, triage }], hasMore, cursor }`.
 *   One finding per vuln; identical repeats (same rule and location, which the API lists more
 *   than once) are reported once.
 *
 * Asset: the CodeRepository the report names (the API's repositoryName), else "semgrep
 * workspace" — `semgrep --json` does not name the scanned repository.
 *
 * Severity (SEMGREP_SEVERITY): the rule's `metadata.impact` when present (HIGH → High, MEDIUM
 * → Medium, LOW → Low: Semgrep's registry rates a security rule's impact apart from its
 * likelihood), else `extra.severity` (ERROR → High, WARNING → Medium, INFO → Low; Semgrep 1.x's
 * CRITICAL → Critical, HIGH → High, MEDIUM → Medium, LOW → Low; EXPERIMENT and INVENTORY →
 * Info). Supply-chain results use `metadata.sca-severity` first, the API its advisory severity.
 * Anything unknown is Info.
 *
 * States: a native result with `is_ignored: true` (a `nosemgrep` comment, shown with
 * --include-ignored) is RiskAccepted; API triage IGNORED is RiskAccepted (FalsePositive when its
 * dismissReason says so), FIXED is Fixed.
 *
 * Memory: one result at a time, plus the keys of API vulns already reported (bounded).
 */
import type { Readable } from 'node:stream';
import { cveIdsIn, cweIdsIn } from '../../parsing/ids.js';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asArray, asNumber, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { SeenKeys } from '../common/report-values.js';
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
  StateRef,
} from '../types.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const SEMGREP_SHAPE = shapeCheck('a Semgrep JSON report', [
  ['', 'object', 'an object'],
  ['results', 'array?', 'a list of results'],
  ['results[]', 'object', 'a result object'],
  ['vulns', 'array?', 'a list of vulnerabilities'],
  ['vulns[]', 'object', 'a vulnerability object'],
  ['errors', 'array?', 'a list of errors'],
  ['errors[]', 'object', 'an error object'],
]);

/** Semgrep's severities (extra.severity, metadata.impact, sca-severity) as Rampart's. */
export const SEMGREP_SEVERITY: Readonly<Record<string, Severity>> = {
  ERROR: 'High',
  WARNING: 'Medium',
  INFO: 'Low',
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  LOW: 'Low',
  EXPERIMENT: 'Info',
  INVENTORY: 'Info',
};

export const SEMGREP_DEFAULT_REPOSITORY = 'semgrep workspace';

/** Placeholder Semgrep writes for `lines` and `fingerprint` when not logged in. */
const REQUIRES_LOGIN = 'requires login';

function rated(value: unknown): Severity | undefined {
  const key = asText(value)?.toUpperCase() ?? '';
  return Object.hasOwn(SEMGREP_SEVERITY, key) ? SEMGREP_SEVERITY[key] : undefined;
}

function real(value: unknown): string | undefined {
  const text = asText(value);
  return text && text !== REQUIRES_LOGIN ? text : undefined;
}

function positiveLine(value: unknown): number | undefined {
  const n = asNumber(value);
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** CWE ids from a metadata value: "CWE-79: …" or a list of them. */
function cwesOf(value: unknown): string[] {
  return cweIdsIn(Array.isArray(value) ? texts(value).join('\n') : asText(value));
}

function httpLinks(...values: unknown[]): string[] {
  const links: string[] = [];
  for (const value of values)
    for (const link of Array.isArray(value) ? texts(value) : [asText(value)])
      if (link && /^https?:\/\//i.test(link)) links.push(link);
  return links;
}

/** The fixed version of `pkg` from `sca-fix-versions` (`[{ "grpcio": "1.53.0" }, …]`). */
function fixVersionOf(value: unknown, pkg: string | undefined): string | undefined {
  for (const item of asArray(value)) {
    const entry = asObject(item);
    if (!entry) continue;
    if (pkg && asText(entry[pkg])) return asText(entry[pkg]);
  }
  return undefined;
}

/** A native `semgrep --json` result. */
export function resultFinding(result: JsonObject, asset: AssetRef): FindingRecord | undefined {
  const ruleId = asText(result.check_id);
  if (!ruleId) return undefined;
  const extra = asObject(result.extra) ?? {};
  const metadata = asObject(extra.metadata) ?? {};
  const sca = asObject(extra.sca_info);
  const match = asObject(asObject(sca?.dependency_match)?.found_dependency);
  const filePath = asText(result.path);
  const line = positiveLine(asObject(result.start)?.line);

  let location: LocationRef = {
    kind: 'File',
    ...(filePath ? { filePath } : {}),
    ...(line ? { line } : {}),
  };
  let fixedIn: string | undefined;
  if (sca && asText(match?.package)) {
    const packageName = asText(match?.package)!;
    const lockfile =
      asText(match?.lockfile_path) ?? asText(asObject(sca.dependency_match)?.lockfile) ?? filePath;
    const lockLine = positiveLine(match?.line_number) ?? line;
    location = {
      kind: 'Package',
      packageName,
      ...(asText(match?.version) ? { packageVersion: asText(match?.version) } : {}),
      ...(lockfile ? { filePath: lockfile } : {}),
      ...(lockLine ? { line: lockLine } : {}),
    };
    fixedIn = fixVersionOf(metadata['sca-fix-versions'], packageName);
  }

  const severity =
    (sca ? rated(metadata['sca-severity']) : undefined) ??
    rated(metadata.impact) ??
    rated(extra.severity) ??
    'Info';
  const dbId = asText(metadata['sca-vuln-database-identifier']);
  const fix = asText(extra.fix);
  const fingerprint = real(extra.fingerprint);
  const state: StateRef | undefined =
    extra.is_ignored === true
      ? { state: 'RiskAccepted', reason: 'Ignored in the code with a nosemgrep comment.' }
      : undefined;
  const reachable = sca && typeof sca.reachable === 'boolean' ? sca.reachable : undefined;
  const description = [
    asText(extra.message),
    reachable === undefined ? undefined : `Reachable: ${reachable ? 'yes' : 'no'}.`,
  ]
    .filter(Boolean)
    .join('\n\n');

  return {
    type: 'finding',
    asset,
    vulnerability: {
      ruleId,
      title: ruleId,
      ...vulnerabilityIds(ruleId, [...(dbId ? [dbId] : []), ...cveIdsIn(texts(metadata.cve).join(' '))]),
      description,
      ...(fix ? { solution: `Suggested fix:\n${fix}` } : {}),
      cweIds: cwesOf(metadata.cwe),
      references: httpLinks(metadata.references, metadata.source, metadata['source-rule-url']),
    },
    location,
    severity,
    ...(real(extra.lines) ? { evidence: real(extra.lines) } : {}),
    ...(fingerprint ? { toolFindingId: fingerprint } : {}),
    ...(state ? { state } : {}),
    ...(fixedIn ? { fixedIn } : {}),
  };
}

function triageState(value: unknown): StateRef | undefined {
  const triage = asObject(value);
  const status = asText(triage?.status)?.toUpperCase();
  const reason = asText(triage?.dismissReason)?.toUpperCase();
  if (status === 'FIXED') return { state: 'Fixed', reason: 'Triaged as fixed in Semgrep.' };
  if (status !== 'IGNORED') return undefined;
  if (reason === 'FALSE_POSITIVE')
    return { state: 'FalsePositive', reason: 'Ignored in Semgrep as a false positive.' };
  return {
    state: 'RiskAccepted',
    reason: `Ignored in Semgrep${reason && reason !== 'UNKNOWN_REASON' ? ` (${reason.toLowerCase()})` : ''}.`,
  };
}

/** An entry of the Semgrep App supply-chain API's `vulns`. */
export function vulnFinding(vuln: JsonObject): FindingRecord | undefined {
  const advisory = asObject(vuln.advisory) ?? {};
  const ruleId = asText(advisory.ruleId);
  if (!ruleId) return undefined;
  const references = asObject(advisory.references) ?? {};
  const dependency = asObject(vuln.matchedDependency);
  const file = asObject(vuln.dependencyFileLocation);
  const packageName = asText(dependency?.name);
  const filePath = asText(file?.path);
  const line = positiveLine(file?.startLine);
  const location: LocationRef = packageName
    ? {
        kind: 'Package',
        packageName,
        ...(asText(dependency?.versionSpecifier)
          ? { packageVersion: asText(dependency?.versionSpecifier) }
          : {}),
        ...(filePath ? { filePath } : {}),
        ...(line ? { line } : {}),
      }
    : { kind: 'File', ...(filePath ? { filePath } : {}), ...(line ? { line } : {}) };
  const safe = asObject(vuln.closestSafeDependency);
  const exposure = asText(vuln.exposureType);
  const reachableIf = asText(advisory.reachableIf);
  const state = triageState(vuln.triage);
  const ghsa = texts(references.urls)
    .map((u) => /\/advisories\/(GHSA-[\w-]+)/i.exec(u)?.[1])
    .filter((id): id is string => id !== undefined);
  return {
    type: 'finding',
    asset: { kind: 'CodeRepository', repository: asText(vuln.repositoryName) ?? SEMGREP_DEFAULT_REPOSITORY },
    vulnerability: {
      ruleId,
      title: asText(advisory.title) ?? asText(vuln.title) ?? ruleId,
      ...vulnerabilityIds(ruleId, [...texts(references.cveIds), ...ghsa]),
      description: [
        asText(advisory.description),
        exposure ? `Exposure: ${exposure.toLowerCase()}.` : undefined,
        reachableIf ? `Reachable if ${reachableIf}.` : undefined,
      ]
        .filter(Boolean)
        .join('\n\n'),
      cweIds: cwesOf(references.cweIds),
      references: httpLinks(references.urls),
      publishedAt: asText(advisory.announcedAt),
    },
    location,
    severity: rated(advisory.severity) ?? 'Info',
    ...(state ? { state } : {}),
    ...(asText(safe?.versionSpecifier) ? { fixedIn: asText(safe?.versionSpecifier) } : {}),
  };
}

/** Top-level keys beside the results of `semgrep --json` and of the supply-chain API. */
const SEMGREP_KEYS = new Set(['errors', 'version', 'paths', 'skipped_rules', 'hasMore', 'cursor']);

function notSemgrep(): ReportError {
  return new ReportError(
    'This is not a Semgrep JSON report: it has neither "results" with check_id (semgrep --json) nor "vulns" with an advisory (the Semgrep supply-chain API).',
  );
}

function keyOf(f: FindingRecord): string {
  const l = f.location;
  return [f.vulnerability.ruleId, l.packageName, l.packageVersion, l.filePath, l.line].join('\u0000');
}

export const semgrepImporter: Importer = {
  format: 'semgrep',
  label: 'Semgrep JSON (semgrep --json, supply-chain API)',
  tool: 'Semgrep',

  detect(head: string): number {
    if (
      !head
        .replace(/^\uFEFF/, '')
        .trimStart()
        .startsWith('{')
    )
      return 0;
    if (/"results"\s*:\s*\[/.test(head) && /"check_id"\s*:/.test(head) && /"extra"\s*:/.test(head))
      return 0.9;
    if (
      /"vulns"\s*:\s*\[/.test(head) &&
      /"advisory"\s*:/.test(head) &&
      /"(exposureType|matchedDependency)"\s*:/.test(head)
    )
      return 0.85;
    // A clean `semgrep --json` run: no result to show a check_id.
    if (
      /"results"\s*:\s*\[\s*\]/.test(head) &&
      /"(skipped_rules|paths)"\s*:/.test(head) &&
      /"errors"\s*:/.test(head)
    )
      return 0.6;
    return 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: a Semgrep JSON report was expected.');
    if (start.first !== '{') throw notSemgrep();
    const limits: TextLimits = textLimits(context);
    const asset: AssetRef = { kind: 'CodeRepository', repository: SEMGREP_DEFAULT_REPOSITORY };
    const seen = new SeenKeys();
    let recognised = false;
    let skipped = 0;
    let errors = 0;
    // A clean run is `{ "results": [], "errors": [], "version": … }`: recognised by its keys.
    let sawList = false;
    let sawSemgrepKey = false;
    const pick = (path: JsonPath): boolean => {
      if (path.length === 1 && (path[0] === 'results' || path[0] === 'vulns')) sawList = true;
      if (path.length === 1 && SEMGREP_KEYS.has(String(path[0]))) sawSemgrepKey = true;
      return (
        path.length === 2 &&
        typeof path[1] === 'number' &&
        (path[0] === 'results' || path[0] === 'vulns' || path[0] === 'errors')
      );
    };
    const values = jsonValues(start.input, pick, {
      onValue: SEMGREP_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) {
      if (path[0] === 'errors') {
        errors += 1;
        continue;
      }
      const item = asObject(value);
      const isItem = item !== undefined && (path[0] === 'results' ? 'check_id' in item : 'advisory' in item);
      if (!item || !isItem) {
        if (!recognised) throw notSemgrep();
        skipped += 1;
        continue;
      }
      recognised = true;
      const finding = path[0] === 'results' ? resultFinding(item, asset) : vulnFinding(item);
      if (!finding) skipped += 1;
      else if (path[0] === 'results' || seen.first(keyOf(finding))) yield tidyRecord(finding, limits);
    }
    if (!recognised && !(sawList && sawSemgrepKey)) throw notSemgrep();
    if (skipped > 0) context.warn(`${skipped} Semgrep entries without a rule id were skipped.`);
    if (errors > 0)
      context.warn(
        `Semgrep reported ${errors} errors during the scan: some files or rules were not scanned.`,
      );
  },
};
