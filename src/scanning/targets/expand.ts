// From scan targets to the addresses a run probes: each address once, however the targets overlap,
// without the exclusions, lazily (a /16 is walked, never listed up front). Host names count as one
// address in counts and are resolved when the walk reaches them.
import { promises as dns } from 'node:dns';
import type { ScanTarget } from '../types.js';
import { formatAddress, type Interval, IntervalSet, parseAddress, sizeOf } from './addresses.js';
import { isRefusal, type ParsedTarget, parseTarget } from './parse.js';
import { matchesName, type TargetSet, targetSet } from './policy.js';

export interface ExpandedAddress {
  address: string;
  target: ScanTarget;
  /** The host name the address was resolved from, or null for ranges. */
  hostname: string | null;
}

export type Resolver = (name: string) => Promise<string[]>;

async function lookupAll(name: string): Promise<string[]> {
  const found = await dns.lookup(name, { all: true });
  return found.map((entry) => entry.address);
}

/** How many addresses the targets cover once exclusions are left out; a host name counts 1. */
export function countAddresses(targets: ScanTarget[], exclusions: string[]): number {
  const scanWide = targetSet(exclusions);
  const union = new IntervalSet();
  const names = new Set<string>();
  for (const target of targets) {
    const parsed = parseScanTarget(target);
    const own = targetSet(target.exclude ?? []);
    if (parsed.kind === 'host') {
      if (!matchesName(own, parsed.name) && !matchesName(scanWide, parsed.name)) names.add(parsed.name);
      continue;
    }
    for (const part of scannableParts(parsed.interval, parsed.form))
      for (const kept of own.ranges.subtractFrom(part)) union.add(kept);
  }
  return Number(union.minus(scanWide.ranges).size()) + names.size;
}

/**
 * Every address of the targets once, in target order, leaving out the scan-wide exclusions and
 * each target's own. Host names are resolved through `resolve` (the system resolver by default);
 * a name that does not resolve is reported to `onUnresolved` and skipped.
 */
export async function* expandTargets(
  targets: ScanTarget[],
  exclusions: string[],
  resolve: Resolver = lookupAll,
  onUnresolved?: (name: string, target: ScanTarget, error: unknown) => void,
): AsyncIterable<ExpandedAddress> {
  const scanWide = targetSet(exclusions);
  // Addresses already handed out (or excluded), so overlapping targets never repeat one.
  const done = new IntervalSet();
  done.addAll(scanWide.ranges);
  for (const target of targets) {
    const parsed = parseScanTarget(target);
    const own = targetSet(target.exclude ?? []);
    if (parsed.kind === 'host') {
      yield* resolvedAddresses(parsed.name, target, own, scanWide, done, resolve, onUnresolved);
      continue;
    }
    const parts: Interval[] = [];
    for (const part of scannableParts(parsed.interval, parsed.form))
      for (const kept of own.ranges.subtractFrom(part)) parts.push(...done.subtractFrom(kept));
    for (const part of parts) done.add(part);
    for (const part of parts)
      for (let value = part.first; value <= part.last; value++)
        yield { address: formatAddress(part.family, value), target, hostname: null };
  }
}

async function* resolvedAddresses(
  name: string,
  target: ScanTarget,
  own: TargetSet,
  scanWide: TargetSet,
  done: IntervalSet,
  resolve: Resolver,
  onUnresolved?: (name: string, target: ScanTarget, error: unknown) => void,
): AsyncIterable<ExpandedAddress> {
  if (matchesName(own, name) || matchesName(scanWide, name)) return;
  let addresses: string[];
  try {
    addresses = await resolve(name);
  } catch (error) {
    onUnresolved?.(name, target, error);
    return;
  }
  if (addresses.length === 0) onUnresolved?.(name, target, new Error(`${name} has no address.`));
  for (const text of addresses) {
    const address = parseAddress(text);
    if (!address || done.has(address.family, address.value) || own.ranges.has(address.family, address.value))
      continue;
    done.add({ family: address.family, first: address.value, last: address.value });
    yield { address: formatAddress(address.family, address.value), target, hostname: name };
  }
}

/** A CIDR larger than a /31 leaves out its network and broadcast addresses (IPv4 only: IPv6 has no broadcast). */
function scannableParts(interval: Interval, form: 'cidr' | 'range' | 'address'): Interval[] {
  if (form !== 'cidr' || interval.family !== 4 || sizeOf(interval) <= 2n) return [interval];
  return [{ family: 4, first: interval.first + 1n, last: interval.last - 1n }];
}

function parseScanTarget(target: ScanTarget): Exclude<ParsedTarget, { kind: 'wildcard' }> {
  const parsed = parseTarget(target.range);
  if (isRefusal(parsed)) throw new Error(parsed.message);
  if (parsed.kind === 'wildcard') throw new Error(`"${target.range}": wildcards are not scan targets.`);
  return parsed;
}
