import type { RunExecutor, ScanKind } from '../types.js';
import { discoveryExecutor } from './discovery-executor.js';
import { systemExecutor } from './system-executor.js';
import { webExecutor } from './web-executor.js';

/**
 * The scan engines every node (the local one and `rampart scan-node`) runs, by kind. A node
 * serves exactly the kinds it has an engine for.
 */
export function builtInExecutors(): Map<ScanKind, RunExecutor> {
  return new Map<ScanKind, RunExecutor>([
    ['Discovery', discoveryExecutor()],
    ['System', systemExecutor()],
    ['Web', webExecutor()],
  ]);
}
