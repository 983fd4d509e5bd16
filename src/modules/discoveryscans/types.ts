import type { ScanTarget } from '../../scanning/types.js';
import type { SavedScan, SavedScanRun, SavedScanWrite, ScanNotification } from '../savedscans/types.js';

/** A discovery scan: the ranges it covers, how (template) and where from (node). */
export interface DiscoveryScan extends SavedScan {
  targets: ScanTarget[];
  exclusions: string[];
  notifications: ScanNotification[];
  responsibleUserId: string | null;
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
  schedule: SavedScanWrite['schedule'];
}

export interface DiscoveryScanWrite extends SavedScanWrite {
  targets: ScanTarget[];
  exclusions: string[];
  notifications: ScanNotification[];
  responsibleUserId: string | null;
}

/** A run of a discovery scan (the scanruns module owns them). */
export type DiscoveryRun = SavedScanRun;

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
