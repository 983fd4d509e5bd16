import type { FindingState, Severity } from '../../db/schema.js';

/** What a history counts: the whole organisation, the assets with a tag, or a scan group's scans. */
export type HistoryScope =
  | { kind: 'Organization' }
  | { kind: 'Tag'; tag: string }
  | { kind: 'ScanGroup'; scanGroupId: string };

/** Time to remediate of the findings fixed in the MTTR window up to a day, in days. */
export interface MttrFigure {
  meanDays: number;
  medianDays: number;
  count: number;
}

/** One day of a scope's history: the figures at the end of the day and what happened during it. */
export interface TrendDay {
  /** The calendar day in the organisation's time zone, YYYY-MM-DD. */
  date: string;
  /** Open and Reopened findings by severity. */
  open: Record<Severity, number>;
  byState: Record<FindingState, number>;
  new: number;
  fixed: number;
  reopened: number;
  pastSla: number;
  dueSoon: number;
  riskExposure: number;
  kevOpen: number;
  assetsSeen: number;
  assetsScanned: number;
  /** Null for a severity no fix in the window had. */
  mttr: Record<Severity, MttrFigure | null>;
}

/** How far the history of an organisation is built (a rebuild runs as a job with progress). */
export interface HistoryBuild {
  state: 'Queued' | 'Running' | 'Completed' | 'Failed';
  daysDone: number;
  daysTotal: number;
  firstDay: string | null;
  lastDay: string | null;
}

export interface Trend {
  scope: HistoryScope;
  timeZone: string;
  from: string;
  to: string;
  /** The days of from..to that have a snapshot, in order (days before the history began have none). */
  days: TrendDay[];
  build: HistoryBuild | null;
}
