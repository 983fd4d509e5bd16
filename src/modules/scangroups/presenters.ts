import type { GroupScanSummary, ScanGroup } from './types.js';

/** The original's level ids, as its web app sends them beside the names. */
export const LEVEL_IDS: Record<string, string> = { Never: '0', ScanStartsEnds: '6' };

export function toScanGroupDto(g: ScanGroup, user: { id: string; name: string; email: string } | null) {
  return {
    Id: g.id,
    ScanGroupName: g.name,
    ScanDescription: g.description,
    ScanningMode: g.scanningMode,
    ResponsiblePersonId: g.responsibleUserId,
    AssignedToUser: user ? { Id: user.id, Name: user.name, Email: user.email } : null,
    ScanTargets: [],
    SystemScanSettingsEnabled: g.system.enabled,
    MaxSystemScans: g.system.maxScans,
    SystemScanTemplateId: g.system.templateId,
    SystemScanNodeId: g.system.nodeId,
    SystemScanScheduleId: g.system.scheduleId,
    SystemScanSchedule: g.system.schedule ?? { SchedulingMode: 'None' as const },
    WebScanSettingsEnabled: g.web.enabled,
    MaxWebScans: g.web.maxScans,
    WebScanTemplateId: g.web.templateId,
    WebScanNodeId: g.web.nodeId,
    WebScanScheduleId: g.web.scheduleId,
    WebScanSchedule: g.web.schedule ?? { SchedulingMode: 'None' as const },
    MessageNotification: g.notifications.map((n) => ({
      EmailAddresses: n.emailAddresses,
      NotificationLevel: n.level,
      NotificationLevelId: LEVEL_IDS[n.level] ?? null,
    })),
    AssetMonitoringConfigurations: g.monitors.map((m) => ({
      Id: m.id,
      IsActive: m.isActive,
      AssetSourceType: 'DiscoveryScan' as const,
      DiscoveryScanId: m.discoveryScanId,
      ScheduleId: m.scheduleId,
      TrackSystemScans: m.system.track,
      RemoveSystemScanWhenUndiscovered: m.system.removeWhenUndiscovered,
      RunSystemScanImmediatelyAfterAdd: m.system.runImmediatelyAfterAdd,
      RunSystemScanImmediatelyIfNewServicesDiscovered: m.system.runImmediatelyIfNewServicesDiscovered,
      TrackWebScans: m.web.track,
      RemoveWebScanWhenUndiscovered: m.web.removeWhenUndiscovered,
      RunWebScanImmediatelyAfterAdd: m.web.runImmediatelyAfterAdd,
      TrackedHttpPortRangeForWebScan: m.web.httpPorts,
      TrackedHttpsPortRangeForWebScan: m.web.httpsPorts,
    })),
    Notes: g.notes.map((n) => ({ At: n.at.toISOString(), Message: n.message })),
    CreatedAt: g.createdAt.toISOString(),
    UpdatedAt: g.updatedAt.toISOString(),
  };
}

/** A scan of the group as the original lists them. */
export function toGroupScanDto(s: GroupScanSummary) {
  return {
    Id: s.id,
    Name: s.name,
    Hostname: s.hostname,
    ScanLastCompleted: s.lastCompletedAt?.toISOString() ?? null,
  };
}
