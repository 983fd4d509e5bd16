import type { Clock } from '../../lib/clock.js';
import type { ScanNodeService } from '../../modules/scannodes/service.js';
import type { ScanRunService } from '../../modules/scanruns/service.js';
import type { RunExecutor, ScanKind } from '../types.js';
import { ScanNodeAgent } from './agent.js';
import { InProcessNodeTransport } from './in-process-transport.js';

export interface LocalNodeOptions {
  scanNodes: ScanNodeService;
  scanRuns: ScanRunService;
  clock: Clock;
  executors: ReadonlyMap<ScanKind, RunExecutor>;
  version: string;
  /** Runs at once (default 2). */
  capacity?: number;
  log?: (message: string, details?: Record<string, unknown>) => void;
  /**
   * Queue again at once the runs this node held: only where no other process can be running it
   * (the embedded database). Elsewhere they wait out their leases, as any silent node's do.
   */
  releaseHeld?: boolean;
}

/**
 * The scan node inside the server (RAMPART_LOCAL_SCAN_NODE): the same agent as `rampart scan-node`,
 * speaking to the services directly. It serves every organisation and the kinds it has engines for.
 */
export async function createLocalNode(options: LocalNodeOptions): Promise<ScanNodeAgent> {
  const capacity = options.capacity ?? 2;
  const node = await options.scanNodes.ensureLocal({
    kinds: [...options.executors.keys()],
    version: options.version,
    capacity,
  });
  // The runs a stopped process's local node held are taken up now, not after their leases.
  if (options.releaseHeld) await options.scanRuns.releaseRunsOf(node.id);
  return new ScanNodeAgent({
    transport: new InProcessNodeTransport(options.scanRuns, node),
    executors: options.executors,
    capacity,
    version: options.version,
    clock: options.clock,
    unref: true,
    ...(options.log ? { log: options.log } : {}),
  });
}
