import type { RunExecutor, ScanKind } from '../types.js';

/**
 * The scan engines every node (the local one and `rampart scan-node`) runs, by kind. The discovery
 * engine registers here; a node serves exactly the kinds it has an engine for.
 */
export function builtInExecutors(): Map<ScanKind, RunExecutor> {
  return new Map();
}
