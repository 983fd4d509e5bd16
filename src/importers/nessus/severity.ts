import type { Severity } from '../types.js';

/**
 * Nessus rates each result 0–4 in the `severity` attribute of a ReportItem (the CSV exports write
 * the same levels as words: None/Info, Low, Medium, High, Critical). The levels already are ours,
 * one for one. The scanner computes them from CVSS v2, v3 or VPR depending on its "severity base"
 * setting, so we keep its rating rather than re-derive one from a CVSS score.
 */
export const NESSUS_SEVERITY: Readonly<Record<string, Severity>> = {
  '0': 'Info',
  '1': 'Low',
  '2': 'Medium',
  '3': 'High',
  '4': 'Critical',
};

const WORDS: Readonly<Record<string, Severity>> = {
  none: 'Info',
  info: 'Info',
  informational: 'Info',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

/** Our severity for a Nessus level ("0"–"4") or word ("None", "Medium"…); undefined when unknown. */
export function nessusSeverity(value: string | undefined): Severity | undefined {
  const key = value?.trim().toLowerCase();
  if (!key) return undefined;
  return NESSUS_SEVERITY[key] ?? WORDS[key];
}
