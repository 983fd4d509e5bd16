import { toRunRefusalsDto } from '../scanruns/presenters.js';
import type { DiscoveryRun, DiscoveryScan, ReportHost } from './types.js';

export function toRunSummaryDto(r: DiscoveryRun) {
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

export function toDiscoveryScanDto(
  s: DiscoveryScan,
  lastRun: DiscoveryRun | null,
  nextRunAt: Date | null,
  scheduleId: string | null,
) {
  return {
    Id: s.id,
    Name: s.name,
    ScanTargets: s.targets.map((t) => ({ Range: t.range, Name: t.name ?? null, Exclude: t.exclude ?? [] })),
    Exclusions: s.exclusions,
    TemplateId: s.templateId,
    ScanNodeId: s.nodeId,
    Notifications: s.notifications.map((n) => ({
      EmailAddresses: n.emailAddresses,
      NotificationLevel: n.level,
    })),
    ResponsibleUserId: s.responsibleUserId,
    Schedule: s.schedule ?? { SchedulingMode: 'None' as const },
    NextRunAt: nextRunAt?.toISOString() ?? null,
    ScheduleId: scheduleId,
    RunState: lastRun?.state ?? ('Idle' as const),
    LastRun: lastRun ? toRunSummaryDto(lastRun) : null,
    LastCompletedRunId: s.lastCompletedRunId,
    ScanLastCompleted: s.lastCompletedAt?.toISOString() ?? null,
    CreatedAt: s.createdAt.toISOString(),
    UpdatedAt: s.updatedAt.toISOString(),
  };
}

export function toReportHostDto(h: ReportHost) {
  return {
    IpAddress: h.address,
    Hostname: h.hostname,
    MacAddress: h.macAddress,
    OperatingSystem: h.osGuess,
    OpenPorts: h.openPorts,
    ClosedPorts: h.closedPorts,
    Status: h.status,
    AssetId: h.assetId,
    FirstSeen: h.firstSeenAt?.toISOString() ?? null,
    LastSeen: h.lastSeenAt?.toISOString() ?? null,
  };
}
