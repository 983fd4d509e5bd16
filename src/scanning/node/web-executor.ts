import { systemClock } from '../../lib/clock.js';
import { compilePolicy } from '../targets/index.js';
import type { RunExecutor, WebSpec } from '../types.js';
import { validateWebTemplate, webScan } from '../web/index.js';

export interface WebExecutorOptions {
  /** Forward lookups of the URLs' host names (default: the system's resolver). */
  resolve?: (name: string) => Promise<string[]>;
  /** The application's clock (default: the system's). */
  now?: () => Date;
  /** Where the other scheme of a host is tried (default http 80, https 443). */
  counterpartPorts?: { http: number; https: number };
}

/**
 * The web engine as a node runs it: each URL's host resolved and checked against the
 * organisation's policy as the run carries it before any packet is sent to it (a host name the
 * policy allows allows the addresses it resolves to), results emitted as each URL finishes.
 */
export function webExecutor(options: WebExecutorOptions = {}): RunExecutor {
  return async (raw, context) => {
    const spec = readSpec(raw);
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

/** The run's spec, checked: it comes over the network to a remote node. */
function readSpec(raw: unknown): WebSpec {
  const s = raw as Partial<WebSpec> | null;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (
    !s ||
    typeof s !== 'object' ||
    !strings(s.urls) ||
    !s.policy ||
    !strings(s.policy.allowed) ||
    !strings(s.policy.excluded) ||
    typeof s.policy.allowLoopback !== 'boolean' ||
    !s.template
  )
    throw new Error('The run is not a web run this node can read (urls, policy, template).');
  validateWebTemplate(s.template);
  return s as WebSpec;
}
