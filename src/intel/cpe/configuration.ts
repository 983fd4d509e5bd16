/**
 * Evaluates NVD configurations (API 2.0 `configurations`) against what is known about one asset
 * or service: a few CPE names (the service, maybe its host's OS and hardware).
 *
 * An entry (`cpeMatch`) matches a known CPE when part, vendor, product and the other attributes
 * accept it (see attributeMatches in cpe.ts) and the version fits:
 * - criteria version `*` with `versionStart*`/`versionEnd*`: the known version, joined with its
 *   update (`openssh:8.5:p1` → `8.5p1`), lies in the range; no range: any version;
 * - criteria version `-` (NA): the known version is `-` or unknown;
 * - an exact criteria version (any range fields beside it are ignored) equals the known one by
 *   the version comparator; when the criteria carry an update (`openssh:8.5:p1`), version and update
 *   are compared joined, so `cpe:/a:openbsd:openssh:8.5p1` matches it; a known version with an
 *   unknown update matches any update of that version;
 * - an unknown known version (`*`) matches only criteria whose version is `*` or `-`: "openssh,
 *   version unknown" is not reported vulnerable to every OpenSSH CVE.
 *
 * Platform policy, for entries with `vulnerable: false` (the "running on/with" side of an AND
 * configuration) that no known CPE matches: when the platform is unknown the entry is assumed to
 * hold and the result is flagged `platformAssumed`; when it is known the entry simply fails. An
 * OS or hardware platform (part `o`/`h`) is known when any CPE of that part was supplied, because an
 * asset has one OS and one box: if the caller says "Debian", it is not Windows. An application
 * platform (part `a`, e.g. "Spring on JDK ≥ 9") is known only when a CPE of that same vendor and
 * product was supplied, because an asset runs many applications and naming one says nothing about
 * the others. Entries with `vulnerable: false` never make a configuration vulnerable by
 * themselves: a result is vulnerable only when an entry with `vulnerable: true` matched.
 *
 * Truth values are three-valued (true, false, assumed): OR takes true over assumed over false,
 * AND false over assumed over true, negation swaps true and false and leaves assumed.
 * A negated node contributes no evidence.
 */

import type { Configuration, CpeMatch } from '../types.js';
import {
  ANY,
  attributeMatches,
  type Cpe,
  formatCpe,
  hasWildcard,
  literalText,
  makeCpe,
  NA,
  parseCpe,
  toCpeValue,
} from './cpe.js';
import {
  compareParsed,
  joinVersionUpdate,
  type ParsedVersion,
  parseVersion,
  splitUpdateSuffix,
} from './version.js';

/** A service or package as a scanner or inventory describes it. */
export interface ServiceInput {
  part?: 'a' | 'o' | 'h';
  vendor?: string;
  product: string;
  version?: string;
  update?: string;
}

/** A CPE name (either binding), a parsed Cpe, or a service description. */
export type TargetInput = string | Cpe | ServiceInput;

/** One known CPE, with its versions parsed once. */
export interface TargetCpe {
  cpe: Cpe;
  /** The CPE 2.3 formatted string, for evidence. */
  text: string;
  /** The version attribute alone, when it is a literal. */
  version: ParsedVersion | null;
  /** Version joined with a literal update (`8.5` + `p1` → `8.5p1`): what ranges compare. */
  joined: ParsedVersion | null;
  /** `8.5p1` with an unknown update, read as version `8.5` update `p1`. */
  split: { version: ParsedVersion; update: string } | null;
}

export interface MatchTarget {
  cpes: TargetCpe[];
  /** Parts of the supplied CPEs (a, o, h): an OS or hardware platform is known when present. */
  parts: Set<string>;
}

const TRUE = 1;
const FALSE = 0;
const ASSUMED = 2;
type Truth = typeof TRUE | typeof FALSE | typeof ASSUMED;

export interface CompiledEntry {
  criteria: string;
  matchCriteriaId?: string;
  vulnerable: boolean;
  /** Null when the criteria string could not be parsed: the entry never matches. */
  cpe: Cpe | null;
  /** Exact criteria version (null when ANY, NA, a wildcard or unparseable). */
  exact: ParsedVersion | null;
  /** Exact version joined with the criteria's literal update. */
  exactJoined: ParsedVersion | null;
  range: CompiledRange | null;
  /** A range bound was present but empty or not a string: the entry never matches. */
  invalid: boolean;
}

export interface CompiledRange {
  start: ParsedVersion | null;
  startInclusive: boolean;
  end: ParsedVersion | null;
  endInclusive: boolean;
}

export interface CompiledNode {
  operator: 'AND' | 'OR';
  negate: boolean;
  entries: CompiledEntry[];
}

export interface CompiledConfiguration {
  operator: 'AND' | 'OR';
  negate: boolean;
  nodes: CompiledNode[];
}

/** One entry that matched, as evidence. */
export interface EntryMatch {
  criteria: string;
  matchCriteriaId?: string;
  vulnerable: boolean;
  /** The supplied CPE it matched (CPE 2.3 formatted string). */
  cpe: string;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}

export interface ConfigurationResult {
  vulnerable: boolean;
  /** Vulnerable only if an unknown platform is one of those the configuration names. */
  platformAssumed: boolean;
  matches: EntryMatch[];
}

const RANGE_KEYS = [
  'versionStartIncluding',
  'versionStartExcluding',
  'versionEndIncluding',
  'versionEndExcluding',
] as const;

export interface CompileOptions {
  /**
   * Keep each entry's `matchCriteriaId` for evidence (default true). A large index may drop them:
   * they are unique strings, about a third of its memory.
   */
  keepMatchCriteriaIds?: boolean;
}

/**
 * Shares parsed criteria, versions, strings and whole compiled entries between many records: NVD
 * repeats the same criteria and ranges across CVEs, and a compiled entry is never modified.
 */
export class CompileCache {
  private readonly strings = new Map<string, string>();
  private readonly cpes = new Map<string, Cpe | null>();
  private readonly versions = new Map<string, ParsedVersion | null>();
  private readonly entries = new Map<string, Map<string, CompiledEntry>>();
  readonly keepMatchCriteriaIds: boolean;

  constructor(options: CompileOptions = {}) {
    this.keepMatchCriteriaIds = options.keepMatchCriteriaIds ?? true;
  }

  entry(match: CpeMatch, compile: () => CompiledEntry): CompiledEntry {
    // Only well-typed entries are shared: `42` and `"42"` would make the same key.
    if (typeof match.criteria !== 'string') return compile();
    if (RANGE_KEYS.some((k) => match[k] !== undefined && typeof match[k] !== 'string')) return compile();
    let byCriteria = this.entries.get(match.criteria);
    if (!byCriteria) {
      byCriteria = new Map();
      this.entries.set(match.criteria, byCriteria);
    }
    const key = this.entryKey(match);
    let entry = byCriteria.get(key);
    if (!entry) {
      entry = compile();
      byCriteria.set(key, entry);
    }
    return entry;
  }

  /** What besides the criteria tells entries apart; short, as most entries have no range. */
  private entryKey(match: CpeMatch): string {
    const id = this.keepMatchCriteriaIds ? match.matchCriteriaId : undefined;
    const vulnerable = match.vulnerable === true ? 'v' : 'n';
    if (id === undefined && RANGE_KEYS.every((k) => match[k] === undefined)) return vulnerable;
    return `${vulnerable}|${id ?? ''}|${RANGE_KEYS.map((k) => match[k] ?? '').join('|')}`;
  }

  intern(value: string): string {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  }

  cpe(criteria: string): Cpe | null {
    if (this.cpes.has(criteria)) return this.cpes.get(criteria) ?? null;
    const parsed = parseCpe(criteria);
    let cpe: Cpe | null = null;
    if (parsed.ok) {
      cpe = parsed.cpe;
      for (const key of Object.keys(cpe) as (keyof Cpe)[]) cpe[key] = this.intern(cpe[key]);
    }
    this.cpes.set(criteria, cpe);
    return cpe;
  }

  version(text: string): ParsedVersion | null {
    if (this.versions.has(text)) return this.versions.get(text) ?? null;
    const parsed = parseVersion(text);
    this.versions.set(text, parsed);
    return parsed;
  }
}

export function compileEntry(match: CpeMatch, cache = new CompileCache()): CompiledEntry {
  if (!match || typeof match !== 'object') return invalidEntry();
  return cache.entry(match, () => compileNewEntry(match, cache));
}

function invalidEntry(): CompiledEntry {
  return {
    criteria: '',
    vulnerable: false,
    cpe: null,
    exact: null,
    exactJoined: null,
    range: null,
    invalid: true,
  };
}

function compileNewEntry(match: CpeMatch, cache: CompileCache): CompiledEntry {
  const criteria = typeof match.criteria === 'string' ? cache.intern(match.criteria) : '';
  const cpe = criteria ? cache.cpe(criteria) : null;
  const entry: CompiledEntry = {
    criteria,
    vulnerable: match.vulnerable === true,
    cpe,
    exact: null,
    exactJoined: null,
    range: null,
    invalid: cpe === null,
  };
  if (cache.keepMatchCriteriaIds && typeof match.matchCriteriaId === 'string') {
    entry.matchCriteriaId = match.matchCriteriaId;
  }
  if (!cpe) return entry;
  if (isLiteral(cpe.version)) {
    entry.exact = cache.version(literalText(cpe.version));
    if (entry.exact && isLiteral(cpe.update)) {
      entry.exactJoined = cache.version(joinVersionUpdate(entry.exact.raw, literalText(cpe.update)));
    }
    return entry;
  }
  if (RANGE_KEYS.some((key) => match[key] !== undefined)) compileRange(match, entry, cache);
  return entry;
}

function compileRange(match: CpeMatch, entry: CompiledEntry, cache: CompileCache): void {
  const bound = (key: (typeof RANGE_KEYS)[number]): ParsedVersion | null | undefined => {
    const value: unknown = match[key];
    if (value === undefined || value === null) return undefined;
    const parsed = typeof value === 'string' ? cache.version(value) : null;
    if (!parsed) entry.invalid = true;
    return parsed;
  };
  const startIncluding = bound('versionStartIncluding');
  const startExcluding = bound('versionStartExcluding');
  const endIncluding = bound('versionEndIncluding');
  const endExcluding = bound('versionEndExcluding');
  entry.range = {
    start: startIncluding ?? startExcluding ?? null,
    startInclusive: startIncluding !== undefined,
    end: endIncluding ?? endExcluding ?? null,
    endInclusive: endIncluding !== undefined,
  };
}

function isLiteral(value: string): boolean {
  return value !== ANY && value !== NA && !hasWildcard(value);
}

export function compileConfiguration(
  configuration: Configuration,
  cache = new CompileCache(),
): CompiledConfiguration {
  const nodes = Array.isArray(configuration?.nodes) ? configuration.nodes : [];
  return {
    operator: configuration?.operator === 'AND' ? 'AND' : 'OR',
    negate: configuration?.negate === true,
    nodes: nodes.map((node) => ({
      operator: node?.operator === 'AND' ? 'AND' : 'OR',
      negate: node?.negate === true,
      entries: (Array.isArray(node?.cpeMatch) ? node.cpeMatch : []).map((m) => compileEntry(m, cache)),
    })),
  };
}

export function compileConfigurations(
  configurations: Configuration[] | undefined,
  cache = new CompileCache(),
): CompiledConfiguration[] {
  return Array.isArray(configurations) ? configurations.map((c) => compileConfiguration(c, cache)) : [];
}

/** Turns CPE strings, Cpe objects and service descriptions into a target; bad inputs become errors. */
export function prepareTarget(inputs: TargetInput | TargetInput[]): {
  target: MatchTarget;
  errors: string[];
} {
  const list = Array.isArray(inputs) ? inputs : [inputs];
  const cpes: TargetCpe[] = [];
  const errors: string[] = [];
  for (const input of list) {
    const cpe = toCpe(input);
    if (typeof cpe === 'string') errors.push(cpe);
    else cpes.push(targetCpe(cpe));
  }
  return { target: { cpes, parts: new Set(cpes.map((t) => t.cpe.part)) }, errors };
}

/** A Cpe for one input, or an error message. */
export function toCpe(input: TargetInput): Cpe | string {
  if (typeof input === 'string') {
    const parsed = parseCpe(input);
    return parsed.ok ? parsed.cpe : parsed.error;
  }
  if (!input || typeof input !== 'object') return 'input must be a CPE string or { product, version }';
  if ('swEdition' in input && 'targetSw' in input) return input as Cpe;
  const service = input as ServiceInput;
  if (typeof service.product !== 'string' || service.product.trim() === '') {
    return 'service input needs a product';
  }
  return makeCpe({
    part: service.part && ['a', 'o', 'h'].includes(service.part) ? service.part : 'a',
    vendor: toCpeValue(service.vendor),
    product: toCpeValue(service.product),
    version: toCpeValue(typeof service.version === 'string' ? service.version : undefined),
    update: toCpeValue(typeof service.update === 'string' ? service.update : undefined),
  });
}

export function targetCpe(cpe: Cpe): TargetCpe {
  const version = isLiteral(cpe.version) ? parseVersion(literalText(cpe.version)) : null;
  let joined = version;
  let split: TargetCpe['split'] = null;
  if (version && isLiteral(cpe.update)) {
    joined = parseVersion(joinVersionUpdate(version.raw, literalText(cpe.update)));
  } else if (version && cpe.update === ANY) {
    const parts = splitUpdateSuffix(version.raw);
    const base = parts ? parseVersion(parts.version) : null;
    if (parts && base) split = { version: base, update: parts.update };
  }
  return { cpe, text: formatCpe(cpe), version, joined, split };
}

/** Whether one entry accepts one known CPE. */
export function entryMatchesCpe(entry: CompiledEntry, target: TargetCpe): boolean {
  const criteria = entry.cpe;
  if (!criteria || entry.invalid) return false;
  const known = target.cpe;
  if (!attributeMatches(criteria.product, known.product)) return false;
  if (!attributeMatches(criteria.vendor, known.vendor)) return false;
  if (!attributeMatches(criteria.part, known.part)) return false;
  const versionUsesUpdate = entry.exact !== null && criteria.update !== ANY;
  if (!versionMatches(entry, criteria, target)) return false;
  if (!versionUsesUpdate && !attributeMatches(criteria.update, known.update)) return false;
  return (
    attributeMatches(criteria.edition, known.edition) &&
    attributeMatches(criteria.language, known.language) &&
    attributeMatches(criteria.swEdition, known.swEdition) &&
    attributeMatches(criteria.targetSw, known.targetSw) &&
    attributeMatches(criteria.targetHw, known.targetHw) &&
    attributeMatches(criteria.other, known.other)
  );
}

function versionMatches(entry: CompiledEntry, criteria: Cpe, target: TargetCpe): boolean {
  if (entry.range) return target.joined !== null && inRange(target.joined, entry.range);
  if (criteria.version === ANY) return true;
  if (criteria.version === NA) return target.cpe.version === NA || target.cpe.version === ANY;
  if (!entry.exact) return attributeMatches(criteria.version, target.cpe.version);
  if (!target.version || !target.joined) return false;
  return exactMatches(entry.exact, entry.exactJoined, criteria.update, target);
}

function exactMatches(
  exact: ParsedVersion,
  exactJoined: ParsedVersion | null,
  criteriaUpdate: string,
  target: TargetCpe,
): boolean {
  const version = target.version!;
  const joined = target.joined!;
  if (criteriaUpdate === ANY) {
    if (compareParsed(version, exact) === 0 || compareParsed(joined, exact) === 0) return true;
    return target.split !== null && compareParsed(target.split.version, exact) === 0;
  }
  // `9.8:-` is 9.8 with no update: 9.8p1 is another version.
  if (criteriaUpdate === NA) return compareParsed(joined, exact) === 0;
  if (!exactJoined) {
    // A wildcard update (`rc*`) is matched as an attribute.
    return compareParsed(version, exact) === 0 && attributeMatches(criteriaUpdate, target.cpe.update);
  }
  if (compareParsed(joined, exactJoined) === 0) return true;
  // A known version whose update is unknown may be any update of it.
  return target.cpe.update === ANY && target.split === null && compareParsed(version, exact) === 0;
}

export function inRange(version: ParsedVersion, range: CompiledRange): boolean {
  if (range.start) {
    const order = compareParsed(version, range.start);
    if (order < 0 || (order === 0 && !range.startInclusive)) return false;
  }
  if (range.end) {
    const order = compareParsed(version, range.end);
    if (order > 0 || (order === 0 && !range.endInclusive)) return false;
  }
  return true;
}

interface EntryOutcome {
  truth: Truth;
  by: TargetCpe | null;
}

function evaluateEntry(entry: CompiledEntry, target: MatchTarget): EntryOutcome {
  for (const known of target.cpes) {
    if (entryMatchesCpe(entry, known)) return { truth: TRUE, by: known };
  }
  if (!entry.vulnerable && entry.cpe && !platformKnown(entry.cpe, target))
    return { truth: ASSUMED, by: null };
  return { truth: FALSE, by: null };
}

/** See the platform policy at the top of this file. */
function platformKnown(criteria: Cpe, target: MatchTarget): boolean {
  if (criteria.part === 'o' || criteria.part === 'h') return target.parts.has(criteria.part);
  return target.cpes.some(
    (known) =>
      attributeMatches(criteria.part, known.cpe.part) &&
      attributeMatches(criteria.vendor, known.cpe.vendor) &&
      attributeMatches(criteria.product, known.cpe.product),
  );
}

interface NodeOutcome {
  truth: Truth;
  evidence: EntryMatch[];
  vulnerableEvidence: boolean;
}

function evaluateNode(node: CompiledNode, target: MatchTarget): NodeOutcome {
  const outcomes = node.entries.map((entry) => ({ entry, ...evaluateEntry(entry, target) }));
  let truth = combine(
    node.operator,
    outcomes.map((o) => o.truth),
  );
  if (node.negate) truth = negate(truth);
  if (truth === FALSE || node.negate) return { truth, evidence: [], vulnerableEvidence: false };
  const evidence = outcomes.filter((o) => o.truth === TRUE).map((o) => evidenceOf(o.entry, o.by!));
  return { truth, evidence, vulnerableEvidence: evidence.some((e) => e.vulnerable) };
}

function combine(operator: 'AND' | 'OR', truths: Truth[]): Truth {
  if (truths.length === 0) return FALSE;
  if (operator === 'AND') {
    if (truths.includes(FALSE)) return FALSE;
    return truths.includes(ASSUMED) ? ASSUMED : TRUE;
  }
  if (truths.includes(TRUE)) return TRUE;
  return truths.includes(ASSUMED) ? ASSUMED : FALSE;
}

function negate(truth: Truth): Truth {
  if (truth === ASSUMED) return ASSUMED;
  return truth === TRUE ? FALSE : TRUE;
}

function evidenceOf(entry: CompiledEntry, by: TargetCpe): EntryMatch {
  const match: EntryMatch = { criteria: entry.criteria, vulnerable: entry.vulnerable, cpe: by.text };
  if (entry.matchCriteriaId) match.matchCriteriaId = entry.matchCriteriaId;
  const range = entry.range;
  if (range?.start) {
    if (range.startInclusive) match.versionStartIncluding = range.start.raw;
    else match.versionStartExcluding = range.start.raw;
  }
  if (range?.end) {
    if (range.endInclusive) match.versionEndIncluding = range.end.raw;
    else match.versionEndExcluding = range.end.raw;
  }
  return match;
}

const NOT_VULNERABLE: ConfigurationResult = Object.freeze({
  vulnerable: false,
  platformAssumed: false,
  matches: [],
}) as ConfigurationResult;

export function evaluateConfiguration(
  configuration: CompiledConfiguration,
  target: MatchTarget,
): ConfigurationResult {
  const nodes = configuration.nodes.map((node) => evaluateNode(node, target));
  let truth = combine(
    configuration.operator,
    nodes.map((n) => n.truth),
  );
  if (configuration.negate) truth = negate(truth);
  if (truth === FALSE) return NOT_VULNERABLE;
  const contributing = nodes.filter((n) => n.truth !== FALSE);
  if (!contributing.some((n) => n.vulnerableEvidence)) return NOT_VULNERABLE;
  const platformAssumed =
    configuration.operator === 'AND'
      ? truth === ASSUMED
      : !contributing.some((n) => n.truth === TRUE && n.vulnerableEvidence);
  const sources =
    configuration.operator === 'AND' ? contributing : contributing.filter((n) => n.vulnerableEvidence);
  return { vulnerable: true, platformAssumed, matches: sources.flatMap((n) => n.evidence) };
}

export interface ConfigurationsResult extends ConfigurationResult {
  /** Indexes of the configurations that made the record vulnerable. */
  configurations: number[];
}

/**
 * Evaluates all configurations of one record: vulnerable when any is; platformAssumed only when
 * every vulnerable configuration needed an assumption.
 */
export function evaluateConfigurations(
  configurations: CompiledConfiguration[],
  target: MatchTarget,
): ConfigurationsResult {
  const result: ConfigurationsResult = {
    vulnerable: false,
    platformAssumed: false,
    matches: [],
    configurations: [],
  };
  configurations.forEach((configuration, index) => {
    const outcome = evaluateConfiguration(configuration, target);
    if (!outcome.vulnerable) return;
    result.platformAssumed = result.vulnerable
      ? result.platformAssumed && outcome.platformAssumed
      : outcome.platformAssumed;
    result.vulnerable = true;
    result.matches.push(...outcome.matches);
    result.configurations.push(index);
  });
  return result;
}

/** One-shot convenience: raw NVD configurations against CPE strings or service descriptions. */
export function matchConfigurations(
  configurations: Configuration[] | undefined,
  inputs: TargetInput | TargetInput[],
): ConfigurationsResult & { errors: string[] } {
  const { target, errors } = prepareTarget(inputs);
  return { ...evaluateConfigurations(compileConfigurations(configurations), target), errors };
}
