import { systemClock } from '../../lib/clock.js';
import { compilePolicy } from '../targets/index.js';
import type { RunExecutorOf } from '../types.js';
import { webScan } from '../web/index.js';

export interface WebExecutorOptions {
  /** Forward lookups of the URLs' host names (default: the system's resolver). */
  resolve?: (name: string) => Promise<string[]>;
  /** The application's clock (default: the system's). */
  now?: () => Date;
  /** Where the other scheme of a host is tried (default http 80, https 443). */
  counterpartPorts?: { http: number; https: number };
}

/**
 * The web engine as a node runs it, given a spec checked against the contract: each URL's host
 * resolved and checked against the organisation's policy as the run carries it before any packet
 * is sent to it (a host name the policy allows allows the addresses it resolves to), results
 * emitted as each URL finishes.
 */
export function webExecutor(options: WebExecutorOptions = {}): RunExecutorOf<'Web'> {
  return async (spec, context) => {
    const policy = compilePolicy(spec.policy);
    const counts = await webScan(spec.urls, spec.template, {
      signal: context.signal,
      check: (address, hostname) => {
        const names = hostname && policy.allowsName(hostname) ? new Map([[hostname, [address]]]) : undefined;
        const refusal = policy.checkAddress(address, names);
        if (refusal) context.log('address refused', { address, hostname, rule: refusal.rule });
        return refusal;
      },
      now: options.now ?? systemClock,
      onUrl: (result) => context.emit([result]),
      onProgress: (progress) => context.progress(progress),
      ...(options.resolve ? { resolve: options.resolve } : {}),
      ...(options.counterpartPorts ? { counterpartPorts: options.counterpartPorts } : {}),
    });
    context.log('web scan finished', { ...counts });
  };
}
