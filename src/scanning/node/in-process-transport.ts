import type { ScanNode } from '../../modules/scannodes/types.js';
import type { ScanRunService } from '../../modules/scanruns/service.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ScanKind } from '../types.js';
import {
  type BatchAnswer,
  type ClaimedRun,
  type FinishState,
  type HeartbeatAnswer,
  type HeartbeatInput,
  LeaseLostError,
  type NodeTransport,
  NodeUnauthorizedError,
} from './transport.js';

/** The same answers as HTTP gives, as errors the agent understands. */
async function translated<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError && error.problem === Problems.Conflict)
      throw new LeaseLostError(error.detail);
    if (error instanceof AppError && error.problem === Problems.Unauthenticated)
      throw new NodeUnauthorizedError(error.detail);
    throw error;
  }
}

/** The local node's transport: the scan run service, called directly inside the server. */
export class InProcessNodeTransport implements NodeTransport {
  constructor(
    private readonly scanRuns: ScanRunService,
    private node: ScanNode,
  ) {}

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatAnswer> {
    const answer = await translated(() => this.scanRuns.heartbeat(this.node, input));
    this.node = answer.node;
    return { stopRunIds: answer.stopRunIds, lostRunIds: answer.lostRunIds };
  }

  claim(kinds: ScanKind[]): Promise<ClaimedRun | null> {
    return translated(() => this.scanRuns.claim(this.node, kinds));
  }

  sendBatch(
    runId: string,
    attempt: number,
    seq: number,
    batch: { items: unknown[]; progress: { done: number; total: number; found: number } | null },
  ): Promise<BatchAnswer> {
    return translated(() =>
      this.scanRuns.batch(this.node, {
        runId,
        attempt,
        seq,
        items: batch.items,
        ...(batch.progress ? { progress: batch.progress } : {}),
      }),
    );
  }

  async finish(runId: string, attempt: number, state: FinishState, error?: string): Promise<void> {
    await translated(() => this.scanRuns.finish(this.node, { runId, attempt, state, error }));
  }
}
