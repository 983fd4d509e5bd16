import { systemClock } from '../../lib/clock.js';
import { nmapAvailable } from '../discovery/index.js';
import { systemScan } from '../system/index.js';
import type { Resolver } from '../targets/index.js';
import type { RunExecutorOf } from '../types.js';
import { RunRefusalReport } from './refusals.js';
import { runAddresses } from './run-addresses.js';

export interface SystemExecutorOptions {
  /** Forward lookups of host-name targets (default: the system's resolver). */
  resolve?: Resolver;
  /** The application's clock (certificate expiry). */
  now?: () => Date;
  /** nmap's path when the template asks for it; default: `nmap` when it runs from PATH. */
  nmapPath?: () => Promise<string | null>;
}

/**
 * The system scan engine as a node runs it, given a spec checked against the contract: the run's
 * targets expanded address by address, each checked against the organisation's policy before any
 * packet, each host emitted as it finishes.
 */
export function systemExecutor(options: SystemExecutorOptions = {}): RunExecutorOf<'System'> {
  return async (spec, context) => {
    const refusals = new RunRefusalReport(context);
    const { addresses, check, hostnames } = runAddresses(spec, options.resolve, refusals);
    const nmapPath = spec.template.useNmapVersionDetection ? await (options.nmapPath ?? defaultNmap)() : null;
    if (spec.template.useNmapVersionDetection && !nmapPath)
      context.log('nmap is not installed on this node: Rampart detections only');
    const counts = await systemScan(addresses, spec.template, {
      signal: context.signal,
      check,
      now: options.now ?? systemClock,
      nmapPath,
      hostnames,
      portsOverride: spec.portsOverride ?? null,
      onHost: (host) => context.emit([host]),
      onProgress: (progress) => context.progress(progress),
      onRefused: refusals.refused,
      log: (message, details) => context.log(message, details),
    });
    context.log('system scan finished', { ...counts });
    await refusals.finish(counts.scanned);
  };
}

async function defaultNmap(): Promise<string | null> {
  return (await nmapAvailable()) ? 'nmap' : null;
}
