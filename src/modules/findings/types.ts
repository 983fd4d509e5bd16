import type { FindingConfidence, FindingState, LocationKind, Severity } from '../../db/schema.js';

// What the findings service speaks: findings as the domain sees them, not as the database stores
// them. The repository selects its columns under these names (aliases, no per-row mapping).

/** Where on its asset a finding is (a finding, and a ticket's linked findings). */
export interface FindingLocationFields {
  locationKind: LocationKind;
  port: number | null;
  protocol: string | null;
  url: string | null;
  parameter: string | null;
  filePath: string | null;
  line: number | null;
  packageName: string | null;
  packageVersion: string | null;
}

/** A finding as lists read it, with its asset's name and its vulnerability's intelligence. */
export interface FindingSummary extends FindingLocationFields {
  id: string;
  organizationId: string;
  assetId: string;
  vulnerabilityId: string;
  title: string;
  /** The scanner's severity. */
  severity: Severity;
  severityOverride: Severity | null;
  severityOverrideReason: string | null;
  /** The override when there is one, else the scanner's. */
  effectiveSeverity: Severity;
  state: FindingState;
  stateReason: string | null;
  riskAcceptedUntil: Date | null;
  /** A numeric, as PostgreSQL writes it. */
  riskScore: string;
  dueAt: Date | null;
  /** Unconfirmed: not counted in risk or SLA (risk 0, no due date), hidden from lists by default. */
  confidence: FindingConfidence;
  source: string;
  toolFindingId: string | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
  fixedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  assetName: string;
  cveIds: string[];
  kev: boolean;
  /** Numerics, as PostgreSQL writes them. */
  epssScore: string | null;
  epssPercentile: string | null;
  /** A date (YYYY-MM-DD). */
  kevDueDate: string | null;
  cvss3Score: string | null;
  /** Its "CVSS:3.x/" prefix tells the version of cvss3Score. */
  cvss3Vector: string | null;
  cvss4Score: string | null;
  cvss2Score: string | null;
  pluginId: string | null;
}

/** One finding, with its evidence. */
export interface Finding extends FindingSummary {
  evidence: string | null;
  /** The import that reported it last (for a Rampart scan: its run's results). */
  lastImportId: string | null;
  /** Where re-imports judge it (`system-scan:<id>` for a Rampart system scan, …). */
  scopeName: string | null;
}

/** A finding of a keyset page, with the value its sort compares (the next page's cursor). */
export interface FindingPageItem extends FindingSummary {
  sortValue: string;
}

/**
 * A finding as the CSV export writes it: only the exported fields, the timestamps already ISO
 * text (rendered by the database: a million rows are not each parsed into Dates to be printed).
 */
export interface FindingExport {
  id: string;
  assetName: string;
  assetId: string;
  title: string;
  /** The CVE ids, space-separated. */
  cves: string;
  effectiveSeverity: Severity;
  state: FindingState;
  riskScore: string;
  dueAt: string | null;
  kev: boolean;
  port: number | null;
  protocol: string | null;
  url: string | null;
  packageName: string | null;
  packageVersion: string | null;
  source: string;
  firstSeenAt: string | null;
  lastSeenAt: string | null;
}

/** An entry of a history (a finding's, a ticket's): who did what, from which state to which. */
export interface HistoryEvent {
  id: string;
  occurredAt: Date;
  actorType: string;
  actorId: string | null;
  kind: string;
  fromState: string | null;
  toState: string | null;
  details: Record<string, unknown>;
}

/** An entry of a finding's history. */
export interface FindingEvent extends HistoryEvent {
  reason: string | null;
}

/** Which findings a Rampart scan asks about: those of a scope (or of scopes starting so), or these ids. */
export interface ScanLocationQuery {
  scopeName?: string;
  scopePrefix?: string;
  addresses?: string[];
  ids?: string[];
  states?: FindingState[];
  pluginIds?: string[];
}

/** Where a finding is, as a Rampart scan judges whether it looked there again. */
export interface ScanLocation {
  id: string;
  assetId: string;
  state: FindingState;
  scopeName: string | null;
  source: string;
  locationKind: LocationKind;
  port: number | null;
  url: string | null;
  /** The finding's asset's addresses. */
  ipAddresses: string[];
  /** The vulnerability's rule id (a Rampart check's id). */
  pluginId: string | null;
}

/** A finding as a technical report lists it: where it is, how bad, and what to do (timestamps as ISO text). */
export interface FindingReportRow {
  id: string;
  assetId: string;
  assetName: string;
  vulnerabilityId: string;
  title: string;
  /** The CVE ids, space-separated. */
  cves: string;
  effectiveSeverity: Severity;
  state: FindingState;
  riskScore: string;
  kev: boolean;
  locationKind: LocationKind;
  port: number | null;
  protocol: string | null;
  url: string | null;
  filePath: string | null;
  packageName: string | null;
  packageVersion: string | null;
  firstSeenAt: string;
  dueAt: string | null;
  solution: string | null;
}

/** How a technical report groups its findings. */
export type FindingReportGrouping = 'Asset' | 'Vulnerability';

/** One line of a ranking (riskiest assets or vulnerabilities). */
export interface FindingRanking {
  id: string;
  name: string;
  /** The vulnerability's CVE ids (vulnerability rankings), space-separated. */
  cves: string;
  openFindings: number;
  /** The sum of the open findings' risk scores. */
  risk: number;
  maxSeverity: Severity;
}

/** The current figures of the findings that match a filter (an executive report's headline). */
export interface FindingFigures {
  openBySeverity: Record<Severity, number>;
  kevOpen: number;
  /** Open findings with a due date, those past it and those due within `soonDays`. */
  withDueDate: number;
  pastDue: number;
  dueSoon: number;
  riskExposure: number;
  /** Findings fixed since the window's start that had a due date, and those fixed by it. */
  fixedWithDueDate: number;
  fixedWithinSla: number;
  riskiestAssets: FindingRanking[];
  riskiestVulnerabilities: FindingRanking[];
}
