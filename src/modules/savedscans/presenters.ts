import { toRunRefusalsDto } from '../scanruns/presenters.js';
import type { ScanView } from './kind.js';
import type { SavedScan, SavedScanRun } from './types.js';

export function toRunSummaryDto(r: SavedScanRun) {
  return {
    Id: r.id,
    State: r.state,
    Attempt: r.attempt,
    Progress: { Done: r.progress.done, Total: r.progress.total, Found: r.progress.found },
    ScanNodeId: r.claimedBy,
    StartedAt: r.startedAt?.toISOString() ?? null,
    FinishedAt: r.finishedAt?.toISOString() ?? null,
    Error: r.error,
    Refused: toRunRefusalsDto(r.refused ?? { count: 0, addresses: [] }),
    CreatedAt: r.createdAt.toISOString(),
  };
}

/** What every kind's scan answers of itself: its template, node, schedule and runs. */
export function savedScanDtoFields(s: SavedScan, view: ScanView) {
  return {
    Id: s.id,
    Name: s.name,
    TemplateId: s.templateId,
    ScanNodeId: s.nodeId,
    Schedule: s.schedule ?? { SchedulingMode: 'None' as const },
    NextRunAt: view.nextRunAt?.toISOString() ?? null,
    RunState: view.lastRun?.state ?? ('Idle' as const),
    LastRun: view.lastRun ? toRunSummaryDto(view.lastRun) : null,
    LastCompletedRunId: s.lastCompletedRunId,
    ScanLastCompleted: s.lastCompletedAt?.toISOString() ?? null,
    CreatedAt: s.createdAt.toISOString(),
    UpdatedAt: s.updatedAt.toISOString(),
  };
}

/** Targets as a scan answers them. */
export function toTargetsDto(targets: { range: string; name?: string | null; exclude?: string[] }[]) {
  return targets.map((t) => ({ Range: t.range, Name: t.name ?? null, Exclude: t.exclude ?? [] }));
}

/** A page of a list as the API answers it: each item presented, the next page's cursor and the total. */
export async function toPageDto<T>(
  page: { items: T[]; nextCursor: string | null; totalCount: number },
  present: (item: T) => Promise<unknown>,
) {
  return {
    Items: await Promise.all(page.items.map(present)),
    NextCursor: page.nextCursor,
    TotalCount: page.totalCount,
  };
}
