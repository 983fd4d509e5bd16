/**
 * Snyk CLI JSON reports: `snyk test --json` (one project: an object with `vulnerabilities`),
 * `snyk test --all-projects --json` (a list of such objects) and `snyk container test --json`
 * (the image's operating-system packages, and with `applications[]` the language projects found
 * inside the image). Snyk Code writes SARIF: the sarif format reads it.
 *
 * - Asset: a Snyk Container result is a ContainerImage (image and tag from its issues' root
 *   "docker-image|name@tag"), its applications belong to the same image; any other project is a
 *   CodeRepository named by `projectName` (see projectAsset).
 * - Location: the installed package (binary package for OS packages) and version, with the
 *   manifest (`displayTargetFile`, e.g. "project-a/pom.xml") as file path when the report names one.
 * - One finding per issue × installed package × version in a project. Snyk lists an issue once per
 *   dependency path ("a > b > c"); those paths are one weakness in one installed package, so they
 *   are merged into one finding whose evidence lists the paths. DefectDojo keeps one finding per
 *   path; the import would merge them anyway (same asset, weakness and location) but keep only
 *   the last path.
 * - Vulnerability: see vulnerabilityOf (Snyk id as rule id, CVE ids, GHSA aliases, CWE, CVSS).
 * - Issues ignored in the project's .snyk policy (`filtered.ignore`) are reported as accepted
 *   risks with the policy's reason, unless a path of the same issue is not ignored.
 * - Severity: see SNYK_SEVERITY.
 *
 * Memory: Snyk writes what was scanned (projectName, displayTargetFile) after the issues, so a
 * project's findings are held until the next top-level project starts or the report ends. They are
 * held merged (one per issue and package, with at most MAX_PATHS paths and one copy of each
 * issue's text), at most MAX_HELD_FINDINGS of them; past that the rest are left out with a warning.
 */
import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asArray, asObject, asText, type JsonObject, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type {
  AssetRef,
  FindingRecord,
  Importer,
  ImportRecord,
  ParseContext,
  Severity,
  StateRef,
  VulnerabilityRef,
} from '../types.js';
import {
  operatingSystemOf,
  type ProjectFacts,
  packageOf,
  projectAsset,
  severityOf,
  targetFileOf,
  vulnerabilityOf,
} from './map.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const SNYK_SHAPE = shapeCheck('a Snyk JSON report', [
  ['', 'object|array', 'an object (or a list of projects)'],
  ['[]', 'object', 'a project object'],
  ['applications', 'array?', 'a list of applications'],
  ['vulnerabilities', 'array?', 'a list of issues'],
  ['[].applications', 'array?', 'a list of applications'],
  ['[].vulnerabilities', 'array?', 'a list of issues'],
  ['applications[]', 'object', 'a project object'],
  ['applications[].applications', 'array?', 'a list of applications'],
  ['applications[].vulnerabilities', 'array?', 'a list of issues'],
  ['[].applications[]', 'object', 'a project object'],
  ['[].applications[].applications', 'array?', 'a list of applications'],
  ['[].applications[].vulnerabilities', 'array?', 'a list of issues'],
]);

export { SNYK_SEVERITY } from './map.js';

/** Merged findings held while their project's asset is unknown (see the memory note above). */
export const MAX_HELD_FINDINGS = 50_000;
/** Dependency paths listed in one finding's evidence; the rest are counted. */
export const MAX_PATHS = 20;

/** Project fields read as they stream past (all short texts). */
const PROJECT_FIELDS = new Set(['projectName', 'path', 'displayTargetFile', 'targetFile', 'error']);
/** Fields only Snyk's project objects have: with `vulnerabilities`, they say the file is Snyk's. */
const SNYK_FIELDS = new Set(['packageManager', 'dependencyCount', 'uniqueCount', 'policy', 'projectName']);

const UNKNOWN_ASSET: AssetRef = { kind: 'CodeRepository', repository: '(unknown)' };

/** One issue in one installed package of a project, with every path that brings it in. */
interface Held {
  vulnerability: VulnerabilityRef;
  severity: Severity;
  packageName: string;
  packageVersion?: string;
  sourcePackage?: string;
  vulnerableVersions?: string;
  upgrade?: string;
  fixedIn?: string;
  paths: string[];
  pathCount: number;
  /** The policy's reason while every path seen is ignored; undefined once one is not. */
  ignored?: StateRef;
}

interface Project {
  /** The path prefix of the project object, e.g. "", "2", "applications.0". */
  key: string;
  parentKey?: string;
  facts: ProjectFacts;
  error?: string;
  findings: Map<string, Held>;
  /** One weakness record per Snyk id, shared by its findings (descriptions are long). */
  weaknesses: Map<string, { vulnerability: VulnerabilityRef; severity: Severity }>;
}

/**
 * Where a path is: the project it belongs to (a list index for --all-projects, then
 * "applications", index for an image's applications) and the rest within that project.
 */
function splitPath(path: JsonPath): { prefix: JsonPath; rest: JsonPath } {
  let i = typeof path[0] === 'number' ? 1 : 0;
  while (path[i] === 'applications' && typeof path[i + 1] === 'number') i += 2;
  return { prefix: path.slice(0, i), rest: path.slice(i) };
}

function evidenceOf(held: Held): string {
  const paths = held.paths.map((p) => `- ${p}`);
  if (held.pathCount > held.paths.length) paths.push(`- … and ${held.pathCount - held.paths.length} more`);
  return [
    paths.length > 0 && `Introduced through:\n${paths.join('\n')}`,
    held.sourcePackage && `Source package: ${held.sourcePackage}`,
    held.vulnerableVersions && `Vulnerable versions: ${held.vulnerableVersions}`,
    held.upgrade && `Upgrade: ${held.upgrade}`,
  ]
    .filter(Boolean)
    .join('\n');
}

/** The direct dependency to upgrade: `upgradePath` lines up with `from`, [1] is the direct one. */
function upgradeOf(vuln: JsonObject): string | undefined {
  return vuln.isUpgradable === true ? asText(asArray(vuln.upgradePath)[1]) : undefined;
}

function ignoredState(vuln: JsonObject): StateRef {
  const rule = asObject(asArray(asObject(vuln.filtered)?.ignored)[0]);
  const reason = asText(rule?.reason);
  const expires = asText(rule?.expires);
  return {
    state: 'RiskAccepted',
    reason: `Ignored in the Snyk policy${reason ? `: ${reason}` : ''}${expires ? ` (until ${expires})` : ''}`,
  };
}

class SnykReader {
  private readonly projects = new Map<string, Project>();
  private root: number | undefined;
  private held = 0;
  private dropped = 0;
  private skipped = 0;
  private sawList = false;
  private sawIssue = false;
  private sawSnykField = false;
  private sarif = false;
  private readonly errors: string[] = [];
  private readonly limits: TextLimits;

  constructor(private readonly context: ParseContext) {
    this.limits = textLimits(context);
  }

  pick(path: JsonPath): boolean {
    const { prefix, rest } = splitPath(path);
    if (rest.length === 1) {
      const key = rest[0] as string;
      if (key === 'vulnerabilities') this.sawList = true;
      if (SNYK_FIELDS.has(key)) this.sawSnykField = true;
      if (key === 'runs' && prefix.length === 0) this.sarif = true;
      return PROJECT_FIELDS.has(key);
    }
    if (rest.length === 2 && rest[0] === 'vulnerabilities' && typeof rest[1] === 'number') {
      this.sawIssue = true;
      return true;
    }
    return rest.length === 3 && rest[0] === 'filtered' && rest[1] === 'ignore' && typeof rest[2] === 'number';
  }

  *take(path: JsonPath, value: unknown): Generator<ImportRecord> {
    const { prefix, rest } = splitPath(path);
    // Everything of one top-level project (its applications too) is read before the next starts.
    const root = typeof prefix[0] === 'number' ? prefix[0] : -1;
    if (root !== this.root) {
      yield* this.flush();
      this.root = root;
    }
    const project = this.project(prefix);
    if (rest.length === 1) {
      const text = asText(value);
      if (rest[0] === 'error') project.error = text;
      else if (text)
        project.facts[rest[0] as 'projectName' | 'path' | 'displayTargetFile' | 'targetFile'] = text;
      return;
    }
    const issue = asObject(value);
    if (issue) this.hold(project, issue, rest[0] === 'filtered');
    else this.skipped += 1;
  }

  *finish(): Generator<ImportRecord> {
    yield* this.flush();
    if (this.sarif && !this.sawList)
      throw new ReportError(
        'This is a SARIF report (Snyk Code writes SARIF): import it with the "sarif" format.',
      );
    if (!this.sawIssue && !(this.sawList && this.sawSnykField)) {
      if (this.errors.length > 0) throw new ReportError(`Snyk could not test the project: ${this.errors[0]}`);
      throw new ReportError(
        'This is not a Snyk JSON report: it has no "vulnerabilities" list of Snyk issues (snyk test --json writes one).',
      );
    }
    for (const error of this.errors) this.context.warn(`Snyk could not test a project: ${error}`);
    if (this.dropped > 0)
      this.context.warn(
        `${this.dropped} Snyk findings were left out: Snyk names the scanned project after its issues, so at most ${MAX_HELD_FINDINGS} can be held until then.`,
      );
    if (this.skipped > 0)
      this.context.warn(`${this.skipped} Snyk issues without an id or a package were skipped.`);
  }

  private project(prefix: JsonPath): Project {
    const key = prefix.join('.');
    let project = this.projects.get(key);
    if (!project) {
      const parentKey = prefix.length > 1 ? prefix.slice(0, -2).join('.') : undefined;
      project = { key, parentKey, facts: {}, findings: new Map(), weaknesses: new Map() };
      this.projects.set(key, project);
    }
    return project;
  }

  private weakness(project: Project, issue: JsonObject, id: string) {
    let weakness = project.weaknesses.get(id);
    if (!weakness) {
      const vulnerability = vulnerabilityOf(issue, id);
      weakness = { vulnerability, severity: severityOf(issue, vulnerability.cvss3Score) };
      project.weaknesses.set(id, weakness);
    }
    return weakness;
  }

  private hold(project: Project, issue: JsonObject, ignored: boolean): void {
    const id = asText(issue.id);
    const pkg = packageOf(issue);
    if (!id || !pkg) {
      this.skipped += 1;
      return;
    }
    const from = texts(issue.from);
    project.facts.root ??= from[0];
    project.facts.operatingSystem ??= operatingSystemOf(issue);
    const version = asText(issue.version);
    const key = `${id}\u0000${pkg.name}\u0000${version ?? ''}`;
    let held = project.findings.get(key);
    if (!held) {
      if (this.held >= MAX_HELD_FINDINGS) {
        this.dropped += 1;
        return;
      }
      this.held += 1;
      held = this.newHeld(project, issue, id, pkg, version, ignored);
      project.findings.set(key, held);
    } else if (!ignored) held.ignored = undefined;
    held.pathCount += 1;
    if (from.length > 0 && held.paths.length < MAX_PATHS)
      held.paths.push(`${from.join(' > ')}${ignored ? ' (ignored)' : ''}`);
    held.upgrade ??= upgradeOf(issue);
  }

  private newHeld(
    project: Project,
    issue: JsonObject,
    id: string,
    pkg: { name: string; source?: string },
    version: string | undefined,
    ignored: boolean,
  ): Held {
    const vulnerable = asObject(issue.semver)?.vulnerable;
    const fixedIn = texts(issue.fixedIn);
    return {
      ...this.weakness(project, issue, id),
      packageName: pkg.name,
      packageVersion: version,
      sourcePackage: pkg.source,
      vulnerableVersions: Array.isArray(vulnerable) ? texts(vulnerable).join(', ') : asText(vulnerable),
      fixedIn: fixedIn.length > 0 ? fixedIn.join(', ') : undefined,
      paths: [],
      pathCount: 0,
      ignored: ignored ? ignoredState(issue) : undefined,
    };
  }

  /** Hands out the findings of the projects read so far, now that their assets are known. */
  private *flush(): Generator<ImportRecord> {
    const assets = new Map<string, AssetRef | undefined>();
    // An image's applications take its asset: parents first.
    const depth = (p: Project) => p.key.split('.').length;
    for (const project of [...this.projects.values()].sort((a, b) => depth(a) - depth(b))) {
      if (project.error && project.findings.size === 0)
        this.errors.push(
          `${project.facts.path ?? project.facts.projectName ?? 'a project'}: ${project.error}`,
        );
      const parent = project.parentKey === undefined ? undefined : assets.get(project.parentKey);
      const asset = projectAsset(project.facts, parent);
      assets.set(project.key, asset);
      if (project.findings.size === 0) continue;
      if (!asset)
        this.context.warn(
          'A Snyk project does not say what was scanned (no projectName, path or dependency path); its findings are filed under "(unknown)".',
        );
      yield* this.findings(project, asset ?? UNKNOWN_ASSET);
    }
    this.projects.clear();
    this.held = 0;
  }

  private *findings(project: Project, asset: AssetRef): Generator<ImportRecord> {
    const filePath = targetFileOf(project.facts);
    for (const held of project.findings.values()) {
      const finding: FindingRecord = {
        type: 'finding',
        asset,
        vulnerability: held.vulnerability,
        location: {
          kind: 'Package',
          packageName: held.packageName,
          packageVersion: held.packageVersion,
          filePath,
        },
        severity: held.severity,
        evidence: evidenceOf(held),
        fixedIn: held.fixedIn,
        state: held.ignored,
      };
      yield tidyRecord(finding, this.limits);
    }
  }
}

function detect(head: string): number {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (!text.startsWith('{') && !text.startsWith('[')) return 0;
  // CycloneDX and SARIF files written by Snyk (snyk sbom, snyk code) are those formats.
  if (/"bomFormat"\s*:|"\$schema"\s*:\s*"[^"]*sarif/i.test(text)) return 0;
  if (/"policy"\s*:\s*"# Snyk \(https:\/\/snyk\.io\) policy file/.test(text)) return 0.95;
  if (!/"vulnerabilities"\s*:\s*\[/.test(text)) return 0;
  const snykId = /"id"\s*:\s*"(SNYK-|snyk:lic:|npm:)/.test(text);
  const pathFields = /"upgradePath"\s*:\s*\[/.test(text) && /"isUpgradable"\s*:/.test(text);
  if (pathFields && snykId) return 0.95;
  // The path fields close an issue: a first issue longer than the head shows only its opening.
  if (/"id"\s*:\s*"SNYK-[A-Z0-9]+-/.test(text) && /"(severityWithCritical|semver)"\s*:/.test(text))
    return 0.9;
  return pathFields && /"from"\s*:\s*\[/.test(text) ? 0.85 : 0;
}

async function* parse(input: Readable, context: ParseContext): AsyncGenerator<ImportRecord> {
  const start = await peekStart(input);
  if (start.first === undefined) throw new ReportError('The file is empty: a Snyk JSON report was expected.');
  if (start.first !== '{' && start.first !== '[')
    throw new ReportError(`This is not a Snyk JSON report: it starts with "${start.first}", not "{" or "[".`);
  const reader = new SnykReader(context);
  const values = jsonValues(start.input, (path) => reader.pick(path), {
    onValue: SNYK_SHAPE,
    maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
  });
  for await (const { path, value } of values) yield* reader.take(path, value);
  yield* reader.finish();
}

export const snykImporter: Importer = {
  format: 'snyk',
  label: 'Snyk CLI JSON (snyk test / snyk container test --json)',
  tool: 'Snyk',
  detect,
  parse,
};
