import type { Severity } from '../../db/schema.js';

/**
 * A vulnerability in the organisation's knowledge base. Scores are decimals as PostgreSQL's
 * numeric gives them (strings, exact); dates without a time (KEV's) are `YYYY-MM-DD`.
 */
export interface Vulnerability {
  id: string;
  organizationId: string;
  /** Its identity: `cve:…`, `rule:<source>:…` or `title:<source>:…` (vulnerabilityKey). */
  key: string;
  source: string;
  /** The scanner's rule id (the original service's PluginGuidId), when a report gave one. */
  pluginId: string | null;
  cveIds: string[];
  aliases: string[];
  title: string;
  description: string | null;
  solution: string | null;
  cweIds: string[];
  severity: Severity;
  cvss3Vector: string | null;
  cvss3Score: string | null;
  cvss4Vector: string | null;
  cvss4Score: string | null;
  epssScore: string | null;
  epssPercentile: string | null;
  kev: boolean;
  kevDueDate: string | null;
  kevDateAdded: string | null;
  cvss2Vector: string | null;
  cvss2Score: string | null;
  /** When public intelligence last changed it. */
  intelAt: Date | null;
  references: string[];
  publishedAt: Date | null;
  modifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
