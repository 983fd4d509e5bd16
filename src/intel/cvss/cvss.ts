/**
 * CVSS v2.0, v3.0, v3.1 and v4.0 vectors: strict parsing and base scores. The scores, and the
 * metrics and values each version knows, come from ae-cvss-calculator (FIRST's formulas as a
 * maintained library implements them); this module only checks that a vector is well formed
 * before handing it over, because the library is lenient (a repeated metric silently wins, a
 * missing one scores as undefined, a v3.0 vector given to the v3.1 class is rescored as v3.1).
 *
 * Accepted forms:
 * - "CVSS:4.0/…", "CVSS:3.1/…", "CVSS:3.0/…": the version from the prefix;
 * - bare v2 ("AV:N/AC:L/Au:N/C:P/I:P/A:P"), optionally in parentheses as NVD's older feeds wrote
 *   it, or with a "CVSS:2.0/" prefix some tools add (v2 itself has no prefix);
 * - a v3 or v4 vector without its prefix only when the caller names the version to assume (a
 *   tool that writes "AV:N/AC:L/…" and says elsewhere which version it rated with).
 * Metrics may come in any order; the normalised vector lists them in the specification's order
 * and leaves out those set to "Not Defined" (X, or ND in v2), which change nothing.
 *
 * Severity bands: v3.x and v4.0 use FIRST's qualitative scale (None 0.0, Low 0.1–3.9, Medium
 * 4.0–6.9, High 7.0–8.9, Critical 9.0–10.0). v2 has no official scale; NVD's (Low 0.0–3.9,
 * Medium 4.0–6.9, High 7.0–10.0) is used, so a v2 score is never Critical nor None.
 */
import { createRequire } from 'node:module';
import type { CvssVersion } from '../types.js';

// The library ships one CommonJS bundle whose exports Node cannot see from ESM by name.
const library = createRequire(import.meta.url)('ae-cvss-calculator') as typeof import('ae-cvss-calculator');

/** What this module uses of the library's vector classes. */
interface LibraryVector {
  calculateScores(): unknown;
  getRegisteredComponents(): Map<{ name: string }, unknown[]>;
  /** v4.0 only: its metric groups in vector string order (the registry has another order). */
  getVectorStringOrderProperties?(): Map<{ name: string }, unknown[]>;
}

export type CvssSeverity = 'Critical' | 'High' | 'Medium' | 'Low' | 'None';

/** One metric of a vector: AV:N is { key: 'AV', name: 'Attack Vector', value: 'N', label: 'Network' }. */
export interface CvssMetricValue {
  key: string;
  name: string;
  value: string;
  label: string;
}

export interface CvssScore {
  ok: true;
  version: CvssVersion;
  /** The vector with its prefix, metrics in the specification's order, "Not Defined" ones left out. */
  vector: string;
  /** The base score: v4.0's CVSS-B, i.e. without threat or environmental metrics. */
  baseScore: number;
  severity: CvssSeverity;
  /**
   * The score with the vector's temporal / threat / environmental metrics applied (v2 and v3:
   * the environmental, else the temporal score; v4.0: CVSS-BT/BE/BTE). Only when the vector has
   * any such metric.
   */
  overallScore?: number;
  /** The base metrics, in the specification's order. */
  metrics: CvssMetricValue[];
}

export interface CvssInvalid {
  ok: false;
  error: string;
}

export interface ScoreCvssOptions {
  /** The version of a v3 or v4 vector written without its "CVSS:x.y/" prefix. */
  assumeVersion?: '3.0' | '3.1' | '4.0';
}

interface ComponentValue {
  shortName: string;
  name: string;
}

interface Component {
  shortName: string;
  name: string;
  subCategory?: string;
  values: ComponentValue[];
}

interface VersionSpec {
  version: CvssVersion;
  prefix: string;
  create: (vector: string) => LibraryVector;
  /** Every metric the version knows, in the order a vector string lists them. */
  order: Component[];
  base: Set<string>;
  notDefined: string;
  /** Values the library accepts that the specification does not allow in the base group. */
  notInBase: Record<string, string[]>;
}

function specOf(
  version: CvssVersion,
  create: (vector?: string) => LibraryVector,
  notDefined: string,
  notInBase: Record<string, string[]> = {},
): VersionSpec {
  const sample = create();
  const groups = sample.getVectorStringOrderProperties?.() ?? sample.getRegisteredComponents();
  const order: Component[] = [];
  const base = new Set<string>();
  for (const [category, components] of groups) {
    for (const component of components as Component[]) {
      order.push(component);
      if (category.name === 'base') base.add(component.shortName);
    }
  }
  const prefix = version === '2.0' ? '' : `CVSS:${version}/`;
  return { version, prefix, create: (vector) => create(vector), order, base, notDefined, notInBase };
}

let specs: Map<CvssVersion, VersionSpec> | undefined;

function specFor(version: CvssVersion): VersionSpec {
  specs ??= new Map([
    ['2.0', specOf('2.0', (v) => new library.Cvss2(v), 'ND')],
    ['3.0', specOf('3.0', (v) => new library.Cvss3P0(v), 'X')],
    ['3.1', specOf('3.1', (v) => new library.Cvss3P1(v), 'X')],
    // The library also lets the base SC/SI/SA be Safety, which v4.0 allows only in MSI/MSA.
    ['4.0', specOf('4.0', (v) => new library.Cvss4P0(v), 'X', { SC: ['S'], SI: ['S'], SA: ['S'] })],
  ]);
  return specs.get(version)!;
}

const PREFIX = /^CVSS:(\d+\.\d+)\//;
const KNOWN_VERSIONS = new Set<string>(['2.0', '3.0', '3.1', '4.0']);

/**
 * Parses and scores a CVSS vector; `{ ok: false, error }` says what is wrong with one that is
 * not valid (nothing is guessed: a vector with a wrong, missing or repeated metric is refused).
 */
export function scoreCvss(raw: string, options: ScoreCvssOptions = {}): CvssScore | CvssInvalid {
  const split = splitVersion(typeof raw === 'string' ? raw.trim() : '', options);
  if ('error' in split) return invalid(split.error);
  const spec = specFor(split.version);
  const parsed = parseMetrics(split.body, spec);
  if ('error' in parsed) return invalid(parsed.error);
  return score(spec, parsed.metrics);
}

function invalid(error: string): CvssInvalid {
  return { ok: false, error };
}

/** The qualitative rating of a score in a version's bands (see the module comment for v2). */
export function cvssSeverity(score: number, version: CvssVersion): CvssSeverity {
  if (version === '2.0') {
    if (score >= 7) return 'High';
    return score >= 4 ? 'Medium' : 'Low';
  }
  if (score >= 9) return 'Critical';
  if (score >= 7) return 'High';
  if (score >= 4) return 'Medium';
  return score > 0 ? 'Low' : 'None';
}

type Split = { version: CvssVersion; body: string } | { error: string };

function splitVersion(text: string, options: ScoreCvssOptions): Split {
  if (text === '') return { error: 'The vector is empty.' };
  const prefix = PREFIX.exec(text);
  if (prefix) {
    const version = prefix[1]!;
    if (!KNOWN_VERSIONS.has(version))
      return { error: `Unknown CVSS version "${version}": expected 2.0, 3.0, 3.1 or 4.0.` };
    return { version: version as CvssVersion, body: text.slice(prefix[0].length) };
  }
  if (/^cvss/i.test(text)) {
    const given = text.split('/')[0];
    return { error: `The prefix "${given}" is not of the form "CVSS:<version>/" (e.g. "CVSS:3.1/").` };
  }
  const body = /^\((.*)\)$/.exec(text)?.[1] ?? text;
  if (/(^|\/)Au:/.test(body)) return { version: '2.0', body };
  if (options.assumeVersion) return { version: options.assumeVersion, body };
  return {
    error:
      'The vector has no "CVSS:<version>/" prefix and is not CVSS v2 (it has no Au metric); ' +
      'a v3 or v4 vector needs its prefix or a version to assume.',
  };
}

type Parsed = { metrics: Map<string, string> } | { error: string };

function parseMetrics(body: string, spec: VersionSpec): Parsed {
  const metrics = new Map<string, string>();
  for (const part of body.split('/')) {
    const error = addMetric(metrics, part, spec);
    if (error) return { error };
  }
  const missing = [...spec.base].filter((key) => !metrics.has(key));
  if (missing.length > 0) {
    const named = missing.map((key) => `${key} (${componentOf(spec, key)!.name})`).join(', ');
    return { error: `CVSS v${spec.version} vector misses the mandatory metric${plural(missing)} ${named}.` };
  }
  return { metrics };
}

function addMetric(metrics: Map<string, string>, part: string, spec: VersionSpec): string | undefined {
  if (part === '') return 'The vector has an empty part (a doubled or trailing "/").';
  const pair = /^([A-Za-z]+):([A-Za-z0-9]+)$/.exec(part);
  if (!pair) return `"${part}" is not a metric:value pair.`;
  const [, key, value] = pair as unknown as [string, string, string];
  const component = componentOf(spec, key);
  if (!component) return `Unknown metric "${key}" in a CVSS v${spec.version} vector.`;
  if (metrics.has(key)) return `The metric ${key} (${nameOf(component)}) is given twice.`;
  const allowed = allowedValues(spec, component);
  if (!allowed.includes(value))
    return (
      `"${value}" is not a value of ${key} (${nameOf(component)}) in CVSS v${spec.version}; ` +
      `expected one of ${allowed.join(', ')}.`
    );
  metrics.set(key, value);
  return undefined;
}

function componentOf(spec: VersionSpec, key: string): Component | undefined {
  return spec.order.find((c) => c.shortName === key);
}

function allowedValues(spec: VersionSpec, component: Component): string[] {
  const values = component.values.map((v) => v.shortName);
  if (!spec.base.has(component.shortName)) return values;
  const refused = spec.notInBase[component.shortName] ?? [];
  return values.filter((v) => v !== spec.notDefined && !refused.includes(v));
}

/** v4.0 names VC and SC both "Confidentiality": the subcategory tells them apart. */
function nameOf(component: Component): string {
  const group = component.subCategory;
  if (group?.endsWith(' System Impact'))
    return `${group.slice(0, -' Impact'.length)} ${component.name} Impact`;
  return component.name;
}

function plural(list: unknown[]): string {
  return list.length === 1 ? '' : 's';
}

function score(spec: VersionSpec, metrics: Map<string, string>): CvssScore | CvssInvalid {
  const ordered = spec.order.filter((c) => {
    const value = metrics.get(c.shortName);
    return value !== undefined && value !== spec.notDefined;
  });
  const vector = spec.prefix + ordered.map((c) => `${c.shortName}:${metrics.get(c.shortName)}`).join('/');
  const scores = scoresOf(spec, vector);
  if (scores === undefined) return invalid(`The library could not score the CVSS v${spec.version} vector.`);
  const result: CvssScore = {
    ok: true,
    version: spec.version,
    vector,
    baseScore: scores.base,
    severity: cvssSeverity(scores.base, spec.version),
    metrics: ordered.filter((c) => spec.base.has(c.shortName)).map((c) => metricValue(c, metrics)),
  };
  if (ordered.some((c) => !spec.base.has(c.shortName))) result.overallScore = scores.overall;
  return result;
}

function scoresOf(spec: VersionSpec, vector: string): { base: number; overall: number } | undefined {
  try {
    const scores = spec.create(vector).calculateScores() as {
      base?: number;
      baseMetricsOnly?: number;
      overall: number;
    };
    // v4.0's `base` already includes threat and environmental metrics; CVSS-B is baseMetricsOnly.
    const base = spec.version === '4.0' ? scores.baseMetricsOnly : scores.base;
    return isScore(base) && isScore(scores.overall) ? { base, overall: scores.overall } : undefined;
  } catch {
    return undefined;
  }
}

function isScore(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 10;
}

function metricValue(component: Component, metrics: Map<string, string>): CvssMetricValue {
  const value = metrics.get(component.shortName)!;
  const label = component.values.find((v) => v.shortName === value)?.name ?? value;
  return { key: component.shortName, name: nameOf(component), value, label };
}

/** A vulnerability's CVSS, one assessment per version, as stored (numerics may come as text). */
export interface CvssByVersion {
  cvss2Score: number | string | null;
  cvss2Vector?: string | null;
  cvss3Score: number | string | null;
  cvss3Vector: string | null;
  cvss4Score: number | string | null;
  cvss4Vector?: string | null;
}

/** A CVSS version, or "3" for a v3 score given without the vector that tells 3.0 from 3.1. */
export type RankingCvssVersion = CvssVersion | '3';

export interface RankingCvss {
  score: number;
  version: RankingCvssVersion;
  vector: string | null;
}

/**
 * The assessment a vulnerability is ranked by: the highest CVSS version that scored it (v4.0,
 * else v3.x, else v2.0), since a later version is the better-informed rating. Every version
 * stays stored and shown; this one feeds the risk score and CVSSBaseScore. The database applies
 * the same order (rankingCvssScore in src/modules/vulnerabilities/queries.ts).
 */
export function rankingCvss(v: CvssByVersion): RankingCvss | null {
  if (v.cvss4Score !== null)
    return { score: Number(v.cvss4Score), version: '4.0', vector: v.cvss4Vector ?? null };
  if (v.cvss3Score !== null) {
    const version = /^CVSS:(3\.[01])\//.exec(v.cvss3Vector ?? '')?.[1] as '3.0' | '3.1' | undefined;
    return { score: Number(v.cvss3Score), version: version ?? '3', vector: v.cvss3Vector };
  }
  if (v.cvss2Score !== null)
    return { score: Number(v.cvss2Score), version: '2.0', vector: v.cvss2Vector ?? null };
  return null;
}
