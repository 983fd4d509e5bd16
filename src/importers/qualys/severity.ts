import type { Severity } from '../types.js';

/**
 * Qualys rates a QID 1–5. Its knowledge base names the levels Minimal, Medium, Serious, Critical
 * and Urgent and describes them, for vulnerabilities, as: 1 intruders can collect information
 * about the host (open ports, services); 2 they may collect sensitive information (precise
 * software versions); 3 they may gain access to specific information stored on the host; 4 they
 * can possibly gain control of the host or leak highly sensitive data; 5 they can easily gain
 * control of the host. Level 1 discloses no more than an inventory would, so it maps to Info, and
 * the five levels keep their order on our five:
 *   1 → Info, 2 → Low, 3 → Medium, 4 → High, 5 → Critical
 * (DefectDojo's "legacy" Qualys mapping, the one its samples assert).
 *
 * "Information gathered" QIDs (type Ig / INFO / SERVICE) are not vulnerabilities: their 1–5 level
 * rates how sensitive the gathered data is, so they are Info whatever the level. Confirmed (Vuln)
 * and potential (Practice) vulnerabilities take the mapping above.
 */
export const QUALYS_SEVERITY: Readonly<Record<string, Severity>> = {
  '1': 'Info',
  '2': 'Low',
  '3': 'Medium',
  '4': 'High',
  '5': 'Critical',
};

/** The kinds of QID results Qualys reports. */
export type QualysType = 'Vuln' | 'Practice' | 'Ig';

const WORDS: Readonly<Record<string, Severity>> = {
  info: 'Info',
  informational: 'Info',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

/** Reads Qualys's type names: "Vuln", "CONFIRMED", "Practice", "POTENTIAL", "Ig", "INFO"… */
export function qualysType(text: string | undefined): QualysType | undefined {
  const type = text?.trim().toLowerCase();
  if (!type) return undefined;
  if (type === 'vuln' || type === 'confirmed' || type === 'vulnerability') return 'Vuln';
  if (type === 'practice' || type === 'potential') return 'Practice';
  if (['ig', 'info', 'information gathered', 'service'].includes(type)) return 'Ig';
  return undefined;
}

/** Our severity for a Qualys level ("1"–"5") and type; Info when the level is unknown. */
export function qualysSeverity(level: string | undefined, type: QualysType | undefined): Severity {
  if (type === 'Ig') return 'Info';
  const key = level?.trim().toLowerCase() ?? '';
  return QUALYS_SEVERITY[key] ?? WORDS[key] ?? 'Info';
}
