// Addresses as numbers: an IPv4 address is a 32-bit and an IPv6 address a 128-bit bigint, so that
// ranges, sizes and overlaps are plain arithmetic. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d)
// become their IPv4 address here, once, so that every rule judges them as IPv4.
import ipaddr from 'ipaddr.js';

export type Family = 4 | 6;

/** A closed range of addresses of one family: first ≤ last. */
export interface Interval {
  family: Family;
  first: bigint;
  last: bigint;
}

const V4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** Only the dotted four-part decimal form: ipaddr.js also takes 0x7f.1 and 2130706433, which hide addresses. */
const V4_PATTERN = new RegExp(`^${V4_OCTET}(?:\\.${V4_OCTET}){3}$`);
const V6_CHARACTERS = /^[0-9a-fA-F:.]+$/;

export const MAPPED_PREFIX = 0xffffn << 32n;
const V4_SPACE = 1n << 32n;

/** Parses one address, or returns null when the text is not one (zone identifiers are refused). */
export function parseAddress(text: string): { family: Family; value: bigint } | null {
  if (V4_PATTERN.test(text)) return { family: 4, value: v4Value(ipaddr.IPv4.parse(text).octets) };
  if (!text.includes(':') || !V6_CHARACTERS.test(text) || !ipaddr.IPv6.isValid(text)) return null;
  const parsed = ipaddr.IPv6.parse(text);
  // Embedded IPv4 parts in odd notations (::ffff:0x7f.1) are refused like the IPv4 forms above.
  const dotted = text.lastIndexOf(':');
  if (text.includes('.') && !V4_PATTERN.test(text.slice(dotted + 1))) return null;
  let value = 0n;
  for (const part of parsed.parts) value = (value << 16n) | BigInt(part);
  if (value >= MAPPED_PREFIX && value < MAPPED_PREFIX + V4_SPACE)
    return { family: 4, value: value - MAPPED_PREFIX };
  return { family: 6, value };
}

function v4Value(octets: number[]): bigint {
  return BigInt(((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!);
}

/** The canonical text of an address: dotted IPv4, or RFC 5952 IPv6. */
export function formatAddress(family: Family, value: bigint): string {
  if (family === 4) {
    const n = Number(value);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const parts: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) parts.push(Number((value >> shift) & 0xffffn));
  return new ipaddr.IPv6(parts).toRFC5952String();
}

export function bitsOf(family: Family): bigint {
  return family === 4 ? 32n : 128n;
}

export function cidrInterval(family: Family, value: bigint, prefix: number): Interval {
  const hostBits = bitsOf(family) - BigInt(prefix);
  const size = 1n << hostBits;
  return { family, first: value, last: value + size - 1n };
}

export function sizeOf(interval: Interval): bigint {
  return interval.last - interval.first + 1n;
}

export function formatInterval(interval: Interval): string {
  const first = formatAddress(interval.family, interval.first);
  if (interval.first === interval.last) return first;
  const size = sizeOf(interval);
  const prefix = bitsOf(interval.family) - BigInt(size.toString(2).length - 1);
  const aligned = (size & (size - 1n)) === 0n && interval.first % size === 0n;
  return aligned ? `${first}/${prefix}` : `${first}-${formatAddress(interval.family, interval.last)}`;
}

/**
 * A set of addresses kept as sorted, merged intervals per family: unions, differences and
 * membership without ever listing the addresses.
 */
export class IntervalSet {
  private readonly lists: Record<Family, Interval[]> = { 4: [], 6: [] };

  /** Sorts once and merges in one pass: a policy of thousands of entries compiles in linear time after the sort. */
  static of(intervals: Iterable<Interval>): IntervalSet {
    const set = new IntervalSet();
    const sorted = [...intervals].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    for (const interval of sorted) {
      const list = set.lists[interval.family];
      const last = list[list.length - 1];
      if (last && interval.first <= last.last + 1n) {
        if (interval.last > last.last) list[list.length - 1] = { ...last, last: interval.last };
      } else list.push({ ...interval });
    }
    return set;
  }

  intervals(family?: Family): Interval[] {
    return family ? [...this.lists[family]] : [...this.lists[4], ...this.lists[6]];
  }

  isEmpty(): boolean {
    return this.lists[4].length === 0 && this.lists[6].length === 0;
  }

  size(): bigint {
    let total = 0n;
    for (const interval of this.intervals()) total += sizeOf(interval);
    return total;
  }

  add(interval: Interval): void {
    const list = this.lists[interval.family];
    let { first, last } = interval;
    const kept: Interval[] = [];
    for (const current of list) {
      // Touching intervals merge too (last + 1 = first).
      if (current.last + 1n < first || current.first > last + 1n) kept.push(current);
      else {
        if (current.first < first) first = current.first;
        if (current.last > last) last = current.last;
      }
    }
    kept.push({ family: interval.family, first, last });
    kept.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    this.lists[interval.family] = kept;
  }

  addAll(other: IntervalSet): void {
    for (const interval of other.intervals()) this.add(interval);
  }

  /** The parts of `interval` that are not in this set. */
  subtractFrom(interval: Interval): Interval[] {
    const parts: Interval[] = [];
    let cursor = interval.first;
    for (const current of this.lists[interval.family]) {
      if (current.last < cursor) continue;
      if (current.first > interval.last) break;
      if (current.first > cursor)
        parts.push({ family: interval.family, first: cursor, last: current.first - 1n });
      cursor = current.last + 1n;
      if (cursor > interval.last) return parts;
    }
    if (cursor <= interval.last) parts.push({ family: interval.family, first: cursor, last: interval.last });
    return parts;
  }

  minus(other: IntervalSet): IntervalSet {
    const result = new IntervalSet();
    for (const interval of this.intervals())
      for (const part of other.subtractFrom(interval)) result.add(part);
    return result;
  }

  has(family: Family, value: bigint): boolean {
    return this.find(family, value) !== null;
  }

  /** Binary search: the node asks this for every address before it sends a packet. */
  find(family: Family, value: bigint): Interval | null {
    const list = this.lists[family];
    let low = 0;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const current = list[middle]!;
      if (value < current.first) high = middle - 1;
      else if (value > current.last) low = middle + 1;
      else return current;
    }
    return null;
  }

  covers(interval: Interval): boolean {
    return this.subtractFrom(interval).length === 0;
  }
}
