import { discover, type NeighbourTable } from '../discovery/index.js';
import { countAddresses, type Resolver } from '../targets/index.js';
import type { RunExecutorOf } from '../types.js';
import { RunRefusalReport } from './refusals.js';
import { runAddresses } from './run-addresses.js';

export interface DiscoveryExecutorOptions {
  /** PTR lookups (default: the system's resolver). */
  reverse?: (address: string) => Promise<string[]>;
  /** Forward lookups of host-name targets (default: the system's resolver). */
  resolve?: Resolver;
  /** The neighbour table (default: this machine's). */
  neighbours?: () => Promise<NeighbourTable>;
}

/**
 * The discovery engine as a node runs it, given a spec checked against the contract: the run's
 * targets expanded address by address, each address checked against the organisation's policy as
 * the run carries it before any packet is sent to it, live hosts emitted as they are found.
 */
export function discoveryExecutor(options: DiscoveryExecutorOptions = {}): RunExecutorOf<'Discovery'> {
  return async (spec, context) => {
    const refusals = new RunRefusalReport(context);
    const { addresses, check } = runAddresses(spec, options.resolve, refusals);
    const counts = await discover(addresses, countAddresses(spec.targets, spec.exclusions), spec.template, {
      signal: context.signal,
      check,
      onHost: (host) => context.emit([host]),
      onProgress: (progress) => context.progress(progress),
      onRefused: refusals.refused,
      ...(options.reverse ? { reverse: options.reverse } : {}),
      ...(options.neighbours ? { neighbours: options.neighbours } : {}),
    });
    context.log('discovery finished', { ...counts });
    await refusals.finish(counts.done - counts.refused);
  };
}
