// Port lists: what a port scan probes on each host. A list is anything with a length and at(),
// so that all 65,535 ports need no array: ALL_PORTS answers each index by arithmetic.

import { WELL_KNOWN_PORTS } from './well-known.js';

export const MIN_PORT = 1;
export const MAX_PORT = 65535;
/** The longest text parsePortList reads: every port written out once, with commas. */
const MAX_TEXT_LENGTH = 400_000;

/** Ports in probe order; a plain `readonly number[]` is one. */
export interface PortList {
  readonly length: number;
  at(index: number): number | undefined;
}

/** The ports first…last in order, computed rather than stored. */
export class PortRange implements PortList {
  readonly length: number;

  constructor(
    readonly first: number,
    readonly last: number,
  ) {
    if (!isPort(first) || !isPort(last) || first > last)
      throw new RangeError(`port range ${first}-${last} must run upwards within ${MIN_PORT}-${MAX_PORT}`);
    this.length = last - first + 1;
  }

  /** The ports as an array (for a short range). */
  toArray(): number[] {
    return Array.from({ length: this.length }, (_, i) => this.first + i);
  }

  at(index: number): number | undefined {
    return Number.isInteger(index) && index >= 0 && index < this.length ? this.first + index : undefined;
  }
}

/** Every TCP port, 1 to 65535. */
export const ALL_PORTS: PortList = Object.freeze(new PortRange(MIN_PORT, MAX_PORT));

export function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_PORT && value <= MAX_PORT;
}

/**
 * Reads "22,80,8000-8100" into ports in the order written. Refuses (RangeError naming the piece)
 * port 0 or above 65535, reversed ranges, a port listed twice, an empty list, and anything that is
 * not digits, a dash or a comma; spaces around pieces are allowed.
 */
export function parsePortList(text: string): number[] {
  if (typeof text !== 'string') throw new RangeError('port list must be text');
  if (text.length > MAX_TEXT_LENGTH)
    throw new RangeError(`port list is too long (${text.length} characters, at most ${MAX_TEXT_LENGTH})`);
  const pieces = text.split(',').map((p) => p.trim());
  if (pieces.length > MAX_PORT) throw new RangeError(`port list has more than ${MAX_PORT} entries`);
  const ports: number[] = [];
  const seen = new Uint8Array(MAX_PORT + 1);
  for (const piece of pieces) {
    const [first, last] = parsePiece(piece);
    for (let port = first; port <= last; port++) {
      if (seen[port]) throw new RangeError(`port list names port ${port} more than once`);
      seen[port] = 1;
      ports.push(port);
    }
  }
  return ports;
}

function parsePiece(piece: string): [number, number] {
  if (piece === '') throw new RangeError('port list has an empty entry');
  const match = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(piece);
  if (!match)
    throw new RangeError(`port list entry "${piece.slice(0, 40)}" is not a port or a first-last range`);
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  for (const port of [first, last])
    if (!isPort(port)) throw new RangeError(`port ${port} in "${piece}" is outside ${MIN_PORT}-${MAX_PORT}`);
  if (first > last) throw new RangeError(`port range "${piece}" runs backwards`);
  return [first, last];
}

/** The names a template may give instead of a list: Rampart's well-known ports, and every port. */
export const NAMED_PORT_LISTS = ['top1000', 'all'] as const;

/**
 * A template's port text as a list: `top1000` (WELL_KNOWN_PORTS), `all` (1–65535) or a list read
 * by parsePortList (RangeError naming the bad piece).
 */
export function portListOf(text: string): PortList {
  if (typeof text !== 'string') throw new RangeError('port list must be text');
  const name = text.trim().toLowerCase();
  if (name === 'top1000') return WELL_KNOWN_PORTS;
  if (name === 'all') return ALL_PORTS;
  return parsePortList(text);
}
