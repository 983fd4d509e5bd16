/**
 * CpeMatcher: many CVEs' NVD configurations, indexed so that matching one service touches only
 * the configurations that name its vendor:product.
 *
 * Build: every configuration is compiled once (criteria parsed, range bounds parsed, strings
 * interned). Each `vulnerable: true` entry is filed under its vendor:product (lowercase). Within
 * one vendor:product, the distinct version bounds (range ends and exact versions) are sorted once;
 * an entry then becomes an interval of ranks, kept in typed arrays shared by all vendor:products.
 * Matching ranks the service's
 * versions with a binary search, keeps the entries whose interval holds a rank (integer
 * comparisons), and evaluates only those entries' configurations in full (configuration.ts). The
 * rank filter is deliberately wider than the full evaluation, never narrower.
 */

import type { Configuration } from '../types.js';
import {
  CompileCache,
  type CompiledConfiguration,
  type CompiledEntry,
  type CompileOptions,
  compileConfiguration,
  type EntryMatch,
  evaluateConfiguration,
  type MatchTarget,
  prepareTarget,
  type TargetCpe,
  type TargetInput,
} from './configuration.js';
import { ANY, hasWildcard, NA } from './cpe.js';
import { compareParsed, numericPrefix, type ParsedVersion, parseVersion } from './version.js';

export type {
  CompileOptions,
  ConfigurationsResult,
  EntryMatch,
  ServiceInput,
  TargetInput,
} from './configuration.js';
export { matchConfigurations } from './configuration.js';
export { ANY, type Cpe, formatCpe, NA, parseCpe } from './cpe.js';
export { compareVersions } from './version.js';

/** A CVE's configurations: `{ cveId, configurations }`, or a CveRecord (`id`, `rejected`). */
export interface CveConfigurations {
  cveId?: string;
  id?: string;
  rejected?: boolean;
  configurations: Configuration[] | undefined;
}

export interface CveMatch {
  cveId: string;
  /** True when every configuration that matched needed an unknown platform to be assumed. */
  platformAssumed: boolean;
  /** The criteria that matched, and the supplied CPE each matched. */
  matches: EntryMatch[];
}

export interface MatchResult {
  cves: CveMatch[];
  /** Inputs that could not be read (malformed CPE names, a service without a product). */
  errors: string[];
}

export interface MatcherStats {
  cves: number;
  configurations: number;
  entries: number;
  products: number;
}

const NO_END = 0x7fffffff;

/**
 * Entries of one vendor:product, as rank intervals over its sorted version bounds. The intervals
 * live in the matcher's shared arrays at [start, end): thousands of tiny typed arrays would cost
 * more in headers than in data.
 */
interface Bucket {
  bounds: ParsedVersion[];
  start: number;
  end: number;
  /** Configurations whose entry accepts any version (criteria `*` without range, or a wildcard). */
  anyVersion: readonly number[];
  /** Configurations whose entry wants version NA: they match only an unknown or NA version. */
  noVersion: readonly number[];
}

/** The matcher's intervals, all buckets end to end. */
interface Intervals {
  lo: Int32Array;
  hi: Int32Array;
  config: Uint32Array;
}

interface Interval {
  lo: ParsedVersion | null;
  loInclusive: boolean;
  hi: ParsedVersion | null;
  hiInclusive: boolean;
  config: number;
}

const NONE: readonly number[] = Object.freeze([]);

/** Collects one bucket's entries during the build. */
class BucketBuilder {
  readonly intervals: Interval[] = [];
  readonly anyVersion: number[] = [];
  readonly noVersion: number[] = [];

  add(entry: CompiledEntry, config: number): void {
    const cpe = entry.cpe!;
    if (entry.range) {
      const { start, startInclusive, end, endInclusive } = entry.range;
      if (isLexical(start) || isLexical(end)) this.anyVersion.push(config);
      else
        this.intervals.push({
          lo: start,
          loInclusive: startInclusive,
          hi: end,
          hiInclusive: endInclusive,
          config,
        });
      return;
    }
    if (cpe.version === NA) {
      this.noVersion.push(config);
      return;
    }
    if (!entry.exact || entry.exact.lexical || (entry.exactJoined?.lexical ?? false)) {
      this.anyVersion.push(config);
      return;
    }
    this.addPoint(entry.exact, config);
    if (entry.exactJoined) this.addPoint(entry.exactJoined, config);
  }

  private addPoint(version: ParsedVersion, config: number): void {
    this.intervals.push({ lo: version, loInclusive: true, hi: version, hiInclusive: true, config });
  }

  /** Appends this bucket's intervals to the shared lists and returns the bucket. */
  build(lo: number[], hi: number[], configs: number[]): Bucket {
    const bounds = sortedBounds(this.intervals);
    const start = lo.length;
    for (const interval of this.intervals) {
      lo.push(interval.lo ? rankOf(bounds, interval.lo) + (interval.loInclusive ? 0 : 1) : 0);
      hi.push(interval.hi ? rankOf(bounds, interval.hi) - (interval.hiInclusive ? 0 : 1) : NO_END);
      configs.push(interval.config);
    }
    return {
      bounds,
      start,
      end: lo.length,
      anyVersion: unique(this.anyVersion),
      noVersion: unique(this.noVersion),
    };
  }
}

function unique(configs: number[]): readonly number[] {
  return configs.length === 0 ? NONE : [...new Set(configs)];
}

function isLexical(version: ParsedVersion | null): boolean {
  return version?.lexical ?? false;
}

function sortedBounds(intervals: Interval[]): ParsedVersion[] {
  const all: ParsedVersion[] = [];
  for (const interval of intervals) {
    if (interval.lo) all.push(interval.lo);
    if (interval.hi && interval.hi !== interval.lo) all.push(interval.hi);
  }
  all.sort(compareParsed);
  const unique: ParsedVersion[] = [];
  for (const version of all) {
    const last = unique[unique.length - 1];
    if (!last || compareParsed(last, version) !== 0) unique.push(version);
  }
  return unique;
}

/**
 * Rank of a version among sorted bounds: 2i+1 when it equals bounds[i], 2i when it lies just below
 * bounds[i] (2n above them all). A bound's own rank is therefore odd.
 */
function rankOf(bounds: ParsedVersion[], version: ParsedVersion): number {
  let low = 0;
  let high = bounds.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareParsed(bounds[mid]!, version) < 0) low = mid + 1;
    else high = mid;
  }
  const found = bounds[low];
  return found && compareParsed(found, version) === 0 ? 2 * low + 1 : 2 * low;
}

export class CpeMatcher {
  private readonly cveIds: string[] = [];
  private readonly configurations: CompiledConfiguration[] = [];
  private configCve: Uint32Array = new Uint32Array(0);
  private readonly buckets = new Map<string, Bucket>();
  /** product → the vendor:product keys filed under it, for services that name no vendor. */
  private readonly vendorsOfProduct = new Map<string, string[]>();
  /** Configurations whose vulnerable entries have a wildcard vendor or product: always evaluated. */
  private wildcardConfigs: Uint32Array = new Uint32Array(0);
  private intervals: Intervals = { lo: new Int32Array(0), hi: new Int32Array(0), config: new Uint32Array(0) };
  private seen: Uint32Array = new Uint32Array(0);
  private stamp = 0;
  private entryCount = 0;

  /**
   * Builds the index; rejected records and records without configurations (awaiting analysis)
   * are skipped.
   * matchCriteriaIds are dropped unless `keepMatchCriteriaIds: true` (memory).
   */
  static build(records: Iterable<CveConfigurations>, options: CompileOptions = {}): CpeMatcher {
    const matcher = new CpeMatcher();
    matcher.load(records, new CompileCache({ keepMatchCriteriaIds: false, ...options }));
    return matcher;
  }

  private load(records: Iterable<CveConfigurations>, cache: CompileCache): void {
    const builders = new Map<string, BucketBuilder>();
    const wildcard: number[] = [];
    const configCve: number[] = [];
    for (const record of records) {
      const cveId = record?.cveId ?? record?.id;
      if (typeof cveId !== 'string' || record.rejected === true || !Array.isArray(record.configurations))
        continue;
      if (record.configurations.length === 0) continue;
      const cveIndex = this.cveIds.push(cache.intern(cveId)) - 1;
      for (const raw of record.configurations) {
        const config = this.configurations.push(compileConfiguration(raw, cache)) - 1;
        configCve.push(cveIndex);
        this.fileEntries(config, builders, wildcard);
      }
    }
    const lo: number[] = [];
    const hi: number[] = [];
    const configs: number[] = [];
    for (const [key, builder] of builders) this.buckets.set(key, builder.build(lo, hi, configs));
    this.intervals = { lo: Int32Array.from(lo), hi: Int32Array.from(hi), config: Uint32Array.from(configs) };
    this.configCve = Uint32Array.from(configCve);
    this.wildcardConfigs = Uint32Array.from(new Set(wildcard));
    this.seen = new Uint32Array(this.configurations.length);
  }

  private fileEntries(config: number, builders: Map<string, BucketBuilder>, wildcard: number[]): void {
    for (const node of this.configurations[config]!.nodes) {
      for (const entry of node.entries) {
        this.entryCount++;
        if (!entry.vulnerable || !entry.cpe || entry.invalid) continue;
        const { vendor, product } = entry.cpe;
        if (vendor === ANY || product === ANY || hasWildcard(vendor) || hasWildcard(product)) {
          wildcard.push(config);
          continue;
        }
        this.builderFor(`${vendor}:${product}`, product, builders).add(entry, config);
      }
    }
  }

  private builderFor(key: string, product: string, builders: Map<string, BucketBuilder>): BucketBuilder {
    let builder = builders.get(key);
    if (!builder) {
      builder = new BucketBuilder();
      builders.set(key, builder);
      const keys = this.vendorsOfProduct.get(product);
      if (keys) keys.push(key);
      else this.vendorsOfProduct.set(product, [key]);
    }
    return builder;
  }

  get stats(): MatcherStats {
    return {
      cves: this.cveIds.length,
      configurations: this.configurations.length,
      entries: this.entryCount,
      products: this.buckets.size,
    };
  }

  /**
   * The CVEs whose configurations apply to one asset or service, described by CPE names (2.3 or
   * URI binding) and/or `{ vendor?, product, version }`. All inputs describe the same thing (for
   * instance a service and its host's OS), so "running on" platforms are checked against them.
   * Results are in build order.
   */
  match(inputs: TargetInput | TargetInput[]): MatchResult {
    const { target, errors } = prepareTarget(inputs);
    const candidates = this.candidates(target);
    const byCve = new Map<number, CveMatch>();
    for (const config of candidates) {
      const outcome = evaluateConfiguration(this.configurations[config]!, target);
      if (!outcome.vulnerable) continue;
      const cveIndex = this.configCve[config]!;
      const known = byCve.get(cveIndex);
      if (known) {
        known.platformAssumed &&= outcome.platformAssumed;
        known.matches.push(...outcome.matches);
      } else {
        byCve.set(cveIndex, {
          cveId: this.cveIds[cveIndex]!,
          platformAssumed: outcome.platformAssumed,
          matches: [...outcome.matches],
        });
      }
    }
    return { cves: [...byCve.values()], errors };
  }

  /** Configuration indexes worth evaluating, in ascending order, each once. */
  private candidates(target: MatchTarget): number[] {
    this.stamp = this.stamp === 0xffffffff ? 1 : this.stamp + 1;
    if (this.stamp === 1) this.seen.fill(0);
    const found: number[] = [];
    const add = (config: number) => {
      if (this.seen[config] === this.stamp) return;
      this.seen[config] = this.stamp;
      found.push(config);
    };
    for (const known of target.cpes) {
      for (const bucket of this.bucketsFor(known)) collect(bucket, this.intervals, known, add);
    }
    if (target.cpes.length > 0) for (const config of this.wildcardConfigs) add(config);
    return found.sort((a, b) => a - b);
  }

  private bucketsFor(known: TargetCpe): Bucket[] {
    const { vendor, product } = known.cpe;
    if (product === ANY || product === NA || hasWildcard(product)) return [];
    const keys = vendor === ANY ? (this.vendorsOfProduct.get(product) ?? []) : [`${vendor}:${product}`];
    const found: Bucket[] = [];
    for (const key of keys) {
      const bucket = this.buckets.get(key);
      if (bucket) found.push(bucket);
    }
    return found;
  }
}

function collect(
  bucket: Bucket,
  intervals: Intervals,
  known: TargetCpe,
  add: (config: number) => void,
): void {
  for (const config of bucket.anyVersion) add(config);
  const versions = versionsToRank(known);
  if (versions.length === 0) {
    for (const config of bucket.noVersion) add(config);
    return;
  }
  const { lo, hi, config } = intervals;
  if (versions.some((v) => v.lexical)) {
    // Text versions do not sort with the bounds: let the full evaluation decide for every entry.
    for (let i = bucket.start; i < bucket.end; i++) add(config[i]!);
    return;
  }
  const ranks = versions.map((v) => rankOf(bucket.bounds, v));
  for (let i = bucket.start; i < bucket.end; i++) {
    for (const rank of ranks) {
      if (rank >= lo[i]! && rank <= hi[i]!) {
        add(config[i]!);
        break;
      }
    }
  }
}

/** Every reading of the known version an entry could compare equal or in range with. */
function versionsToRank(known: TargetCpe): ParsedVersion[] {
  if (!known.version) return [];
  const versions = [known.version];
  if (known.joined && known.joined !== known.version) versions.push(known.joined);
  if (known.split) versions.push(known.split.version);
  const prefix = numericPrefix(known.version.raw);
  const parsedPrefix = prefix ? parseVersion(prefix) : null;
  if (parsedPrefix) versions.push(parsedPrefix);
  return versions;
}
