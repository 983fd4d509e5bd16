import type { Static } from 'typebox';
import { invalid } from '../../problems/app-error.js';
import type { CreateReportSchema, ReportDefinitionBody } from './schemas.js';
import type { DefinitionInput, ReportDefinition, ReportRun, ReportScope, ReportSpec } from './types.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

type ScopeFields = Pick<
  Static<typeof CreateReportSchema>,
  'Tag' | 'ScanGroupId' | 'Filter' | 'GroupBy' | 'PeriodDays'
>;

/** A request's scope fields as a report's spec; Tag and ScanGroupId together are refused. */
export function specFromBody(b: ScopeFields): ReportSpec {
  if (b.Tag !== undefined && b.ScanGroupId !== undefined)
    throw invalid(
      'scanGroupId',
      'A report is scoped to a tag or to a scan group, not both: give Tag or ScanGroupId.',
    );
  const scope: ReportScope =
    b.Tag !== undefined
      ? { kind: 'Tag', tag: b.Tag }
      : b.ScanGroupId !== undefined
        ? { kind: 'ScanGroup', scanGroupId: b.ScanGroupId }
        : { kind: 'Organization' };
  const filter = b.Filter && Object.keys(b.Filter).length > 0 ? (b.Filter as Record<string, unknown>) : null;
  return { scope, filter, groupBy: b.GroupBy ?? 'Asset', periodDays: b.PeriodDays ?? 30 };
}

export function definitionInputFromBody(b: Static<typeof ReportDefinitionBody>): DefinitionInput {
  return {
    name: b.Name,
    kind: b.Kind,
    format: b.Format,
    spec: specFromBody(b),
    schedule: b.Schedule && b.Schedule.SchedulingMode !== 'None' ? b.Schedule : null,
    recipients: b.Recipients ?? [],
  };
}

const toScopeDto = (s: ReportScope) =>
  s.kind === 'Tag'
    ? { Kind: s.kind, Tag: s.tag }
    : s.kind === 'ScanGroup'
      ? { Kind: s.kind, ScanGroupId: s.scanGroupId }
      : { Kind: s.kind };

export const toReportDto = (r: ReportRun) => ({
  Id: r.id,
  DefinitionId: r.definitionId,
  Name: r.name,
  Kind: r.kind,
  Format: r.format,
  Scope: toScopeDto(r.spec.scope),
  Filter: r.spec.filter,
  GroupBy: r.spec.groupBy,
  PeriodDays: r.spec.periodDays,
  State: r.state,
  Progress: r.progress,
  RowsTotal: r.rowsTotal,
  RowsWritten: r.rowsWritten,
  Error: r.error,
  SizeBytes: r.sizeBytes,
  PageCount: r.pageCount,
  FileName: r.fileName,
  ContentType: r.contentType,
  DeliveredAt: iso(r.deliveredAt),
  DeliveryError: r.deliveryError,
  CreatedAt: r.createdAt.toISOString(),
  StartedAt: iso(r.startedAt),
  FinishedAt: iso(r.finishedAt),
});

export const toDefinitionDto = (d: ReportDefinition) => ({
  Id: d.id,
  Name: d.name,
  Kind: d.kind,
  Format: d.format,
  Scope: toScopeDto(d.spec.scope),
  Filter: d.spec.filter,
  GroupBy: d.spec.groupBy,
  PeriodDays: d.spec.periodDays,
  Schedule: d.schedule,
  NextRunAt: iso(d.nextRunAt),
  Recipients: d.recipients,
  CreatedAt: d.createdAt.toISOString(),
  UpdatedAt: d.updatedAt.toISOString(),
});

/** A Content-Disposition header for a download, with an ASCII fallback and the UTF-8 name (RFC 6266). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
