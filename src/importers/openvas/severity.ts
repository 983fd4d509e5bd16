import { severityOfCvssScore } from '../common/cvss-score.js';
import type { Severity } from '../types.js';

/**
 * OpenVAS / Greenbone rates each result twice: a score (`severity`, CVSS 0.0–10.0) and a level
 * (`threat`, "Severity" in the CSV) that the scanner derived from the score with the report's
 * severity class. We take the level, the tool's own rating:
 *   Critical → Critical (Greenbone 24.10 and later, score 9.0–10.0), High → High, Medium → Medium,
 *   Low → Low, Log → Info, Debug → Info.
 * Older reports (NVD classes, no Critical) rate 9.0–10.0 as High and so do we for them. Without a
 * level we fall back on the score with the CVSS v3.x bands (9.0 Critical, 7.0 High, 4.0 Medium,
 * 0.1 Low, 0.0 Info), the classes Greenbone uses since adding Critical.
 * A result overridden to "False Positive" keeps its original level and gets a FalsePositive state.
 */
export const OPENVAS_THREAT: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  log: 'Info',
  debug: 'Info',
};

/** Our severity for an OpenVAS threat level, else its score; Info when neither is known. */
export function openvasSeverity(threat: string | undefined, score: string | undefined): Severity {
  const level = OPENVAS_THREAT[threat?.trim().toLowerCase() ?? ''];
  if (level) return level;
  const value = Number(score?.trim() || Number.NaN);
  return Number.isFinite(value) && value >= 0 ? severityOfCvssScore(value) : 'Info';
}

/** True for OpenVAS's "False Positive" level (a result an override marked as such). */
export function isFalsePositive(threat: string | undefined): boolean {
  return threat?.trim().toLowerCase() === 'false positive';
}
