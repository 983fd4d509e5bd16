import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { asArray, asObject, asText, type JsonObject } from '../../parsing/json-fields.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { peekStart } from '../common/stream-start.js';
import type { AssetRef, FindingRecord, ParseContext } from '../types.js';
import { mapResult, type RunInfo } from './map.js';
import { RuleIndex } from './rules.js';
import { Spool } from './spool.js';

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const SARIF_SHAPE = shapeCheck('a SARIF log', [
  ['', 'object', 'an object'],
  ['runs[]', 'object', 'a run object'],
  ['runs[].results', 'array?', 'a list of results'],
  ['runs[].results[]', 'object', 'a result object'],
  ['runs[].tool', 'object', 'the tool object'],
  ['runs[].tool.driver', 'object', 'the driver object'],
  ['runs[].tool.extensions', 'array?', 'a list of extensions'],
  ['runs[].artifacts', 'array?', 'a list of artifacts'],
  ['runs[].artifacts[]', 'object', 'an artifact object'],
]);

/** Base URI ids that name the root of the scanned tree, most telling first. */
const SOURCE_ROOT_IDS = ['SRCROOT', '%SRCROOT%', 'PROJECTROOT', '%PROJECTROOT%'];

/**
 * Reads a SARIF 2.1.0 log as it streams in. Only these values are assembled: the log's
 * `version`, and per run `tool.driver` and `tool.extensions.K` (names and rules),
 * `versionControlProvenance` and `originalUriBaseIds` (the repository), `artifacts.M.location`
 * (for results that name a file by index) and each `results.M`.
 */
export async function* parseSarif(source: Readable, context: ParseContext): AsyncGenerator<FindingRecord> {
  const { first, input } = await peekStart(source);
  if (first === undefined)
    throw new ReportError('The file is empty: a SARIF log is a JSON object with "version" and "runs".');
  if (first !== '{') throw new ReportError(`Not a SARIF log: it starts with "${first}", not a JSON object.`);
  const log = new SarifLog(context);
  try {
    const maxStringChars = Math.max(context.maxFieldChars, context.maxEvidenceChars) + 1;
    for await (const { path, value } of jsonValues(input, log.pick, {
      onValue: SARIF_SHAPE,
      maxStringChars,
    })) {
      yield* log.accept(path, value);
    }
    yield* log.finish();
  } finally {
    await log.dispose();
  }
}

/** The state of one log: the shape seen so far and the run being read. */
class SarifLog {
  private readonly limits: TextLimits;
  private sawRuns = false;
  private runsIsArray = true;
  private sawVersion = false;
  private run: RunState | undefined;
  /** Results skipped for their kind ("pass", "review"…), by kind. */
  private readonly skipped = new Map<string, number>();

  constructor(private readonly context: ParseContext) {
    this.limits = textLimits(context);
  }

  readonly pick = (path: JsonPath): boolean => {
    const [top, run, part, item, detail] = path;
    if (path.length === 1) {
      if (top === 'runs') this.sawRuns = true;
      return top === 'version';
    }
    if (top !== 'runs') return false;
    if (path.length === 2) {
      if (typeof run !== 'number') this.runsIsArray = false;
      return false;
    }
    if (path.length === 3) return part === 'versionControlProvenance' || part === 'originalUriBaseIds';
    if (path.length === 4)
      return (part === 'tool' && item === 'driver') || (part === 'results' && typeof item === 'number');
    if (path.length === 5)
      return (part === 'tool' && item === 'extensions') || (part === 'artifacts' && detail === 'location');
    return false;
  };

  async *accept(path: JsonPath, value: unknown): AsyncGenerator<FindingRecord> {
    if (path.length === 1) return this.checkVersion(value);
    const index = path[1] as number;
    if (this.run?.index !== index) {
      yield* this.closeRun();
      this.run = new RunState(index, this.limits, this.context);
    }
    const [, , part, item] = path;
    if (part === 'results') {
      const result = asObject(value);
      if (!result)
        throw new ReportError(`Not a SARIF log: runs[${index}].results[${item}] is not an object.`);
      const kind = asText(result.kind) ?? 'fail';
      // Only "fail" is a problem found; "pass", "notApplicable", "informational", "review" and
      // "open" are not findings (DefectDojo skips them too).
      if (kind !== 'fail') this.skipped.set(kind, (this.skipped.get(kind) ?? 0) + 1);
      else yield* this.run!.acceptResult(result);
      return;
    }
    yield* this.run!.acceptPart(path.slice(2), value);
  }

  async *finish(): AsyncGenerator<FindingRecord> {
    yield* this.closeRun();
    if (!this.sawRuns || !this.runsIsArray)
      throw new ReportError('Not a SARIF log: the JSON object has no "runs" array.');
    if (!this.sawVersion) this.context.warn('The SARIF log gives no "version"; it was read as SARIF 2.1.0.');
    if (this.skipped.size > 0) {
      const counts = [...this.skipped].map(([kind, n]) => `${kind}: ${n}`).join(', ');
      this.context.warn(
        `SARIF results whose kind is not "fail" are not findings and were skipped (${counts}).`,
      );
    }
  }

  async dispose(): Promise<void> {
    await this.run?.dispose();
  }

  private checkVersion(value: unknown): void {
    this.sawVersion = true;
    const version = asText(value);
    if (version === '2.1.0') return;
    if (version?.startsWith('2.')) this.context.warn(`SARIF version ${version} was read as 2.1.0.`);
    else
      throw new ReportError(
        `Unsupported SARIF version "${version ?? String(value)}": only SARIF 2.1.0 is read.`,
      );
  }

  private async *closeRun(): AsyncGenerator<FindingRecord> {
    const run = this.run;
    this.run = undefined;
    if (!run) return;
    try {
      yield* run.finish();
    } finally {
      await run.dispose();
    }
  }
}

/**
 * One run. Its results are mapped as they come once the run's tool (the rules) and repository
 * are known; before that they wait in a spool, and come out when the missing part arrives or
 * the run ends.
 */
class RunState implements RunInfo {
  readonly rules = new RuleIndex();
  globalMessageStrings: JsonObject | undefined;
  private toolName: string | undefined;
  private sawTool = false;
  private repository: string | undefined;
  private baseUris: JsonObject | undefined;
  private readonly artifacts = new Map<number, string>();
  private readonly spool = new Spool();
  private fixedAsset: AssetRef | undefined;

  constructor(
    readonly index: number,
    private readonly limits: TextLimits,
    private readonly context: ParseContext,
  ) {}

  /** Fixed at the first result mapped, so every finding of the run has the same asset. */
  get asset(): AssetRef {
    this.fixedAsset ??= runAsset(this.repository, this.baseUris, this.toolName ?? 'SARIF');
    return this.fixedAsset;
  }

  artifactUri(index: number): string | undefined {
    return this.artifacts.get(index);
  }

  async *acceptResult(result: JsonObject): AsyncGenerator<FindingRecord> {
    if (this.ready) yield* mapResult(result, this, this.limits);
    else await this.spool.push(result);
  }

  async *acceptPart(path: JsonPath, value: unknown): AsyncGenerator<FindingRecord> {
    const [part, item] = path;
    if (part === 'tool' && item === 'driver') this.setDriver(value);
    else if (part === 'tool') this.rules.addExtension(path[2] as number, value);
    else if (part === 'versionControlProvenance') this.repository = repositoryOf(value);
    else if (part === 'originalUriBaseIds') this.baseUris = asObject(value);
    else if (part === 'artifacts') {
      const uri = asText(asObject(value)?.uri);
      if (uri) this.artifacts.set(item as number, uri);
    }
    if (part === 'tool') this.sawTool = true;
    if (this.ready) yield* this.drain();
  }

  async *finish(): AsyncGenerator<FindingRecord> {
    if (!this.sawTool) this.context.warn(`SARIF run ${this.index} names no tool; its rules are unknown.`);
    yield* this.drain();
  }

  dispose(): Promise<void> {
    return this.spool.dispose();
  }

  /** The rules are known once the tool has been read; the asset once a repository URI has. */
  private get ready(): boolean {
    return this.sawTool && this.repository !== undefined;
  }

  private setDriver(value: unknown): void {
    const driver = asObject(value);
    this.toolName = asText(driver?.name) ?? asText(driver?.fullName);
    this.globalMessageStrings = asObject(driver?.globalMessageStrings);
    this.rules.setDriver(driver);
  }

  private async *drain(): AsyncGenerator<FindingRecord> {
    if (this.spool.size === 0) return;
    for await (const result of this.spool.drain()) yield* mapResult(result as JsonObject, this, this.limits);
  }
}

function repositoryOf(provenance: unknown): string | undefined {
  return asArray(provenance)
    .map((entry) => asText(asObject(entry)?.repositoryUri))
    .find((uri) => uri !== undefined);
}

/**
 * The CodeRepository a run is about: the repository URI of `versionControlProvenance`; else
 * the root of the scanned tree from `originalUriBaseIds` (e.g. "file:///home/runner/work/app/"),
 * which stays the same from one scan of a checkout to the next; else "<tool> workspace" — the
 * log does not say which project it is, so the import should let people name it.
 */
export function runAsset(
  repository: string | undefined,
  baseUris: JsonObject | undefined,
  tool: string,
): AssetRef {
  const root = repository ?? sourceRoot(baseUris);
  return { kind: 'CodeRepository', repository: root ?? `${tool} workspace` };
}

function sourceRoot(baseUris: JsonObject | undefined): string | undefined {
  if (!baseUris) return undefined;
  const ids = [...SOURCE_ROOT_IDS.filter((id) => id in baseUris), ...Object.keys(baseUris)];
  for (const id of ids) {
    const uri = resolveBase(baseUris, id, 0);
    if (uri && /^[a-z][a-z0-9+.-]*:/i.test(uri)) return uri;
  }
  return undefined;
}

/** A base id's URI, joined to the base it is relative to (a short chain at most). */
function resolveBase(baseUris: JsonObject, id: string, depth: number): string | undefined {
  const entry = asObject(baseUris[id]);
  const uri = asText(entry?.uri);
  const parent = asText(entry?.uriBaseId);
  if (!uri || !parent || depth > 4) return uri;
  const parentUri = resolveBase(baseUris, parent, depth + 1);
  if (!parentUri) return uri;
  return parentUri.endsWith('/') ? `${parentUri}${uri}` : `${parentUri}/${uri}`;
}
