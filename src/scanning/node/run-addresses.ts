import { compilePolicy, expandTargets, type Resolver } from '../targets/index.js';
import type { ScanTarget, TargetPolicy, TargetRefusal } from '../types.js';
import { type RunRefusalReport, unresolved } from './refusals.js';

/** What a run of targets gives its engine: the addresses, in order, and the node's check of each. */
export interface RunAddresses {
  /** Each address of the targets, less the exclusions, one at a time (a /16 is never held). */
  addresses: AsyncIterable<string>;
  /** The policy's verdict on an address, right before its first packet. */
  check(address: string): TargetRefusal | null;
  /** address → the host name the target gave it by (filled as addresses are taken). */
  hostnames: Map<string, string>;
}

/**
 * A run's targets as a node takes them: expanded address by address, a host-name target's
 * addresses allowed when the organisation's policy (as the run carries it) allows the name, and
 * every name that did not resolve reported as a refusal of the run.
 */
export function runAddresses(
  spec: { targets: ScanTarget[]; exclusions: string[]; policy: TargetPolicy },
  resolve: Resolver | undefined,
  refusals: RunRefusalReport,
): RunAddresses {
  const policy = compilePolicy(spec.policy);
  // Addresses a host-name target resolved to, by name: allowed when the policy allows the name.
  const allowedNames = new Map<string, string[]>();
  const hostnames = new Map<string, string>();
  const expanded = expandTargets(spec.targets, spec.exclusions, resolve, (name, _target, error) =>
    refusals.refused(name, unresolved(name, error)),
  );
  async function* addresses() {
    for await (const a of expanded) {
      if (a.hostname) {
        hostnames.set(a.address, a.hostname);
        if (policy.allowsName(a.hostname))
          allowedNames.set(a.hostname, [...(allowedNames.get(a.hostname) ?? []), a.address]);
      }
      yield a.address;
    }
  }
  return {
    addresses: addresses(),
    check: (address) => policy.checkAddress(address, allowedNames),
    hostnames,
  };
}
