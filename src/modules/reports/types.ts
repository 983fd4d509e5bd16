import type { Severity } from '../../db/schema.js';
import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { FindingFigures, FindingReportGrouping } from '../findings/types.js';

// What the reports module speaks (docs/reports.md): report definitions, the runs that make report
// files, and the data an executive report is drawn from.

export const REPORT_KINDS = ['Executive', 'Technical'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const REPORT_FORMATS = ['Pdf', 'Html', 'Csv'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export type ReportState = 'Queued' | 'Running' | 'Completed' | 'Failed';

/** Which findings a report is about: the organisation's, a tag's assets', or a scan group's. */
export type ReportScope =
  | { kind: 'Organization' }
  | { kind: 'Tag'; tag: string }
  | { kind: 'ScanGroup'; scanGroupId: string };

/**
 * The findings filter of a report (the findings list's filter, as POST /findings/bulk takes it),
 * kept as the client sent it: a saved definition is a saved findings filter.
 */
export type ReportFilterBody = Record<string, unknown>;

/** Everything a run needs to make its file, stored with the run. */
export interface ReportSpec {
  scope: ReportScope;
  filter: ReportFilterBody | null;
  groupBy: FindingReportGrouping;
  /** Executive reports: the days of trend before the report's date. */
  periodDays: number;
}

export interface ReportRun {
  id: string;
  organizationId: string;
  definitionId: string | null;
  name: string;
  kind: ReportKind;
  format: ReportFormat;
  spec: ReportSpec;
  state: ReportState;
  /** 0–100. */
  progress: number;
  rowsTotal: number | null;
  rowsWritten: number;
  error: string | null;
  sizeBytes: number | null;
  pageCount: number | null;
  contentType: string | null;
  fileName: string | null;
  deliveredAt: Date | null;
  deliveryError: string | null;
  actorType: string;
  actorId: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface ReportDefinition {
  id: string;
  organizationId: string;
  name: string;
  kind: ReportKind;
  format: ReportFormat;
  spec: ReportSpec;
  schedule: ScheduleOption | null;
  recipients: string[];
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The schedule's next occurrence (none when not scheduled). */
  nextRunAt: Date | null;
}

export interface DefinitionInput {
  name: string;
  kind: ReportKind;
  format: ReportFormat;
  spec: ReportSpec;
  schedule: ScheduleOption | null;
  recipients: string[];
}

/** One day of the organisation's (or the scope's) history, as the trend charts read it. */
export interface TrendPoint {
  /** YYYY-MM-DD. */
  date: string;
  open: Record<Severity, number>;
  new: number;
  fixed: number;
  kevOpen: number;
  /** Mean days to remediate per severity over the history up to that day; null where none was fixed. */
  mttrDays: Record<Severity, number | null>;
}

/** What an executive report shows. */
export interface ExecutiveData {
  title: string;
  scopeLabel: string;
  generatedAt: Date;
  /** YYYY-MM-DD, the period of the trend. */
  from: string;
  to: string;
  figures: FindingFigures;
  /** Days allowed per severity (null: no SLA). */
  slaDays: Record<Severity, number | null>;
  /** The scope's history over the period; empty when none is kept for it (a findings filter). */
  trend: TrendPoint[];
}
