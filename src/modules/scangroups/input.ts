import type { Static } from 'typebox';
import { invalid } from '../../problems/app-error.js';
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../savedscans/types.js';
import type { AssetMonitoringBody, ScanGroupBody } from './schemas.js';
import { type GroupScanSettings, SCANNING_MODES, type ScanGroupInput } from './types.js';

// The original's scan group body as the service takes it. Its clients send booleans and numbers
// as text at times; what cannot be read is a 400 naming the field.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL = '00000000-0000-0000-0000-000000000000';
export const DEFAULT_MAX_SCANS = 100;

type Field = readonly string[];

function flag(value: boolean | string | null | undefined, field: Field, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  const text = value.trim().toLowerCase();
  if (text === '') return fallback;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalid(field, `'${value}' is not true or false`);
}

function count(value: number | string | null | undefined, field: Field, fallback: number): number {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
    return fallback;
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n)) throw invalid(field, `'${value}' is not a whole number`);
  return n;
}

function idOf(value: string | null | undefined, field: Field): string | null {
  const text = value?.trim() ?? '';
  if (text === '' || text === NIL) return null;
  if (!UUID.test(text)) throw invalid(field, `'${value}' is not an id (a UUID)`);
  return text.toLowerCase();
}

const textOrNull = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);

/** The original's level ids, as its web app sends them beside the names. */
const LEVEL_BY_ID: Record<string, NotificationLevel> = { '0': 'Never', '6': 'ScanStartsEnds' };

function notifications(b: Static<typeof ScanGroupBody>) {
  return (b.MessageNotification ?? []).map((n, i) => {
    const at = ['messageNotification', String(i)];
    const named = NOTIFICATION_LEVELS.find(
      (l) => l.toLowerCase() === (n.NotificationLevel ?? '').trim().toLowerCase(),
    );
    const level = named ?? LEVEL_BY_ID[String(n.NotificationLevelId ?? '').trim()];
    if (!level)
      throw invalid([...at, 'notificationLevel'], `is not one of ${NOTIFICATION_LEVELS.join(', ')}`);
    const raw = n.EmailAddresses ?? [];
    const emailAddresses = (Array.isArray(raw) ? raw : raw.split(/[,;\s]+/))
      .map((e) => e.trim())
      .filter(Boolean);
    const bad = emailAddresses.find((e) => !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(e));
    if (bad) throw invalid([...at, 'emailAddresses'], `'${bad}' is not an e-mail address`);
    return { emailAddresses, level };
  });
}

function monitor(m: Static<typeof AssetMonitoringBody>, i: number): ScanGroupInput['monitors'][number] {
  const at = (name: string) => ['assetMonitoringConfigurations', String(i), name];
  const source = m.AssetSourceType?.trim();
  if (source && source.toLowerCase() !== 'discoveryscan')
    throw invalid(
      at('assetSourceType'),
      `'${source}' is not an asset source Rampart follows (only DiscoveryScan)`,
    );
  const discoveryScanId = idOf(m.DiscoveryScanId, at('discoveryScanId'));
  if (!discoveryScanId)
    throw invalid(at('discoveryScanId'), 'names the discovery scan to follow and is needed');
  // A new configuration comes with no id, an empty one or the nil UUID; any other text is not ours.
  const id = m.Id && UUID.test(m.Id.trim()) && m.Id.trim() !== NIL ? m.Id.trim().toLowerCase() : null;
  return {
    id,
    isActive: flag(m.IsActive, at('isActive'), true),
    discoveryScanId,
    scheduleId: idOf(m.ScheduleId, at('scheduleId')),
    system: {
      track: flag(m.TrackSystemScans, at('trackSystemScans'), false),
      removeWhenUndiscovered: flag(
        m.RemoveSystemScanWhenUndiscovered,
        at('removeSystemScanWhenUndiscovered'),
        false,
      ),
      runImmediatelyAfterAdd: flag(
        m.RunSystemScanImmediatelyAfterAdd,
        at('runSystemScanImmediatelyAfterAdd'),
        false,
      ),
      runImmediatelyIfNewServicesDiscovered: flag(
        m.RunSystemScanImmediatelyIfNewServicesDiscovered,
        at('runSystemScanImmediatelyIfNewServicesDiscovered'),
        false,
      ),
    },
    web: {
      track: flag(m.TrackWebScans, at('trackWebScans'), false),
      removeWhenUndiscovered: flag(
        m.RemoveWebScanWhenUndiscovered,
        at('removeWebScanWhenUndiscovered'),
        false,
      ),
      runImmediatelyAfterAdd: flag(
        m.RunWebScanImmediatelyAfterAdd,
        at('runWebScanImmediatelyAfterAdd'),
        false,
      ),
      httpPorts: m.TrackedHttpPortRangeForWebScan?.trim() ?? '80',
      httpsPorts: m.TrackedHttpsPortRangeForWebScan?.trim() ?? '443',
    },
  };
}

function settings(
  enabled: boolean | string | null | undefined,
  max: number | string | null | undefined,
  templateId: string | null | undefined,
  nodeId: string | null | undefined,
  scheduleId: string | null | undefined,
  schedule: GroupScanSettings['schedule'] | undefined,
  kind: 'System' | 'Web',
): GroupScanSettings {
  const field = (name: string) => [`${kind.toLowerCase()}Scan${name}`];
  return {
    enabled: flag(enabled, field('SettingsEnabled'), false),
    maxScans: count(max, [`max${kind}Scans`], DEFAULT_MAX_SCANS),
    templateId: idOf(templateId, field('TemplateId')),
    nodeId: idOf(nodeId, field('NodeId')),
    scheduleId: idOf(scheduleId, field('ScheduleId')),
    schedule: schedule ?? null,
  };
}

export function scanGroupInputOf(b: Static<typeof ScanGroupBody>): ScanGroupInput {
  const name = (b.ScanGroupName ?? b.Name ?? '').trim();
  if (!name) throw invalid('scanGroupName', 'A scan group needs a name.');
  const modeText = b.ScanningMode?.trim() || 'RegularScan';
  const scanningMode = SCANNING_MODES.find((m) => m.toLowerCase() === modeText.toLowerCase());
  if (!scanningMode)
    throw invalid('scanningMode', `'${modeText}' is not one of ${SCANNING_MODES.join(', ')}`);
  return {
    name,
    description: textOrNull(b.ScanDescription ?? b.Description),
    responsibleUserId: idOf(b.ResponsiblePersonId, ['responsiblePersonId']),
    scanningMode,
    system: settings(
      b.SystemScanSettingsEnabled,
      b.MaxSystemScans,
      b.SystemScanTemplateId,
      b.SystemScanNodeId,
      b.SystemScanScheduleId,
      b.SystemScanSchedule,
      'System',
    ),
    web: settings(
      b.WebScanSettingsEnabled,
      b.MaxWebScans,
      b.WebScanTemplateId,
      b.WebScanNodeId,
      b.WebScanScheduleId,
      b.WebScanSchedule,
      'Web',
    ),
    notifications: notifications(b),
    monitors: (b.AssetMonitoringConfigurations ?? []).map(monitor),
  };
}
