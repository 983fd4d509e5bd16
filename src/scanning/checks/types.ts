// What a check of Rampart's own scans is, for people: the node reports only a check id, and the
// server makes the finding's vulnerability from this definition.

export type CheckSeverity = 'Critical' | 'High' | 'Medium' | 'Low' | 'Info';

export interface CheckDefinition {
  /** Stable forever: findings, PluginGuidIds and suppressions hang on it. Lower case, dotted. */
  id: string;
  /** Which scans report it. */
  scan: 'System' | 'Web' | 'Both';
  title: string;
  severity: CheckSeverity;
  /** What the original service calls VulnerabilityCategory (`Generic`, `Encryption`, …). */
  category: 'Generic' | 'Encryption' | 'Authentication' | 'Configuration' | 'Information disclosure';
  description: string;
  solution: string;
  references: string[];
  cweIds: string[];
  cvss3Vector?: string;
}
