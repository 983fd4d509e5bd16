import type { VerifyResult } from './service.js';

export const toVerifyResultDto = (r: VerifyResult) => ({
  Runs: r.runs.map((run) => ({
    RunId: run.runId,
    ScanId: run.scanId,
    Kind: run.kind,
    FindingIds: run.findingIds,
  })),
  Skipped: r.skipped.map((s) => ({ FindingId: s.findingId, Reason: s.reason })),
});
