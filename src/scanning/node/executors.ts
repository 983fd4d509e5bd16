import { type Clock, systemClock } from '../../lib/clock.js';
import type { RunExecutor, ScanKind } from '../types.js';
import { discoveryExecutor } from './discovery-executor.js';
import { systemExecutor } from './system-executor.js';
import { webExecutor } from './web-executor.js';

/**
 * The scan engines every node (the local one and `rampart scan-node`) runs, by kind. A node
 * serves exactly the kinds it has an engine for. `clock` is the application's: certificates are
 * judged expired by it, as everything else in Rampart is.
 */
export function builtInExecutors(clock: Clock = systemClock): Map<ScanKind, RunExecutor> {
  return new Map<ScanKind, RunExecutor>([
    ['Discovery', discoveryExecutor()],
    ['System', systemExecutor({ now: clock })],
    ['Web', webExecutor({ now: clock })],
  ]);
}
