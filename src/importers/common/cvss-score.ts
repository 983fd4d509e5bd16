import type { Severity } from '../types.js';

/**
 * CVSS for reports that give vectors and scores in several shapes (Trivy, Grype, OSV,
 * CycloneDX): the qualitative band of a score, a v3 vector with its "CVSS:3.x/" prefix, and the
 * v3 base score of a vector when the report gives only the vector (OSV).
 */

/** The CVSS v3/v4 qualitative rating of a base score; 0.0 ("None") is Info. */
export function severityOfCvssScore(score: number): Severity {
  if (score >= 9) return 'Critical';
  if (score >= 7) return 'High';
  if (score >= 4) return 'Medium';
  if (score > 0) return 'Low';
  return 'Info';
}

const V3_VECTOR =
  /^(?:CVSS:(3\.[01])\/)?(AV:[NALP]\/AC:[LH]\/PR:[NLH]\/UI:[NR]\/S:[UC]\/C:[NLH]\/I:[NLH]\/A:[NLH](?:\/[A-Za-z]{1,3}:[A-Za-z]{1,2})*)$/;

/**
 * A CVSS v3 vector with its "CVSS:3.x/" prefix, or undefined for anything else (a v2 vector,
 * "N/A"). When the tool leaves the prefix out, `assumedVersion` (the version its rating method
 * names) is added.
 */
export function cvss3VectorOf(
  raw: string | undefined,
  assumedVersion: '3.0' | '3.1' = '3.1',
): string | undefined {
  const match = V3_VECTOR.exec(raw?.trim() ?? '');
  return match ? `CVSS:${match[1] ?? assumedVersion}/${match[2]}` : undefined;
}

/** A "CVSS:4.0/…" vector as given, or undefined. */
export function cvss4VectorOf(raw: string | undefined): string | undefined {
  const text = raw?.trim();
  return text && /^CVSS:4\.0\/AV:[NALP]\//.test(text) ? text : undefined;
}

/** A score between 0 and 10, or undefined. */
export function cvssScoreOf(raw: unknown): number | undefined {
  const n = typeof raw === 'string' && raw.trim() ? Number(raw) : raw;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 10 ? n : undefined;
}

/**
 * The CVSS v3 base score of a vector (specification 3.1, section 7.1; 3.0 vectors score the
 * same but for rare rounding differences). Undefined when the vector is not CVSS v3.
 */
export function cvss3BaseScore(raw: string | undefined): number | undefined {
  const vector = cvss3VectorOf(raw);
  if (!vector) return undefined;
  const m: Record<string, string> = {};
  for (const part of vector.split('/').slice(1)) {
    const [metric, value] = part.split(':');
    if (metric && value && !(metric in m)) m[metric] = value;
  }
  const changed = m.S === 'C';
  const cia = (value: string | undefined) => ({ H: 0.56, L: 0.22 })[value as 'H' | 'L'] ?? 0;
  const iss = 1 - (1 - cia(m.C)) * (1 - cia(m.I)) * (1 - cia(m.A));
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  if (impact <= 0) return 0;
  const attackVector = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 }[m.AV as 'N'] ?? 0;
  const complexity = m.AC === 'L' ? 0.77 : 0.44;
  const privileges = { N: 0.85, L: changed ? 0.68 : 0.62, H: changed ? 0.5 : 0.27 }[m.PR as 'N'] ?? 0;
  const interaction = m.UI === 'N' ? 0.85 : 0.62;
  const exploitability = 8.22 * attackVector * complexity * privileges * interaction;
  return roundUp(Math.min((changed ? 1.08 : 1) * (impact + exploitability), 10));
}

/** CVSS v3.1 "Roundup": the smallest one-decimal number not below `value`, free of float noise. */
function roundUp(value: number): number {
  const scaled = Math.round(value * 100_000);
  return scaled % 10_000 === 0 ? scaled / 100_000 : (Math.floor(scaled / 10_000) + 1) / 10;
}
