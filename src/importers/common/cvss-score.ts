import { scoreCvss } from '../../intel/cvss/cvss.js';
import type { Severity } from '../types.js';

/**
 * CVSS for reports that give vectors and scores in several shapes (Nessus, OpenVAS, Qualys, Trivy,
 * Grype, OSV, CycloneDX…): the qualitative band of a score, a v2 vector as v2 writes it, a v3
 * vector with its "CVSS:3.x/" prefix, and the base score of a vector when the report gives only
 * the vector (OSV).
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
 * The CVSS v3.x base score of a vector, by FIRST's formula as implemented by a maintained
 * library (the project's one CVSS module, src/intel/cvss); undefined when the vector is not
 * valid v3.
 */
export function cvss3BaseScore(raw: string | undefined): number | undefined {
  const vector = cvss3VectorOf(raw);
  if (!vector) return undefined;
  const scored = scoreCvss(vector);
  return scored.ok ? scored.baseScore : undefined;
}

/**
 * A CVSS v2 vector as v2 writes it (no prefix, metrics in the specification's order), from the
 * shapes tools write it in: "CVSS2#AV:N/…" (Nessus), "(AV:N/…)" (NVD's older feeds),
 * "CVSS:2.0/AV:N/…", or bare. Undefined for anything that is not a valid v2 vector (a v3 one, a
 * value out of the specification, "N/A").
 */
export function cvss2VectorOf(raw: string | undefined): string | undefined {
  const text = raw?.trim().replace(/^CVSS2#/i, '');
  if (!text || !/(^|[/(])Au:/.test(text)) return undefined;
  const scored = scoreCvss(text);
  return scored.ok && scored.version === '2.0' ? scored.vector : undefined;
}

/** The CVSS v2 base score of a vector (any shape cvss2VectorOf reads), or undefined. */
export function cvss2BaseScore(raw: string | undefined): number | undefined {
  const vector = cvss2VectorOf(raw);
  if (!vector) return undefined;
  const scored = scoreCvss(vector);
  return scored.ok ? scored.baseScore : undefined;
}

/**
 * A report's CVSS v2 assessment: the vector when it is valid, and the score it states, else the
 * score of the vector. A stated score and a broken vector keep the score; each is checked alone.
 */
export function cvss2Of(
  score: number | undefined,
  vector: string | undefined,
): { cvss2Vector?: string; cvss2Score?: number } {
  const cvss2Vector = cvss2VectorOf(vector);
  const cvss2Score = score ?? cvss2BaseScore(cvss2Vector);
  return {
    ...(cvss2Vector ? { cvss2Vector } : {}),
    ...(cvss2Score !== undefined ? { cvss2Score } : {}),
  };
}
