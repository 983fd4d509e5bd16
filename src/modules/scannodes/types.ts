import type { ScanKind } from '../../scanning/types.js';

/** Online while its last heartbeat is under 60 seconds old by the application clock. */
export type ScanNodeState = 'Online' | 'Offline';

/** A scan node: an agent that claims scan runs and executes them (or the server's own local node). */
export interface ScanNode {
  id: string;
  /** Null for the built-in local node, which serves every organisation and is listed in each. */
  organizationId: string | null;
  name: string;
  kinds: ScanKind[];
  version: string;
  /** Runs it executes at once. */
  capacity: number;
  local: boolean;
  lastHeartbeatAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  state: ScanNodeState;
}

/** A one-time enrolment token, as its Admin sees it once. */
export interface ScanNodeEnrolment {
  id: string;
  organizationId: string;
  expiresAt: Date;
  createdAt: Date;
}

/** What a node tells about itself when it enrols or heartbeats. */
export interface ScanNodeDescription {
  name?: string;
  kinds?: ScanKind[];
  version?: string;
  capacity?: number;
}
