import type { Severity } from '../types.js';

/**
 * Nuclei template severity (`info.severity`) → Rampart severity. "unknown" is what templates
 * without a rating carry: the matcher did fire, so it is Low (as DefectDojo files it) rather
 * than hidden among the Info technology detections. Any other value is read as Low too, with a
 * warning.
 */
export const NUCLEI_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
  unknown: 'Low',
};

/** The severity for templates that give none or one Nuclei does not define. */
export const NUCLEI_FALLBACK_SEVERITY: Severity = 'Low';

/** The mapped severity, or undefined when the value is not one of Nuclei's. */
export function nucleiSeverity(value: string | undefined): Severity | undefined {
  return value ? NUCLEI_SEVERITY[value.trim().toLowerCase()] : undefined;
}
