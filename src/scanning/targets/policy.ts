// The rules that keep every packet on allowed targets. The server judges scan targets with
// checkTarget when a scan is saved and started; the node judges each concrete address with a
// compiled policy before it sends anything to it.
import type { TargetPolicy, TargetRefusal } from '../types.js';
import { formatInterval, type Interval, IntervalSet, parseAddress, sizeOf } from './addresses.js';
import { ALWAYS_REFUSED, blockOverlap, LOOPBACK, loopbackName } from './blocks.js';
import { isRefusal, type ParsedTarget, parseTarget } from './parse.js';

/** One target at most a /16: 65,536 addresses, in IPv4 and IPv6 alike. */
export const MAX_TARGET_ADDRESSES = 65_536;

export const NOTHING_ALLOWED =
  'No scan target is allowed yet: an Admin allows ranges under Settings, Allowed scan targets.';

/** Host names and "*." wildcards of a policy side, with the address ranges. */
export interface TargetSet {
  ranges: IntervalSet;
  names: Set<string>;
  /** Wildcard suffixes (".example.com"): any name below, at any depth, never the domain itself. */
  suffixes: string[];
  texts: string[];
}

export interface CompiledPolicy {
  readonly allowLoopback: boolean;
  readonly allowed: TargetSet;
  readonly excluded: TargetSet;
  checkAddress(address: string, allowedNames?: ReadonlyMap<string, string[]>): TargetRefusal | null;
  /** A scan target's check; `exclusions` (the target's own and the scan's) subtract like policy exclusions. */
  checkTarget(text: string, exclusions?: string[]): TargetRefusal | null;
  allowsName(name: string): boolean;
}

/**
 * Builds a policy's sets once, for the hot path. An allowed entry that does not parse allows
 * nothing; an excluded one that does not parse throws, since ignoring it would let its addresses
 * through (stored entries are canonical, so neither happens unless the policy was forged).
 */
export function compilePolicy(policy: TargetPolicy): CompiledPolicy {
  for (const text of policy.excluded) {
    const parsed = parseTarget(text);
    if (isRefusal(parsed))
      throw new Error(`The policy's exclusion "${text}" does not parse: ${parsed.message}`);
  }
  const allowed = targetSet(policy.allowed);
  const excluded = targetSet(policy.excluded);
  const resolvedCache = new WeakMap<ReadonlyMap<string, string[]>, Set<string>>();

  const allowsName = (name: string): boolean => matchesName(allowed, name) && !matchesName(excluded, name);

  const addressesOfAllowedNames = (names: ReadonlyMap<string, string[]>): Set<string> => {
    let set = resolvedCache.get(names);
    if (!set) {
      set = new Set();
      for (const [name, addresses] of names) {
        if (!allowsName(name.toLowerCase().replace(/\.$/, ''))) continue;
        for (const text of addresses) {
          const address = parseAddress(text);
          if (address) set.add(`${address.family}:${address.value}`);
        }
      }
      resolvedCache.set(names, set);
    }
    return set;
  };

  const checkAddress = (text: string, allowedNames?: ReadonlyMap<string, string[]>): TargetRefusal | null => {
    const address = parseAddress(text.trim());
    if (!address) return { rule: 'Syntax', message: `"${text}" is not an IP address.` };
    const point: Interval = { family: address.family, first: address.value, last: address.value };
    const refusal = blockRefusal(text, point, policy.allowLoopback);
    if (refusal) return refusal;
    if (excluded.ranges.has(address.family, address.value))
      return { rule: 'Excluded', message: `${text} is excluded from scans.` };
    if (allowed.ranges.has(address.family, address.value)) return null;
    if (allowedNames?.size && addressesOfAllowedNames(allowedNames).has(`${address.family}:${address.value}`))
      return null;
    return { rule: 'NotAllowed', message: `${text} is not inside the allowed scan targets.` };
  };

  const checkTarget = (text: string, exclusions: string[] = []): TargetRefusal | null => {
    const named = nameRefusal(text, policy.allowLoopback);
    if (named) return named;
    const parsed = parseTarget(text);
    if (isRefusal(parsed)) return parsed;
    if (parsed.kind === 'wildcard')
      return {
        rule: 'Syntax',
        message: `"${text.trim()}": wildcards are for allowed targets, not scan targets.`,
      };
    if (parsed.kind === 'host') {
      const extra = targetSet(exclusions);
      if (matchesName(excluded, parsed.name) || matchesName(extra, parsed.name))
        return { rule: 'Excluded', message: `${parsed.name} is excluded from scans.` };
      if (matchesName(allowed, parsed.name)) return null;
      return {
        rule: 'NotAllowed',
        message: `The host name ${parsed.name} is not allowed: an Admin allows it (or a *. wildcard above it) under Settings, Allowed scan targets.`,
      };
    }
    return rangeRefusal(parsed, exclusions);
  };

  const rangeRefusal = (
    parsed: ParsedTarget & { kind: 'range' },
    exclusions: string[],
  ): TargetRefusal | null => {
    const { interval, text } = parsed;
    const size = sizeOf(interval);
    if (size > BigInt(MAX_TARGET_ADDRESSES))
      return {
        rule: 'TooLarge',
        message: `${text} has ${size.toLocaleString('en')} addresses: one target may have at most ${MAX_TARGET_ADDRESSES.toLocaleString('en')} (a /16).`,
      };
    const refusal = blockRefusal(text, interval, policy.allowLoopback);
    if (refusal) return refusal;
    const left = IntervalSet.of([interval]).minus(excluded.ranges).minus(targetSet(exclusions).ranges);
    if (left.isEmpty())
      return {
        rule: 'Excluded',
        message: `${text} is ${interval.first === interval.last ? '' : 'wholly '}excluded from scans.`,
      };
    if (allowed.ranges.isEmpty() && allowed.names.size === 0 && allowed.suffixes.length === 0)
      return { rule: 'NotAllowed', message: NOTHING_ALLOWED };
    const outside = left.minus(allowed.ranges).intervals()[0];
    if (!outside) return null;
    const part = formatInterval(outside);
    return {
      rule: 'NotAllowed',
      message:
        part === text
          ? `${text} is not inside the allowed scan targets.`
          : `${text} is not wholly inside the allowed scan targets: ${part} is not allowed.`,
    };
  };

  return { allowLoopback: policy.allowLoopback, allowed, excluded, checkAddress, checkTarget, allowsName };
}

/** The refusal for a range (or one address) that touches always-refused or, unless allowed, loopback addresses. */
export function blockRefusal(text: string, interval: Interval, allowLoopback: boolean): TargetRefusal | null {
  const always = blockOverlap(text, interval, ALWAYS_REFUSED);
  if (always) return { rule: 'AlwaysRefused', message: `${always}, which is never scanned.` };
  const loopback = allowLoopback ? null : blockOverlap(text, interval, LOOPBACK);
  if (loopback)
    return {
      rule: 'Loopback',
      message: `${loopback}, which is scanned only when the server sets RAMPART_SCAN_ALLOW_LOOPBACK=true.`,
    };
  return null;
}

/** Whether an address (text) is a loopback one: 127.0.0.0/8, ::1, or their IPv4-mapped forms. */
export function isLoopbackAddress(text: string): boolean {
  const address = parseAddress(text.trim());
  if (!address) return false;
  const point: Interval = { family: address.family, first: address.value, last: address.value };
  return blockOverlap(text, point, LOOPBACK) !== null;
}

/** The refusal for a host name that means loopback (`localhost`, `*.localhost`, …), unless allowed. */
export function nameRefusal(text: string, allowLoopback: boolean): TargetRefusal | null {
  const loopback = allowLoopback ? null : loopbackName(text);
  if (!loopback) return null;
  return {
    rule: 'Loopback',
    message: `${loopback}, which is scanned only when the server sets RAMPART_SCAN_ALLOW_LOOPBACK=true.`,
  };
}

export function targetSet(texts: readonly string[]): TargetSet {
  const ranges: Interval[] = [];
  const set: TargetSet = { ranges: new IntervalSet(), names: new Set(), suffixes: [], texts: [...texts] };
  for (const text of texts) {
    const parsed = parseTarget(text);
    if (isRefusal(parsed)) continue;
    if (parsed.kind === 'range') ranges.push(parsed.interval);
    else if (parsed.kind === 'host') set.names.add(parsed.name);
    else set.suffixes.push(parsed.suffix);
  }
  set.ranges = IntervalSet.of(ranges);
  return set;
}

export function matchesName(set: TargetSet, name: string): boolean {
  return set.names.has(name) || set.suffixes.some((suffix) => name.endsWith(suffix));
}

/** The server's check of one scan target against a policy. */
export function checkTarget(text: string, policy: TargetPolicy): TargetRefusal | null {
  return compilePolicy(policy).checkTarget(text);
}

/** The node's check of one concrete address; compile the policy once instead on a hot path. */
export function checkAddress(
  address: string,
  policy: TargetPolicy,
  allowedNames?: ReadonlyMap<string, string[]>,
): TargetRefusal | null {
  return compilePolicy(policy).checkAddress(address, allowedNames);
}

/**
 * Whether an Admin may store this entry. Allowed entries obey the target rules (syntax, at most a
 * /16, nothing always refused, loopback only when the server allows it); wildcards are fine.
 * Excluded entries only need to parse: excluding more can never let a packet through.
 */
export function checkPolicyEntry(
  kind: 'Allowed' | 'Excluded',
  text: string,
  allowLoopback: boolean,
): { target: string; addressCount: number | null } | TargetRefusal {
  if (kind === 'Allowed') {
    const named = nameRefusal(text, allowLoopback);
    if (named) return named;
  }
  const parsed = parseTarget(text);
  if (isRefusal(parsed)) return parsed;
  if (kind === 'Allowed' && parsed.kind === 'range') {
    const size = sizeOf(parsed.interval);
    if (size > BigInt(MAX_TARGET_ADDRESSES))
      return {
        rule: 'TooLarge',
        message: `${parsed.text} has ${size.toLocaleString('en')} addresses: an allowed range may have at most ${MAX_TARGET_ADDRESSES.toLocaleString('en')} (a /16); add several.`,
      };
    const refusal = blockRefusal(parsed.text, parsed.interval, allowLoopback);
    if (refusal) return refusal;
  }
  return { target: parsed.text, addressCount: entrySize(parsed) };
}

/** Addresses in one entry: a host name counts 1, a wildcard is unknown (null). */
export function entrySize(parsed: ParsedTarget): number | null {
  if (parsed.kind === 'host') return 1;
  if (parsed.kind === 'wildcard') return null;
  return Number(sizeOf(parsed.interval));
}
