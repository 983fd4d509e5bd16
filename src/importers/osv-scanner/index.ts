/**
 * OSV-Scanner JSON reports (`osv-scanner --format json`, v1 and v2 `scan source`).
 *
 * `results[]` holds one entry per scanned source (a lockfile, an SBOM, a git repository) with
 * its `packages[]`; each package lists its `vulnerabilities[]` (full OSV records) and `groups[]`
 * (ids that are aliases of one another). One finding per vulnerability × package, as the tool
 * lists them: an advisory and its alias (GHSA-… and PYSEC-…) are two findings here, and share
 * their CVE id, which the import uses to tell they are one weakness. The asset is the folder of
 * each source (see sourceAsset in map.ts).
 *
 * Severity (OSV_SEVERITY): the advisory's GitHub rating (CRITICAL, HIGH, MODERATE → Medium,
 * LOW), else the band of its CVSS v3 base score (computed from the vector), else an Ubuntu
 * priority; an advisory that rates nothing takes the highest rating of its group (its aliases
 * in the same package, or the group's max_severity score); Info when nothing rates it.
 *
 * Memory: one package at a time. Unrated vulnerabilities wait for their package's groups,
 * which osv-scanner writes after the vulnerabilities.
 */
import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asObject, asText, texts } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { severityOfCvssScore } from '../common/cvss-score.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import { tidyRecord } from '../common/tidy-record.js';
import type { FindingRecord, Importer, ImportRecord, ParseContext, Severity } from '../types.js';
import {
  groupsOf,
  type OsvGroup,
  type OsvPackage,
  type OsvSource,
  packageOf,
  vulnerabilityFinding,
} from './map.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const OSV_SHAPE = shapeCheck('an OSV-Scanner JSON report', [
  ['', 'object', 'an object'],
  ['results', 'array?', 'a list of results'],
  ['results[]', 'object', 'a result object'],
  ['results[].packages', 'array?', 'a list of packages'],
  ['results[].packages[]', 'object', 'a package object'],
  ['results[].packages[].vulnerabilities', 'array?', 'a list of vulnerabilities'],
  ['results[].packages[].vulnerabilities[]', 'object', 'a vulnerability object'],
]);

export { OSV_SEVERITY } from './map.js';

const RANK: Record<Severity, number> = { Info: 0, Low: 1, Medium: 2, High: 3, Critical: 4 };

interface PackageState {
  key: string;
  info: OsvPackage;
  dependencyGroups: string[];
  /** Ratings of this package's advisories, by id, for their unrated aliases. */
  rated: Map<string, Severity>;
  /** Findings whose advisory rates nothing, until the groups are read. */
  unrated: FindingRecord[];
}

function newPackage(key: string): PackageState {
  return { key, info: {}, dependencyGroups: [], rated: new Map(), unrated: [] };
}

/** The highest rating among the aliases of `id`, else the group's max_severity band. */
function groupSeverity(id: string, groups: OsvGroup[], rated: Map<string, Severity>): Severity | undefined {
  const group = groups.find((g) => g.ids.includes(id));
  if (!group) return undefined;
  const ratings = group.ids.map((other) => rated.get(other)).filter((s): s is Severity => s !== undefined);
  if (ratings.length > 0) return ratings.reduce((a, b) => (RANK[b] > RANK[a] ? b : a));
  return group.maxSeverity === undefined ? undefined : severityOfCvssScore(group.maxSeverity);
}

class OsvReader {
  private source: OsvSource = {};
  private pkg: PackageState = newPackage('');
  private recognised = false;
  private skipped = 0;
  private unnamed = 0;
  private readonly limits: TextLimits;

  constructor(private readonly context: ParseContext) {
    this.limits = textLimits(context);
  }

  pick(path: JsonPath): boolean {
    if (path.length === 1 && path[0] === 'results') this.recognised = true;
    if (path[0] !== 'results' || typeof path[1] !== 'number') return false;
    if (path.length === 3) return path[2] === 'source';
    if (path[2] !== 'packages' || typeof path[3] !== 'number') return false;
    if (path.length === 5)
      return path[4] === 'package' || path[4] === 'dependency_groups' || path[4] === 'groups';
    return path.length === 6 && path[4] === 'vulnerabilities' && typeof path[5] === 'number';
  }

  *take(path: JsonPath, value: unknown): Generator<ImportRecord> {
    if (path[2] === 'source') {
      yield* this.settle(undefined);
      const source = asObject(value);
      this.source = { path: asText(source?.path), type: asText(source?.type) };
      return;
    }
    const key = `${path[1]}.${path[3]}`;
    if (key !== this.pkg.key) {
      yield* this.settle(undefined);
      this.pkg = newPackage(key);
    }
    if (path[4] === 'package') this.pkg.info = packageOf(value);
    else if (path[4] === 'dependency_groups') this.pkg.dependencyGroups = texts(value);
    else if (path[4] === 'groups') yield* this.settle(groupsOf(value));
    else yield* this.vulnerability(value);
  }

  *finish(): Generator<ImportRecord> {
    yield* this.settle(undefined);
    if (!this.recognised)
      throw new ReportError('This is not an OSV-Scanner JSON report: it has no "results" list.');
    if (this.skipped > 0)
      this.context.warn(`${this.skipped} OSV entries without an id or package were skipped.`);
    if (this.unnamed > 0)
      this.context.warn(
        `${this.unnamed} findings name no source path; they are filed under a project named "(unknown)".`,
      );
  }

  private *vulnerability(value: unknown): Generator<ImportRecord> {
    const vuln = asObject(value);
    const mapped = vuln && vulnerabilityFinding(vuln, this.pkg.info, this.source, this.pkg);
    if (!mapped) {
      this.skipped += 1;
      return;
    }
    if (!this.source.path) this.unnamed += 1;
    if (mapped.ownSeverity) {
      this.pkg.rated.set(mapped.finding.vulnerability.ruleId, mapped.ownSeverity);
      yield tidyRecord(mapped.finding, this.limits);
    } else this.pkg.unrated.push(mapped.finding);
  }

  /** Hands out the package's unrated findings, rated by their group when the groups are known. */
  private *settle(groups: OsvGroup[] | undefined): Generator<ImportRecord> {
    for (const finding of this.pkg.unrated.splice(0)) {
      const lent = groups && groupSeverity(finding.vulnerability.ruleId, groups, this.pkg.rated);
      yield tidyRecord({ ...finding, severity: lent ?? finding.severity }, this.limits);
    }
  }
}

export const osvScannerImporter: Importer = {
  format: 'osv-scanner',
  label: 'OSV-Scanner JSON (osv-scanner --format json)',
  tool: 'OSV-Scanner',

  detect(head: string): number {
    if (!/"results"\s*:\s*\[/.test(head)) return 0;
    if (/"packages"\s*:\s*\[/.test(head) && /"source"\s*:\s*\{/.test(head)) {
      return /"(ecosystem|experimental_config|groups)"\s*:/.test(head) ? 0.95 : 0.8;
    }
    return /^\s*\{\s*"results"\s*:\s*\[\s*\]/.test(head) ? 0.5 : 0;
  },

  async *parse(input: Readable, context: ParseContext): AsyncIterable<ImportRecord> {
    const start = await peekStart(input);
    if (start.first === undefined)
      throw new ReportError('The file is empty: an OSV-Scanner JSON report was expected.');
    if (start.first !== '{')
      throw new ReportError('This is not an OSV-Scanner JSON report: it does not start with "{".');
    const reader = new OsvReader(context);
    const values = jsonValues(start.input, (path) => reader.pick(path), {
      onValue: OSV_SHAPE,
      maxStringChars: Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1,
    });
    for await (const { path, value } of values) yield* reader.take(path, value);
    yield* reader.finish();
  },
};
