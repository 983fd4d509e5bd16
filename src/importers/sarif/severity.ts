import { asNumber, asText } from '../../parsing/json-fields.js';
import { severityOfCvssScore } from '../common/cvss-score.js';
import type { Severity } from '../types.js';

/**
 * SARIF `level` → Rampart severity, used when the rule or result carries no
 * `security-severity`. `note` is Info, as DefectDojo has it: tools use it for style and
 * maintainability remarks (ShellCheck's "info", CodeQL's "recommendation"), which would
 * otherwise crowd the Low band; security rules of such tools carry a `security-severity`.
 */
export const SARIF_LEVEL_SEVERITY: Readonly<Record<'error' | 'warning' | 'note' | 'none', Severity>> = {
  error: 'High',
  warning: 'Medium',
  note: 'Info',
  none: 'Info',
};

/** The level SARIF prescribes when neither the result nor its rule gives one (§3.27.10). */
export const SARIF_DEFAULT_LEVEL = 'warning';

/**
 * `security-severity` written as a word instead of a score (Semgrep writes "MEDIUM") →
 * Rampart severity.
 */
export const SECURITY_SEVERITY_WORDS: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  moderate: 'Medium',
  low: 'Low',
  info: 'Info',
  informational: 'Info',
  none: 'Info',
};

/**
 * A result's severity: its `security-severity` (a CVSS-like score, as CodeQL, Trivy and Grype
 * write it: ≥ 9 Critical, ≥ 7 High, ≥ 4 Medium, > 0 Low, 0 Info; or a severity word) when there
 * is one, else its level (the result's, else the rule's default, else `warning`).
 */
export function sarifSeverity(level: unknown, securitySeverity: unknown): Severity {
  const score = asNumber(securitySeverity);
  if (score !== undefined && score >= 0 && score <= 10) return severityOfCvssScore(score);
  const word = asText(securitySeverity)?.toLowerCase();
  if (word && word in SECURITY_SEVERITY_WORDS) return SECURITY_SEVERITY_WORDS[word]!;
  const key = (asText(level) ?? SARIF_DEFAULT_LEVEL) as keyof typeof SARIF_LEVEL_SEVERITY;
  return SARIF_LEVEL_SEVERITY[key] ?? SARIF_LEVEL_SEVERITY.warning;
}
