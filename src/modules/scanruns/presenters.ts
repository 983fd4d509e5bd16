import type { ClaimedRun, RunRefusals, ScanRun } from './types.js';

// How scan runs look on the wire. The spec is held back from listings (it carries the
// organisation's target policy); only the node that claims a run receives it.

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toRunRefusalsDto = (r: RunRefusals) => ({
  Count: r.count,
  Addresses: r.addresses.map((a) => ({ Address: a.address, Rule: a.rule, Message: a.message })),
});

export const toScanRunDto = (r: ScanRun) => ({
  Id: r.id,
  Kind: r.kind,
  SourceId: r.sourceId,
  SourceName: r.sourceName,
  NodeId: r.nodeId,
  ClaimedBy: r.claimedBy,
  State: r.state,
  Attempt: r.attempt,
  Progress: { Done: r.progress.done, Total: r.progress.total, Found: r.progress.found },
  QueuedAt: r.queuedAt.toISOString(),
  StartedAt: iso(r.startedAt),
  FinishedAt: iso(r.finishedAt),
  Error: r.error,
  Refused: toRunRefusalsDto(r.refused),
  StopRequested: r.stopRequested,
  CreatedAt: r.createdAt.toISOString(),
  History: r.history.map((h) => ({
    At: h.at.toISOString(),
    State: h.state,
    Attempt: h.attempt,
    NodeId: h.nodeId,
    Message: h.message,
  })),
});

export const toClaimedRunDto = (r: ClaimedRun) => ({
  Id: r.id,
  Kind: r.kind,
  Attempt: r.attempt,
  Spec: r.spec,
});

export const toBatchAnswerDto = (a: { applied: boolean; stopRequested: boolean }) => ({
  Applied: a.applied,
  StopRequested: a.stopRequested,
});
