import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { ScanNotification } from '../savedscans/types.js';

export type { ScanNotification };

/** The scanning modes of the original service; Rampart has its regular scans. */
export const SCANNING_MODES = ['RegularScan'] as const;
export type ScanningMode = (typeof SCANNING_MODES)[number];

/** How the group's system (or web) scans are made: whether at all, how many at most, template, node, schedule. */
export interface GroupScanSettings {
  enabled: boolean;
  maxScans: number;
  /** Null: the first template of the kind (a built-in one). */
  templateId: string | null;
  nodeId: string | null;
  schedule: ScheduleOption | null;
  /** The original's schedule id, kept and answered as sent; Rampart schedules by `schedule`. */
  scheduleId: string | null;
}

/**
 * An asset monitoring configuration: follows a discovery scan's reports and adds (and removes)
 * the group's system scans host by host, and web scans host and HTTP(S) port by port.
 */
export interface AssetMonitor {
  id: string;
  isActive: boolean;
  discoveryScanId: string;
  scheduleId: string | null;
  system: {
    track: boolean;
    removeWhenUndiscovered: boolean;
    runImmediatelyAfterAdd: boolean;
    runImmediatelyIfNewServicesDiscovered: boolean;
  };
  web: {
    track: boolean;
    removeWhenUndiscovered: boolean;
    runImmediatelyAfterAdd: boolean;
    /** Port ranges such as `80,8080-8090`; empty for none. */
    httpPorts: string;
    httpsPorts: string;
  };
}

/** Something the group's monitoring did not do, and why (kept, newest last, at most 50). */
export interface GroupNote {
  at: Date;
  message: string;
}

/** What a group is set to: its name, who answers for it, its scans' settings and notifications. */
export interface ScanGroupSettings {
  name: string;
  description: string | null;
  responsibleUserId: string | null;
  scanningMode: ScanningMode;
  system: GroupScanSettings;
  web: GroupScanSettings;
  notifications: ScanNotification[];
}

export interface ScanGroup extends ScanGroupSettings {
  id: string;
  organizationId: string;
  monitors: AssetMonitor[];
  notes: GroupNote[];
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ScanGroupInput extends ScanGroupSettings {
  /** A monitor without an id gets a new one. */
  monitors: (Omit<AssetMonitor, 'id'> & { id: string | null })[];
}

/** A scan of a group, as the original lists them. */
export interface GroupScanSummary {
  id: string;
  name: string;
  hostname: string | null;
  lastCompletedAt: Date | null;
}
