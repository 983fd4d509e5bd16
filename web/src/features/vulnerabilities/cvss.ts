import type { CvssAssessment, CvssMetric } from '../../api/intel';
import type { Vulnerability } from '../../api/types';

// The base metrics of each CVSS version, named as the server's library (ae-cvss-calculator) names
// them, so that a vector read here reads like one the server spelled out from a feed. Only used
// when no feed knows the vulnerability: its own vectors (from the scanner) are then all there is.

type Metric = [key: string, name: string, values: Record<string, string>];

const NLH = { N: 'None', L: 'Low', H: 'High' };
const V2_IMPACT = { N: 'None', P: 'Partial', C: 'Complete' };
const V3: Metric[] = [
  ['AV', 'Attack Vector', { N: 'Network', A: 'Adjacent Network', L: 'Local', P: 'Physical' }],
  ['AC', 'Attack Complexity', { L: 'Low', H: 'High' }],
  ['PR', 'Privileges Required', NLH],
  ['UI', 'User Interaction', { N: 'None', R: 'Required' }],
  ['S', 'Scope', { U: 'Unchanged', C: 'Changed' }],
  ['C', 'Confidentiality Impact', NLH],
  ['I', 'Integrity Impact', NLH],
  ['A', 'Availability Impact', NLH],
];
const BASE: Record<'2.0' | '3.x' | '4.0', Metric[]> = {
  '2.0': [
    ['AV', 'Access Vector', { L: 'Local', A: 'Adjacent Network', N: 'Network' }],
    ['AC', 'Access Complexity', { H: 'High', M: 'Medium', L: 'Low' }],
    ['Au', 'Authentication', { M: 'Multiple', S: 'Single', N: 'None' }],
    ['C', 'Confidentiality Impact', V2_IMPACT],
    ['I', 'Integrity Impact', V2_IMPACT],
    ['A', 'Availability Impact', V2_IMPACT],
  ],
  '3.x': V3,
  '4.0': [
    ['AV', 'Attack Vector', { N: 'Network', A: 'Adjacent Network', L: 'Local', P: 'Physical' }],
    ['AC', 'Attack Complexity', { L: 'Low', H: 'High' }],
    ['AT', 'Attack Requirements', { N: 'None', P: 'Present' }],
    ['PR', 'Privileges Required', NLH],
    ['UI', 'User Interaction', { N: 'None', P: 'Passive', A: 'Active' }],
    ['VC', 'Confidentiality', { H: 'High', L: 'Low', N: 'None' }],
    ['VI', 'Integrity', { H: 'High', L: 'Low', N: 'None' }],
    ['VA', 'Availability', { H: 'High', L: 'Low', N: 'None' }],
    ['SC', 'Confidentiality', { H: 'High', L: 'Low', N: 'None' }],
    ['SI', 'Integrity', { H: 'High', L: 'Low', N: 'None' }],
    ['SA', 'Availability', { H: 'High', L: 'Low', N: 'None' }],
  ],
};

/** v3/v4 bands; v2 has no official scale, NVD's (never Critical) as the server uses. */
export function cvssSeverity(score: number, version: string): string {
  if (version === '2.0') return score >= 7 ? 'High' : score >= 4 ? 'Medium' : 'Low';
  if (score >= 9) return 'Critical';
  if (score >= 7) return 'High';
  if (score >= 4) return 'Medium';
  return score > 0 ? 'Low' : 'None';
}

/** A vector's version: its "CVSS:x.y/" prefix, else v2 when it has Au, else the one assumed. */
function versionOf(vector: string, assumed: string): { version: string; body: string } {
  const prefix = /^CVSS:(\d\.\d)\//.exec(vector);
  if (prefix?.[1]) return { version: prefix[1], body: vector.slice(prefix[0].length) };
  const body = /^\((.*)\)$/.exec(vector)?.[1] ?? vector;
  return { version: /(^|\/)Au:/.test(body) ? '2.0' : assumed, body };
}

/**
 * Reads a vector into an assessment like the server's: the base metrics in the specification's
 * order, or an error (nothing guessed) when a base metric is missing or unknown.
 */
export function readVector(raw: string, score: number | null, assumed: string): CvssAssessment {
  const { version, body } = versionOf(raw.trim(), assumed);
  const spec = version === '2.0' ? BASE['2.0'] : version.startsWith('3.') ? BASE['3.x'] : BASE['4.0'];
  const given = new Map(
    body.split('/').map((part) => {
      const [key = '', value = ''] = part.split(':');
      return [key, value] as const;
    }),
  );
  const metrics: CvssMetric[] = [];
  let error: string | null = null;
  for (const [key, name, values] of spec) {
    const value = given.get(key);
    const label = value === undefined ? undefined : values[value];
    if (label === undefined) {
      error =
        value === undefined
          ? `The vector misses the base metric ${key} (${name}).`
          : `The vector's ${key} (${name}) value "${value}" is not one CVSS v${version} knows.`;
      break;
    }
    metrics.push({ Key: key, Name: name, Value: value ?? '', Label: label });
  }
  return {
    Version: version,
    Vector: raw,
    BaseScore: score,
    Severity: score === null ? null : cvssSeverity(score, version),
    Source: null,
    Type: null,
    Metrics: error ? [] : metrics,
    Error: error,
  };
}

/**
 * The assessments a vulnerability carries itself (the report's, or copied from feeds before),
 * highest version first as they rank: v4, v3, v2; a score without a vector is an assessment
 * without a breakdown.
 */
export function ownAssessments(v: Vulnerability): CvssAssessment[] {
  const pairs: [vector: string | null, score: number | null, assumed: string][] = [
    [v.Cvss4Vector, v.Cvss4BaseScore, '4.0'],
    [v.Cvss3Vector, v.Cvss3BaseScore, '3.1'],
    [v.Cvss2Vector, v.Cvss2BaseScore, '2.0'],
  ];
  const found: CvssAssessment[] = [];
  for (const [vector, score, assumed] of pairs) {
    if (vector) found.push(readVector(vector, score, assumed));
    else if (score !== null) {
      found.push({
        Version: assumed === '3.1' ? '3.x' : assumed,
        Vector: '',
        BaseScore: score,
        Severity: cvssSeverity(score, assumed),
        Source: null,
        Type: null,
        Metrics: [],
        Error: null,
      });
    }
  }
  return found;
}

/** v4.0 names VC and SC alike ("Confidentiality"): say which system each is about. */
export function metricName(version: string, metric: CvssMetric): string {
  if (version !== '4.0') return metric.Name;
  if (/^V[CIA]$/.test(metric.Key)) return `${metric.Name} (vulnerable system)`;
  if (/^S[CIA]$/.test(metric.Key)) return `${metric.Name} (subsequent systems)`;
  return metric.Name;
}

/** "3.1" and "3.x" are both v3: a feed's v3 assessment stands for the report's. */
const major = (version: string) => version.split('.')[0];

/**
 * The feeds' assessments of the CVE, and the vulnerability's own of every version the feeds do
 * not rate (a scanner's CVSS v2 for a CVE NVD rates only with v3), so that no version is hidden.
 */
export function allAssessments(feeds: CvssAssessment[], v: Vulnerability): CvssAssessment[] {
  const rated = new Set(feeds.map((a) => major(a.Version)));
  return [...feeds, ...ownAssessments(v).filter((a) => !rated.has(major(a.Version)))];
}
