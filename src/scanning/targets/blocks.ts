// The addresses no configuration can allow, and loopback, which only the server's operator can
// allow (RAMPART_SCAN_ALLOW_LOOPBACK). IPv4-mapped IPv6 addresses are already IPv4 when they get
// here (see addresses.ts).
//
// Decided on purpose and NOT always refused (an Admin must still allow them like any address):
// - 198.18.0.0/15 (RFC 2544 benchmarking): the test lab's subnet; ipaddr.js calls it "reserved".
// - private (10/8, 172.16/12, 192.168/16), shared CGNAT space 100.64.0.0/10 and unique-local
//   fc00::/7: real customer networks.
// - documentation ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) and
//   192.0.0.0/24: unrouted on the Internet, harmless to allow, used by labs and examples.
// - 6to4 (2002::/16), Teredo (2001::/32) and the local-use NAT64 prefix 64:ff9b:1::/48: ordinary
//   IPv6 destinations as far as the node's kernel is concerned.
// Refused always: "this network" 0.0.0.0/8 (unspecified), 169.254.0.0/16 link-local (with the
// cloud metadata address 169.254.169.254), 224.0.0.0/4 multicast, 240.0.0.0/4 reserved with the
// limited broadcast 255.255.255.255, and in IPv6 the unspecified ::, the deprecated
// IPv4-compatible ::/96, fe80::/10 link-local and ff00::/8 multicast. Addresses in the well-known
// NAT64 prefix 64:ff9b::/96 reach the IPv4 address they embed through a translator, so they are
// judged by that address too (64:ff9b::a9fe:a9fe is the metadata address).
import { cidrInterval, type Interval } from './addresses.js';

export interface Block {
  interval: Interval;
  /** A noun phrase: "the multicast block 224.0.0.0/4". */
  what: string;
}

function v4(a: number, b: number, c: number, d: number, prefix: number): Interval {
  return cidrInterval(4, BigInt(((a << 24) >>> 0) + (b << 16) + (c << 8) + d), prefix);
}

// The broadcast address comes before the reserved block that holds it, so that it is named.
export const ALWAYS_REFUSED: readonly Block[] = [
  {
    interval: v4(169, 254, 0, 0, 16),
    what: 'the link-local block 169.254.0.0/16 (with the cloud metadata address 169.254.169.254)',
  },
  { interval: v4(255, 255, 255, 255, 32), what: 'the broadcast address 255.255.255.255' },
  { interval: v4(0, 0, 0, 0, 8), what: 'the unspecified block 0.0.0.0/8' },
  { interval: v4(224, 0, 0, 0, 4), what: 'the multicast block 224.0.0.0/4' },
  { interval: v4(240, 0, 0, 0, 4), what: 'the reserved block 240.0.0.0/4' },
  { interval: cidrInterval(6, 0n, 128), what: 'the unspecified address ::' },
  // ::/96 without :: and ::1: IPv4-compatible addresses, deprecated since 2006 (RFC 4291).
  {
    interval: { family: 6, first: 2n, last: (1n << 32n) - 1n },
    what: 'the deprecated IPv4-compatible block ::/96',
  },
  { interval: cidrInterval(6, 0xfe80n << 112n, 10), what: 'the IPv6 link-local block fe80::/10' },
  { interval: cidrInterval(6, 0xff00n << 112n, 8), what: 'the IPv6 multicast block ff00::/8' },
];

export const LOOPBACK: readonly Block[] = [
  { interval: v4(127, 0, 0, 0, 8), what: 'the loopback block 127.0.0.0/8' },
  { interval: cidrInterval(6, 1n, 128), what: 'the loopback address ::1' },
];

/**
 * Host names that mean loopback whatever a resolver says: RFC 6761 keeps `localhost` and every
 * name below it for loopback, and systems name ::1 and 127.0.0.1 in /etc/hosts with these (Debian
 * `ip6-localhost`, `ip6-loopback`; Red Hat `localhost.localdomain`, `localhost4`, `localhost6`).
 */
const LOOPBACK_NAMES = new Set([
  'localhost',
  'ip6-localhost',
  'ip6-loopback',
  'localhost.localdomain',
  'localhost4',
  'localhost4.localdomain4',
  'localhost6',
  'localhost6.localdomain6',
]);

/**
 * How a host name (or a `*.` wildcard) means loopback, as a sentence about it, or null. Judged on
 * the text, lower-cased and without a trailing dot, before any lookup: a resolver is not asked.
 */
export function loopbackName(text: string): string | null {
  const name = text.trim().toLowerCase().replace(/\.$/, '');
  const bare = name.startsWith('*.') ? name.slice(2) : name;
  if (LOOPBACK_NAMES.has(bare)) return `${text.trim()} names the loopback address`;
  if (bare.endsWith('.localhost'))
    return `${text.trim()} is a name under localhost, which means loopback (RFC 6761)`;
  return null;
}

/** 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052). */
export const NAT64 = cidrInterval(6, 0x64ff9bn << 96n, 96);

/**
 * How `interval` touches the first of `blocks` it overlaps, as a sentence about the target, or
 * null. IPv6 ranges in the NAT64 prefix are judged by the IPv4 addresses they reach too.
 */
export function blockOverlap(text: string, interval: Interval, blocks: readonly Block[]): string | null {
  for (const block of blocks) if (overlaps(interval, block.interval)) return touch(text, interval, block);
  const embedded = nat64Part(interval);
  if (!embedded) return null;
  for (const block of blocks)
    if (overlaps(embedded, block.interval))
      return `${text} reaches ${block.what} through the NAT64 prefix 64:ff9b::/96`;
  return null;
}

function touch(text: string, interval: Interval, block: Block): string {
  const single = interval.first === interval.last;
  if (block.interval.first === block.interval.last)
    return `${text} ${single ? 'is' : 'includes'} ${block.what}`;
  return `${text} ${single ? 'is in' : 'overlaps'} ${block.what}`;
}

/** The IPv4 addresses an IPv6 range reaches through the NAT64 prefix, if it overlaps it. */
function nat64Part(interval: Interval): Interval | null {
  if (interval.family !== 6 || !overlaps(interval, NAT64)) return null;
  // Math.max and Math.min take no bigints.
  let { first, last } = interval;
  if (first < NAT64.first) first = NAT64.first;
  if (last > NAT64.last) last = NAT64.last;
  return { family: 4, first: first - NAT64.first, last: last - NAT64.first };
}

function overlaps(a: Interval, b: Interval): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}
