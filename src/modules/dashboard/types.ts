import type { Severity } from '../../db/schema.js';
import type { Import } from '../imports/types.js';
import type { ScanRun } from '../scanruns/types.js';
import type { SlaDays } from '../settings/service.js';

export type BySeverity = Record<Severity, number>;

/** Which findings the dashboard shows: the organisation's, an asset tag's or a scan group's. */
export type DashboardScope =
  | { kind: 'Organization' }
  | { kind: 'Tag'; tag: string }
  | { kind: 'ScanGroup'; scanGroupId: string; scanGroupName: string };

/** How many of the findings that had a due date were (or are) within it. */
export interface SlaFigure {
  withSla: number;
  withinSla: number;
  /** withinSla / withSla in per cent, one decimal; null when none had a due date. */
  percent: number | null;
}

/** Open findings first seen in an interval of days ago, by severity. */
export interface AgeingBucket {
  label: string;
  fromDays: number;
  /** null: no upper end (the oldest bucket). */
  toDays: number | null;
  /** The findings list's filters that list the bucket's findings (FirstSeenAfter, FirstSeenBefore). */
  firstSeenAfter: Date | null;
  firstSeenBefore: Date | null;
  counts: BySeverity;
  total: number;
}

/** Time to remediate one severity, over the findings fixed in the window. */
export interface MttrFigure {
  severity: Severity;
  slaDays: number | null;
  meanDays: number | null;
  medianDays: number | null;
  count: number;
  withinSla: number;
}

export interface RiskiestAsset {
  assetId: string;
  name: string;
  openFindings: number;
  critical: number;
  high: number;
  riskExposure: number;
  maxRisk: number;
}

export interface RiskiestVulnerability {
  vulnerabilityId: string;
  title: string;
  cveIds: string[];
  kev: boolean;
  severity: Severity;
  openFindings: number;
  assetsAffected: number;
  riskExposure: number;
  maxRisk: number;
}

export interface Dashboard {
  scope: DashboardScope;
  generatedAt: Date;
  /** Fixed-finding figures (SLA kept, time to remediate) are of this many days back. */
  windowDays: number;
  /** generatedAt less windowDays: the fixed findings counted were fixed after it. */
  windowStart: Date;
  /** The tags of the organisation's assets (the filter's choices), at most 500. */
  tags: string[];
  slaDays: SlaDays;
  open: BySeverity & { total: number; pastSla: number };
  sla: { open: SlaFigure; fixed: SlaFigure; overall: SlaFigure };
  ageing: AgeingBucket[];
  mttr: MttrFigure[];
  riskiestAssets: RiskiestAsset[];
  riskiestVulnerabilities: RiskiestVulnerability[];
  kev: { openFindings: number; assetsAffected: number; overdue: number };
  lastScans: ScanRun[];
  lastImports: Import[];
}
