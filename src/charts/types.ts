/**
 * The shapes of the API answers the charts are drawn from, as much of them as the charts read:
 * GET /trends (one entry per day) and GET /dashboard. Plain structural types, so the web app passes
 * its generated API types and the server its presenters' DTOs without either importing the other.
 */

export const CHART_SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Info'] as const;
export type ChartSeverity = (typeof CHART_SEVERITIES)[number];

export type BySeverity = Record<ChartSeverity, number>;

/** One day of GET /trends. */
export interface TrendDayInput {
  /** YYYY-MM-DD in the organisation's time zone. */
  Date: string;
  /** Open and Reopened findings at the end of the day, by severity. */
  Open: BySeverity;
  New: number;
  Fixed: number;
  KevOpen: number;
}

export interface TrendsInput {
  Days: readonly TrendDayInput[];
}

/** Mean time to remediate one severity (GET /dashboard `Mttr`). */
export interface MttrInput {
  Severity: ChartSeverity;
  /** The SLA of the severity in days; null: no SLA. */
  SlaDays: number | null;
  MeanDays: number | null;
  MedianDays: number | null;
  /** Findings fixed in the window the figures are of. */
  Count: number;
}

/** GET /dashboard `SlaCompliance`. */
export interface SlaComplianceInput {
  /** Open findings with a due date, and how many of them are not past it. */
  Open: { WithSla: number; WithinSla: number; Percent: number | null };
  /** Findings fixed in the window that had a due date, and how many were fixed by it. */
  Fixed: { WithSla: number; WithinSla: number; Percent: number | null };
  /** Both together. */
  Overall: { WithSla: number; WithinSla: number; Percent: number | null };
}

/** One bucket of GET /dashboard `Ageing`: open findings by how many days ago they were first seen. */
export interface AgeingBucketInput {
  /** "0–30", "31–90", …, ">365". */
  Label: string;
  Counts: BySeverity;
}
