import type { ScheduleOption } from '../../jobs/schedule-option.js';
import type { ScanProgress, ScanTarget } from '../../scanning/types.js';
import type { RunRefusals } from '../scanruns/types.js';

export const NOTIFICATION_LEVELS = ['Never', 'ScanEnds', 'ScanStartsEnds', 'ScanFails'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

/** Who is told about a scan's runs (kept now; delivered once notifications exist). */
export interface ScanNotification {
  emailAddresses: string[];
  level: NotificationLevel;
}

/** A discovery scan: the ranges it covers, how (template) and where from (node). */
export interface DiscoveryScan {
  id: string;
  organizationId: string;
  name: string;
  targets: ScanTarget[];
  exclusions: string[];
  templateId: string;
  nodeId: string | null;
  schedule: ScheduleOption | null;
  notifications: ScanNotification[];
  responsibleUserId: string | null;
  createdBy: string | null;
  lastRunId: string | null;
  lastCompletedRunId: string | null;
  lastCompletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DiscoveryScanInput {
  name: string;
  targets: ScanTarget[];
  exclusions: string[];
  templateId: string;
  nodeId: string | null;
  notifications: ScanNotification[];
  responsibleUserId: string | null;
  /** The original's ScheduleOption; null or `None`: run on demand only. */
  schedule: ScheduleOption | null;
}

/** The states of a scan's run, and Idle for a scan that never ran. */
export type DiscoveryRunState =
  | 'Idle'
  | 'Queued'
  | 'Running'
  | 'Stopping'
  | 'Completed'
  | 'Failed'
  | 'Stopped';

/** What this module needs to know of a scan run (the scanruns module owns them). */
export interface DiscoveryRun {
  id: string;
  organizationId: string;
  sourceId: string;
  state: Exclude<DiscoveryRunState, 'Idle'>;
  attempt: number;
  progress: ScanProgress;
  nodeId: string | null;
  claimedBy: string | null;
  /** What the run was asked to do (its targets and the policy when it started). */
  spec?: unknown;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
  /** Addresses the node refused (the scanruns module keeps them). */
  refused?: RunRefusals;
  createdAt: Date;
}

export type HostStatus = 'Found' | 'New' | 'Seen' | 'Gone';

/** A host in a run's report: what the run saw, and whether it is new or gone since the run before. */
export interface ReportHost {
  address: string;
  hostname: string | null;
  macAddress: string | null;
  osGuess: string | null;
  openPorts: number[];
  closedPorts: number[];
  status: HostStatus;
  assetId: string | null;
  seenAt: Date;
  firstSeenAt: Date | null;
  lastSeenAt: Date | null;
}
