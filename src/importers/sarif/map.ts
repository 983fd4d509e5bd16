import { cveIdsIn } from '../../parsing/ids.js';
import { asArray, asNumber, asObject, asText, type JsonObject } from '../../parsing/json-fields.js';
import type { TextLimits } from '../common/limits.js';
import { unique } from '../common/report-values.js';
import { tidyRecord } from '../common/tidy-record.js';
import { vulnerabilityIds } from '../common/vulnerability-ids.js';
import type { AssetRef, FindingRecord, LocationRef, StateRef, VulnerabilityRef } from '../types.js';
import { messageText, type RuleIndex, resultCweIds, ruleCweIds } from './rules.js';
import { sarifSeverity } from './severity.js';

/** What a run knows that its results need. */
export interface RunInfo {
  asset: AssetRef;
  rules: RuleIndex;
  /** `run.artifacts[index].location.uri`, for results that point at an artifact by index only. */
  artifactUri(index: number): string | undefined;
  /** `tool.driver.globalMessageStrings`, for messages given by id. */
  globalMessageStrings: JsonObject | undefined;
}

/** Titles are one line; longer first lines are cut at a word. */
const MAX_TITLE_CHARS = 200;
/** Steps of a code flow shown in the evidence. */
const MAX_FLOW_STEPS = 20;

/** The rule-level parts of a vulnerability, worked out once per rule. */
interface RuleInfo {
  title?: string;
  description?: string;
  solution?: string;
  references: string[];
  cweIds: string[];
}

const ruleInfoCache = new WeakMap<JsonObject, RuleInfo>();

/**
 * The findings of one SARIF result whose kind is "fail": one per location (SARIF lets a result
 * name several places, e.g. the two lines of a hard-coded password; Rampart's finding has one
 * location, and DefectDojo splits them too), or one without a location.
 */
export function mapResult(result: JsonObject, run: RunInfo, limits: TextLimits): FindingRecord[] {
  const givenRuleId = asText(result.ruleId) ?? asText(asObject(result.rule)?.id);
  const rule = run.rules.find(result, givenRuleId);
  const message = resultMessage(result, rule, run);
  const vulnerability = vulnerabilityOf(result, rule, givenRuleId ?? asText(rule?.id), message);
  const severity = sarifSeverity(
    result.level ?? asObject(rule?.defaultConfiguration)?.level,
    asObject(result.properties)?.['security-severity'] ?? asObject(rule?.properties)?.['security-severity'],
  );
  const state = stateOf(result);
  const fingerprint = fingerprintOf(result);
  const fixedIn = unique(asArray(result.fixes).map((fix) => messageText(asObject(fix)?.description))).join(
    '\n',
  );
  const locations = asArray(result.locations);
  const places = locations.length > 0 ? locations : [undefined];
  return places.map((place, i) =>
    tidyRecord(
      {
        type: 'finding',
        asset: run.asset,
        vulnerability,
        location: locationOf(place, run),
        severity,
        evidence: evidenceOf(message, place, result),
        ...(fingerprint
          ? { toolFindingId: places.length > 1 ? `${fingerprint}#${i + 1}` : fingerprint }
          : {}),
        ...(state ? { state } : {}),
        ...(fixedIn ? { fixedIn } : {}),
      },
      limits,
    ),
  );
}

function vulnerabilityOf(
  result: JsonObject,
  rule: JsonObject | undefined,
  ruleId: string | undefined,
  message: string | undefined,
): VulnerabilityRef {
  const info = rule ? ruleInfo(rule) : { references: [], cweIds: [] };
  // The rule's short description names the weakness; a result's message often names the instance
  // ("Unused variable p4."), so it is the title only when the rule gives none.
  const title =
    info.title ?? (message && titleLine(message)) ?? asText(rule?.name) ?? ruleId ?? 'SARIF result';
  const id = ruleId ?? title;
  return {
    ruleId: id,
    title,
    ...vulnerabilityIds(id, cveIdsIn(id)),
    ...(info.description ? { description: info.description } : {}),
    ...(info.solution ? { solution: info.solution } : {}),
    cweIds: unique([...info.cweIds, ...resultCweIds(result)]),
    references: info.references,
  };
}

function ruleInfo(rule: JsonObject): RuleInfo {
  const cached = ruleInfoCache.get(rule);
  if (cached) return cached;
  const short = messageText(rule.shortDescription);
  const full = messageText(rule.fullDescription);
  const help = asText(asObject(rule.help)?.markdown) ?? messageText(rule.help);
  const helpIsLink = help !== undefined && /^https?:\/\/\S+$/.test(help);
  const info: RuleInfo = {
    ...(short ? { title: titleLine(short) } : {}),
    ...((full ?? short) ? { description: full ?? short } : {}),
    ...(help && !helpIsLink && help !== full && help !== short ? { solution: help } : {}),
    references: unique([asText(rule.helpUri), helpIsLink ? help : undefined]),
    cweIds: ruleCweIds(rule),
  };
  ruleInfoCache.set(rule, info);
  return info;
}

/** The first line of a text, cut at a word when it is long. */
function titleLine(text: string): string | undefined {
  const line = text.trim().split(/\r?\n/)[0]?.trim();
  if (!line) return undefined;
  if (line.length <= MAX_TITLE_CHARS) return line;
  const cut = line.slice(0, MAX_TITLE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * A result's message as text: its own text, else the rule's (or the tool's) message string of
 * that id, with the `{0}` placeholders filled from `arguments` and embedded links to related
 * locations ("[print_map](1)") reduced to their text.
 */
function resultMessage(result: JsonObject, rule: JsonObject | undefined, run: RunInfo): string | undefined {
  const message = asObject(result.message);
  if (!message) return undefined;
  const id = asText(message.id);
  const template =
    messageText(message) ??
    (id ? messageText(asObject(rule?.messageStrings)?.[id] ?? run.globalMessageStrings?.[id]) : undefined);
  if (!template) return undefined;
  const args = asArray(message.arguments).map((arg) => asText(arg) ?? '');
  return template
    .replace(/\{(\d+)\}/g, (whole, n: string) => args[Number(n)] ?? whole)
    .replace(/\[([^\]]*)\]\(\d+\)/g, '$1');
}

function locationOf(place: unknown, run: RunInfo): LocationRef {
  const physical = asObject(asObject(place)?.physicalLocation);
  const artifact = asObject(physical?.artifactLocation);
  const index = asNumber(artifact?.index);
  // The URI as the tool wrote it (relative to the scanned tree, or a file:// URI): stable from
  // one scan to the next, and what DefectDojo shows.
  const uri = asText(artifact?.uri) ?? (index === undefined ? undefined : run.artifactUri(index));
  if (!uri) return { kind: 'None' };
  const line = asNumber(asObject(physical?.region)?.startLine);
  return { kind: 'File', filePath: uri, ...(line && Number.isInteger(line) && line > 0 ? { line } : {}) };
}

function evidenceOf(message: string | undefined, place: unknown, result: JsonObject): string | undefined {
  const parts: string[] = [];
  if (message) parts.push(message);
  const logical = asObject(asArray(asObject(place)?.logicalLocations)[0]);
  const logicalName = asText(logical?.fullyQualifiedName) ?? asText(logical?.name);
  if (logicalName) parts.push(`In: ${logicalName}`);
  const snippet = snippetOf(place);
  if (snippet) parts.push(`Snippet:\n${snippet}`);
  const flow = codeFlowOf(result);
  if (flow) parts.push(flow);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** The code of the region, else of the surrounding context region. */
function snippetOf(place: unknown): string | undefined {
  const physical = asObject(asObject(place)?.physicalLocation);
  const snippet =
    asObject(asObject(physical?.region)?.snippet) ?? asObject(asObject(physical?.contextRegion)?.snippet);
  const text = typeof snippet?.text === 'string' ? snippet.text.replace(/^\n+|\s+$/g, '') : '';
  return text || undefined;
}

/** The steps of the first thread flow (source to sink), one line each. */
function codeFlowOf(result: JsonObject): string | undefined {
  const flow = asObject(asArray(asObject(asArray(result.codeFlows)[0])?.threadFlows)[0]);
  const steps = asArray(flow?.locations);
  if (steps.length === 0) return undefined;
  const lines = steps.slice(0, MAX_FLOW_STEPS).map((step, i) => {
    const location = asObject(asObject(step)?.location);
    const physical = asObject(location?.physicalLocation);
    const uri = asText(asObject(physical?.artifactLocation)?.uri) ?? '?';
    const line = asNumber(asObject(physical?.region)?.startLine);
    const note = messageText(location?.message);
    return `${i + 1}. ${uri}${line ? `:${line}` : ''}${note ? ` — ${note}` : ''}`;
  });
  if (steps.length > MAX_FLOW_STEPS) lines.push(`… ${steps.length - MAX_FLOW_STEPS} more steps`);
  return `Code flow:\n${lines.join('\n')}`;
}

/**
 * A decision the report carries. Suppressions (§3.35) mean the result was judged not to need
 * fixing: FalsePositive with the justification, when every suppression is accepted (`status`
 * absent means accepted; early 2.1.0 drafts wrote `state`). One under review or rejected leaves
 * the finding open, as the SARIF SDK reads it. A result the baseline comparison marks "absent"
 * is one that is gone: Fixed.
 */
function stateOf(result: JsonObject): StateRef | undefined {
  const suppressions = asArray(result.suppressions)
    .map(asObject)
    .filter((s): s is JsonObject => s !== undefined);
  const accepted = suppressions.every(
    (s) => (asText(s.status) ?? asText(s.state) ?? 'accepted') === 'accepted',
  );
  if (suppressions.length > 0 && accepted) {
    const justification = suppressions.map((s) => asText(s.justification)).find((j) => j !== undefined);
    const kinds = unique(suppressions.map((s) => asText(s.kind))).join(', ');
    return {
      state: 'FalsePositive',
      reason:
        justification ??
        `Suppressed in the SARIF report${kinds ? ` (${kinds})` : ''}, without a justification.`,
    };
  }
  if (asText(result.baselineState) === 'absent')
    return { state: 'Fixed', reason: 'The SARIF report marks this result absent (no longer found).' };
  return undefined;
}

/**
 * The result's stable id, as DefectDojo derives it: the newest version of the first
 * `fingerprints` method, else every `partialFingerprints` entry, sorted, as "method:value|…".
 */
function fingerprintOf(result: JsonObject): string | undefined {
  const full = newestByMethod(asObject(result.fingerprints));
  const first = full.values().next().value;
  if (first) return first.value;
  const partial = newestByMethod(asObject(result.partialFingerprints));
  if (partial.size === 0) return undefined;
  return [...partial.keys()]
    .sort()
    .map((method) => `${method}:${partial.get(method)!.value}`)
    .join('|');
}

/** Fingerprint keys are "method/vN": the value of the highest N per method, in key order. */
function newestByMethod(values: JsonObject | undefined): Map<string, { version: number; value: string }> {
  const byMethod = new Map<string, { version: number; value: string }>();
  for (const [key, raw] of Object.entries(values ?? {})) {
    const value = asText(raw);
    if (!value) continue;
    const parts = key.split('/');
    const versioned = parts.length > 1 && /^v\d+$/.test(parts[parts.length - 1]!);
    const method = versioned ? parts[parts.length - 2]! : key;
    const version = versioned ? Number(parts[parts.length - 1]!.slice(1)) : 0;
    const known = byMethod.get(method);
    if (!known || known.version < version) byMethod.set(method, { version, value });
  }
  return byMethod;
}
