import type { ScanKind, ScanProgress } from '../types.js';

// How a scan node talks to its server: over HTTP for a remote node (http-transport.ts), by direct
// calls for the node inside the server (in-process-transport.ts). The agent knows only this.

/** What a node tells in a heartbeat: what it serves, and the runs it is executing. */
export interface HeartbeatInput {
  kinds: ScanKind[];
  version: string;
  capacity: number;
  runIds: string[];
}

/** Runs to stop now, and runs the node lost (queued again or ended without it). */
export interface HeartbeatAnswer {
  stopRunIds: string[];
  lostRunIds: string[];
}

/** A run as the node receives it. */
export interface ClaimedRun {
  id: string;
  kind: ScanKind;
  attempt: number;
  spec: unknown;
}

export interface BatchAnswer {
  /** False when the server had this batch already. */
  applied: boolean;
  stopRequested: boolean;
}

export type FinishState = 'Completed' | 'Failed' | 'Stopped';

/** The server no longer lets this node hold that attempt of the run (409): abandon it. */
export class LeaseLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeaseLostError';
  }
}

/** The server refuses the node's key (401): it was revoked, or the key is wrong. */
export class NodeUnauthorizedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeUnauthorizedError';
  }
}

export interface NodeTransport {
  heartbeat(input: HeartbeatInput): Promise<HeartbeatAnswer>;
  /** The oldest run the node may take among `kinds`, or null. */
  claim(kinds: ScanKind[]): Promise<ClaimedRun | null>;
  /** Sends batch `seq` of an attempt; sending the same batch again is harmless. */
  sendBatch(
    runId: string,
    attempt: number,
    seq: number,
    batch: { items: unknown[]; progress: ScanProgress | null },
  ): Promise<BatchAnswer>;
  finish(runId: string, attempt: number, state: FinishState, error?: string): Promise<void>;
}
