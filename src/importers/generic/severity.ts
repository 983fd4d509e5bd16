import type { Severity } from '../types.js';

/**
 * The generic format's severity (case-insensitive) → Rampart severity. Its scale is
 * DefectDojo's own five values; "Informational" and "Unknown" (which DefectDojo files as Info)
 * are accepted too.
 */
export const GENERIC_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
  informational: 'Info',
  unknown: 'Info',
};

export type SeverityReading = { severity: Severity } | { blank: true } | { unknown: string };

/**
 * Reads a severity. Blank is allowed (DefectDojo's own samples leave it empty) and is Info; a
 * value outside the scale is reported back so the import can fail on it.
 */
export function readGenericSeverity(value: string | undefined): SeverityReading {
  const text = value?.trim();
  if (!text) return { blank: true };
  const severity = GENERIC_SEVERITY[text.toLowerCase()];
  return severity ? { severity } : { unknown: text };
}
