// Where the server itself may send requests on a user's behalf (webhook, Slack and Teams
// notifications): a guard against server-side request forgery. An Admin gives a URL; the guard
// allows only http(s), resolves the host name, and refuses any address that is always refused for
// scans (the blocks of src/scanning/targets/blocks.ts: link-local with the cloud metadata address
// 169.254.169.254, multicast, unspecified, reserved, broadcast, and their NAT64 forms), the other
// cloud metadata addresses and names, loopback unless the server allows it, and private networks
// unless the server allows them. The caller connects to the address the guard returns (see
// outbound-http.ts), so that no second lookup can move the request elsewhere after the check.
import { lookup } from 'node:dns/promises';
import { cidrInterval, type Interval, parseAddress } from '../scanning/targets/addresses.js';
import {
  ALWAYS_REFUSED,
  type Block,
  blockOverlap,
  LOOPBACK,
  loopbackName,
} from '../scanning/targets/blocks.js';

/**
 * Why a destination is refused. Syntax, AlwaysRefused, Loopback and Unresolved mean what they mean
 * for scan targets (REFUSAL_RULES of src/scanning/contract.ts); the others are the guard's own.
 */
export const DESTINATION_RULES = [
  'Syntax',
  'Scheme',
  'AlwaysRefused',
  'Metadata',
  'Loopback',
  'Private',
  'Unresolved',
] as const;
export type DestinationRule = (typeof DESTINATION_RULES)[number];

export interface DestinationRefusal {
  rule: DestinationRule;
  message: string;
}

export interface DestinationPolicy {
  /** 127.0.0.0/8 and ::1 (RAMPART_NOTIFY_ALLOW_LOOPBACK): receivers on the server's own machine. */
  allowLoopback: boolean;
  /** 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7 (RAMPART_NOTIFY_ALLOW_PRIVATE): receivers inside the network. */
  allowPrivate: boolean;
}

/** A name's addresses: the system resolver by default (tests pass their own). */
export type DestinationResolver = (name: string) => Promise<string[]>;

/** A destination that passed the guard: the URL, and the checked address every byte goes to. */
export interface CheckedDestination {
  url: URL;
  address: string;
}

const v4 = (a: number, b: number, c: number, d: number, prefix: number): Interval =>
  cidrInterval(4, BigInt(((a << 24) >>> 0) + (b << 16) + (c << 8) + d), prefix);
const v6 = (hex: string, prefix: number): Interval => {
  const parsed = parseAddress(hex);
  if (!parsed) throw new Error(`not an address: ${hex}`);
  return cidrInterval(6, parsed.value, prefix);
};

/** Cloud metadata services that are not in the link-local block (169.254.169.254 is). */
const METADATA: readonly Block[] = [
  { interval: v6('fd00:ec2::254', 128), what: 'the AWS instance metadata address fd00:ec2::254' },
  { interval: v4(100, 100, 100, 200, 32), what: 'the Alibaba Cloud metadata address 100.100.100.200' },
];
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data']);

/** Networks of an organisation's own inside (RFC 1918, shared CGNAT space, unique-local IPv6). */
const PRIVATE: readonly Block[] = [
  { interval: v4(10, 0, 0, 0, 8), what: 'the private block 10.0.0.0/8' },
  { interval: v4(172, 16, 0, 0, 12), what: 'the private block 172.16.0.0/12' },
  { interval: v4(192, 168, 0, 0, 16), what: 'the private block 192.168.0.0/16' },
  { interval: v4(100, 64, 0, 0, 10), what: 'the shared address block 100.64.0.0/10' },
  { interval: v6('fc00::', 7), what: 'the unique-local block fc00::/7' },
];

const LOOPBACK_SETTING = 'RAMPART_NOTIFY_ALLOW_LOOPBACK=true';
const PRIVATE_SETTING = 'RAMPART_NOTIFY_ALLOW_PRIVATE=true';

/** The refusal of one address (text), or null when a notification may go there. */
export function addressRefusal(text: string, policy: DestinationPolicy): DestinationRefusal | null {
  const address = parseAddress(text);
  if (!address) return { rule: 'Syntax', message: `"${text}" is not an IP address.` };
  const point: Interval = { family: address.family, first: address.value, last: address.value };
  const always = blockOverlap(text, point, ALWAYS_REFUSED);
  if (always) return { rule: 'AlwaysRefused', message: `${always}, which notifications never reach.` };
  const metadata = blockOverlap(text, point, METADATA);
  if (metadata) return { rule: 'Metadata', message: `${metadata}, which notifications never reach.` };
  const loopback = policy.allowLoopback ? null : blockOverlap(text, point, LOOPBACK);
  if (loopback)
    return {
      rule: 'Loopback',
      message: `${loopback}, which notifications reach only when the server sets ${LOOPBACK_SETTING}.`,
    };
  const inside = policy.allowPrivate ? null : blockOverlap(text, point, PRIVATE);
  if (inside)
    return {
      rule: 'Private',
      message: `${inside}, which notifications reach only when the server sets ${PRIVATE_SETTING}.`,
    };
  return null;
}

/**
 * The URL's own refusal, before any lookup: its syntax, its scheme, a metadata or loopback name.
 * Returns the parsed URL and its host (an address without brackets, or a lower-case name).
 */
export function urlRefusal(
  text: string,
  policy: DestinationPolicy,
): DestinationRefusal | { url: URL; host: string; literal: boolean } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { rule: 'Syntax', message: `"${text.slice(0, 200)}" is not a URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      rule: 'Scheme',
      message: `${url.protocol} URLs are refused: notifications go to http: or https: URLs only.`,
    };
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!host) return { rule: 'Syntax', message: `"${text.slice(0, 200)}" names no host.` };
  // The WHATWG parser has already turned 0x7f.1 and 2130706433 into 127.0.0.1.
  if (parseAddress(host)) return { url, host, literal: true };
  const name = host.replace(/\.$/, '');
  if (METADATA_NAMES.has(name))
    return {
      rule: 'Metadata',
      message: `${name} is a cloud metadata service, which notifications never reach.`,
    };
  const loopback = policy.allowLoopback ? null : loopbackName(name);
  if (loopback)
    return {
      rule: 'Loopback',
      message: `${loopback}, which notifications reach only when the server sets ${LOOPBACK_SETTING}.`,
    };
  return { url, host: name, literal: false };
}

const RESOLVE_TIMEOUT_MS = 5000;

/** The system's resolver, bounded in time. */
export async function systemResolver(name: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not resolve in time`)), RESOLVE_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const found = await Promise.race([lookup(name, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

export function isDestinationRefusal(value: unknown): value is DestinationRefusal {
  return typeof value === 'object' && value !== null && 'rule' in value && 'message' in value;
}

/**
 * Checks a URL and resolves its host: every address the name has must pass (a name with one
 * refused address among good ones is refused, since which one a later lookup returns first is
 * not ours to know). Returns the URL and the address to connect to, or the refusal.
 */
export async function checkDestination(
  text: string,
  policy: DestinationPolicy,
  resolve: DestinationResolver = systemResolver,
): Promise<CheckedDestination | DestinationRefusal> {
  const parsed = urlRefusal(text, policy);
  if (isDestinationRefusal(parsed)) return parsed;
  const { url, host, literal } = parsed;
  let addresses: string[];
  if (literal) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return { rule: 'Unresolved', message: `${host} does not resolve: ${(error as Error).message}` };
    }
    if (addresses.length === 0) return { rule: 'Unresolved', message: `${host} does not resolve.` };
  }
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal)
      return literal
        ? refusal
        : { rule: refusal.rule, message: `${host} resolves to ${address}: ${refusal.message}` };
  }
  return { url, address: addresses[0]! };
}
