// The scan group form's state and how it becomes the body the server takes (and back). Kept apart
// from the components so the mapping is read in one place.
import { ApiError } from '../../api/client';
import type { ScanGroup, ScanGroupBody } from '../../api/scangroups';
import type { ScheduleOption } from '../scans/ScheduleFields';

export interface SettingsForm {
  enabled: boolean;
  max: number;
  templateId: string | null;
  nodeId: string | null;
  schedule: ScheduleOption | null;
}

export interface MonitorForm {
  id: string | null;
  isActive: boolean;
  discoveryScanId: string | null;
  trackSystem: boolean;
  removeSystem: boolean;
  runSystemAfterAdd: boolean;
  runSystemOnNewServices: boolean;
  trackWeb: boolean;
  removeWeb: boolean;
  runWebAfterAdd: boolean;
  httpPorts: string;
  httpsPorts: string;
  /** The server's words about this configuration's discovery scan, and its port ranges. */
  error?: string | undefined;
  httpError?: string | undefined;
  httpsError?: string | undefined;
}

export interface GroupForm {
  name: string;
  description: string;
  system: SettingsForm;
  web: SettingsForm;
  monitors: MonitorForm[];
}

type Monitor = ScanGroup['AssetMonitoringConfigurations'][number];

export function settingsOf(group: ScanGroup | undefined, kind: 'System' | 'Web'): SettingsForm {
  if (!group) return { enabled: true, max: 50, templateId: null, nodeId: null, schedule: null };
  return kind === 'System'
    ? {
        enabled: group.SystemScanSettingsEnabled,
        max: group.MaxSystemScans,
        templateId: group.SystemScanTemplateId,
        nodeId: group.SystemScanNodeId,
        schedule: group.SystemScanSchedule,
      }
    : {
        enabled: group.WebScanSettingsEnabled,
        max: group.MaxWebScans,
        templateId: group.WebScanTemplateId,
        nodeId: group.WebScanNodeId,
        schedule: group.WebScanSchedule,
      };
}

export function newMonitor(): MonitorForm {
  return {
    id: null,
    isActive: true,
    discoveryScanId: null,
    trackSystem: true,
    removeSystem: false,
    runSystemAfterAdd: true,
    runSystemOnNewServices: false,
    trackWeb: false,
    removeWeb: false,
    runWebAfterAdd: false,
    httpPorts: '80',
    httpsPorts: '443',
  };
}

export function monitorsOf(group: ScanGroup | undefined): MonitorForm[] {
  return (group?.AssetMonitoringConfigurations ?? []).map((m: Monitor) => ({
    id: m.Id,
    isActive: m.IsActive,
    discoveryScanId: m.DiscoveryScanId,
    trackSystem: m.TrackSystemScans,
    removeSystem: m.RemoveSystemScanWhenUndiscovered,
    runSystemAfterAdd: m.RunSystemScanImmediatelyAfterAdd,
    runSystemOnNewServices: m.RunSystemScanImmediatelyIfNewServicesDiscovered,
    trackWeb: m.TrackWebScans,
    removeWeb: m.RemoveWebScanWhenUndiscovered,
    runWebAfterAdd: m.RunWebScanImmediatelyAfterAdd,
    httpPorts: m.TrackedHttpPortRangeForWebScan,
    httpsPorts: m.TrackedHttpsPortRangeForWebScan,
  }));
}

export function toBody(form: GroupForm): ScanGroupBody {
  return {
    ScanGroupName: form.name,
    ScanDescription: form.description || null,
    ScanningMode: 'RegularScan',
    SystemScanSettingsEnabled: form.system.enabled,
    MaxSystemScans: form.system.max,
    SystemScanTemplateId: form.system.templateId,
    SystemScanNodeId: form.system.nodeId,
    SystemScanSchedule: form.system.schedule,
    WebScanSettingsEnabled: form.web.enabled,
    MaxWebScans: form.web.max,
    WebScanTemplateId: form.web.templateId,
    WebScanNodeId: form.web.nodeId,
    WebScanSchedule: form.web.schedule,
    AssetMonitoringConfigurations: form.monitors.map((m) => ({
      ...(m.id ? { Id: m.id } : {}),
      IsActive: m.isActive,
      AssetSourceType: 'DiscoveryScan',
      DiscoveryScanId: m.discoveryScanId ?? '',
      TrackSystemScans: m.trackSystem,
      RemoveSystemScanWhenUndiscovered: m.removeSystem,
      RunSystemScanImmediatelyAfterAdd: m.runSystemAfterAdd,
      RunSystemScanImmediatelyIfNewServicesDiscovered: m.runSystemOnNewServices,
      TrackWebScans: m.trackWeb,
      RemoveWebScanWhenUndiscovered: m.removeWeb,
      RunWebScanImmediatelyAfterAdd: m.runWebAfterAdd,
      TrackedHttpPortRangeForWebScan: m.httpPorts,
      TrackedHttpsPortRangeForWebScan: m.httpsPorts,
    })),
  };
}

const MONITORS = '/AssetMonitoringConfigurations';

/**
 * The server's errors about monitoring configurations, placed on each one's fields
 * (`/AssetMonitoringConfigurations/1/TrackedHttpPortRangeForWebScan` → the second one's HTTP ports).
 * Returns whether any was placed.
 */
export function placeMonitorErrors(
  monitors: MonitorForm[],
  error: unknown,
): { monitors: MonitorForm[]; placed: boolean } {
  const cleared: MonitorForm[] = monitors.map((m) => ({
    ...m,
    error: undefined,
    httpError: undefined,
    httpsError: undefined,
  }));
  if (!(error instanceof ApiError)) return { monitors: cleared, placed: false };
  let placed = false;
  for (const e of error.problem.errors ?? []) {
    if (!e.path.startsWith(`${MONITORS}/`)) continue;
    const [index, field] = e.path.slice(MONITORS.length + 1).split('/');
    const m = cleared[Number(index)];
    if (!m) continue;
    placed = true;
    if (field === 'TrackedHttpPortRangeForWebScan') m.httpError = e.message;
    else if (field === 'TrackedHttpsPortRangeForWebScan') m.httpsError = e.message;
    else m.error = e.message;
  }
  return { monitors: cleared, placed };
}
