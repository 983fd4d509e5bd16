// Reading a target text: a CIDR, a first–last range, one address, a host name, or (in policies
// only) a "*." wildcard host name. Every refusal says what was wrong with the text it names.
import type { TargetRefusal } from '../types.js';
import {
  bitsOf,
  cidrInterval,
  type Family,
  formatAddress,
  formatInterval,
  type Interval,
  MAPPED_PREFIX,
  parseAddress,
} from './addresses.js';

export type ParsedTarget =
  | { kind: 'range'; interval: Interval; form: 'cidr' | 'range' | 'address'; text: string }
  | { kind: 'host'; name: string; text: string }
  | { kind: 'wildcard'; suffix: string; text: string };

/** Long enough for any host name (253) or IPv6 range; longer texts are refused before any parsing. */
const MAX_LENGTH = 300;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isRefusal(value: unknown): value is TargetRefusal {
  return typeof value === 'object' && value !== null && 'rule' in value && 'message' in value;
}

export function syntax(message: string): TargetRefusal {
  return { rule: 'Syntax', message };
}

export function parseTarget(text: string): ParsedTarget | TargetRefusal {
  const trimmed = text.trim();
  if (trimmed === '')
    return syntax('The target is empty: give a CIDR, a first-last range, an address or a host name.');
  if (trimmed.length > MAX_LENGTH) return syntax(`The target is longer than ${MAX_LENGTH} characters.`);
  if (trimmed.includes('%'))
    return syntax(`"${trimmed}" has a zone identifier (%…): give the address without it.`);
  if (trimmed.includes('/')) return parseCidr(trimmed);
  const dash = trimmed.indexOf('-');
  if (dash > 0 && looksLikeAddress(trimmed.slice(0, dash))) return parseRange(trimmed, dash);
  const address = parseAddress(trimmed);
  if (address)
    return rangeTarget({ family: address.family, first: address.value, last: address.value }, 'address');
  return parseHostName(trimmed);
}

function looksLikeAddress(text: string): boolean {
  return parseAddress(text.trim()) !== null;
}

function parseCidr(text: string): ParsedTarget | TargetRefusal {
  const [base = '', prefixText = '', ...rest] = text.split('/');
  const address = parseAddress(base.trim());
  if (!address || rest.length > 0)
    return syntax(`"${text}" is not a CIDR: expected an address, "/" and a prefix length.`);
  // A mapped IPv6 CIDR counts its prefix in IPv6 bits even though the address became IPv4.
  const written: Family = base.includes(':') ? 6 : 4;
  const maxPrefix = Number(bitsOf(written));
  if (!/^\d{1,3}$/.test(prefixText.trim()) || Number(prefixText) > maxPrefix)
    return syntax(`"${text}" has an invalid prefix length: expected 0 to ${maxPrefix}.`);
  let prefix = Number(prefixText);
  const { family, value } = address;
  if (written === 6 && family === 4) {
    if (prefix < 96) return syntax(`"${text}" crosses the edge of the IPv4-mapped block ::ffff:0:0/96.`);
    prefix -= 96;
  }
  const mask = (1n << (bitsOf(family) - BigInt(prefix))) - 1n;
  if ((value & mask) !== 0n) {
    const network = formatAddress(family, value & ~mask);
    return syntax(`"${text}" has host bits set: did you mean ${network}/${prefix}?`);
  }
  return rangeTarget(cidrInterval(family, value, prefix), 'cidr');
}

function parseRange(text: string, dash: number): ParsedTarget | TargetRefusal {
  const firstText = text.slice(0, dash).trim();
  const lastText = text.slice(dash + 1).trim();
  const first = parseAddress(firstText)!;
  let last = parseAddress(lastText);
  // The short form 10.0.0.1-20 gives only the last octet of the end.
  if (!last && first.family === 4 && /^\d{1,3}$/.test(lastText) && Number(lastText) <= 255)
    last = { family: 4, value: (first.value & ~255n) | BigInt(lastText) };
  if (!last) return syntax(`"${text}" is not a range: "${lastText}" is not an address.`);
  if (last.family !== first.family)
    return syntax(
      firstText.includes(':') && lastText.includes(':')
        ? `"${text}" crosses the edge of the IPv4-mapped block ::ffff:0:0/96.`
        : `"${text}" mixes IPv4 and IPv6 addresses.`,
    );
  if (last.value < first.value) return syntax(`"${text}" ends before it starts.`);
  return rangeTarget({ family: first.family, first: first.value, last: last.value }, 'range');
}

function rangeTarget(interval: Interval, form: 'cidr' | 'range' | 'address'): ParsedTarget | TargetRefusal {
  if (interval.family === 6 && interval.first < MAPPED_PREFIX + (1n << 32n) && interval.last >= MAPPED_PREFIX)
    return syntax(`"${formatInterval(interval)}" crosses the edge of the IPv4-mapped block ::ffff:0:0/96.`);
  return { kind: 'range', interval, form, text: formatInterval(interval) };
}

/** RFC 1123 host names, lower-cased, without a trailing dot; "*." in front makes a wildcard. */
function parseHostName(text: string): ParsedTarget | TargetRefusal {
  const lower = text.toLowerCase().replace(/\.$/, '');
  const wildcard = lower.startsWith('*.');
  const name = wildcard ? lower.slice(2) : lower;
  const labels = name.split('.');
  const bad = labels.find((label) => !LABEL.test(label));
  if (bad !== undefined || name.length > 253)
    return syntax(
      `"${text}" is neither an address, a CIDR, a range nor a host name${bad === undefined ? '' : ` ("${bad}" is not a valid label)`}.`,
    );
  // An all-numeric last label is a mistyped address (10.0.0.256), never a host name.
  if (/^\d+$/.test(labels.at(-1)!)) return syntax(`"${text}" is not a valid address.`);
  if (wildcard) {
    if (labels.length < 2)
      return syntax(`"${text}" is too wide: a wildcard needs a domain of two labels or more.`);
    return { kind: 'wildcard', suffix: `.${name}`, text: `*.${name}` };
  }
  return { kind: 'host', name, text: name };
}
