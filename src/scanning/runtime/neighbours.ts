// The node's neighbour table (ARP for IPv4, NDP for IPv6): the MAC address of hosts on its own
// segment, and whether the kernel has lately confirmed that a host answers at the link layer.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/**
 * `reachable`: confirmed by the kernel within its reachable time (15–45 s by default);
 * `pending`: a known MAC the kernel is checking again right now (DELAY, PROBE), known in seconds;
 * `incomplete`: asked, no answer yet; `stale`: a MAC the kernel once saw, not confirmed lately;
 * `failed`: no answer to ARP/NDP.
 */
export type NeighbourState = 'reachable' | 'pending' | 'incomplete' | 'stale' | 'failed';

export interface Neighbour {
  mac: string | null;
  state: NeighbourState;
}

export type NeighbourTable = Map<string, Neighbour>;

const STATES: Record<string, NeighbourState> = {
  REACHABLE: 'reachable',
  PERMANENT: 'reachable',
  NOARP: 'reachable',
  INCOMPLETE: 'incomplete',
  DELAY: 'pending',
  PROBE: 'pending',
  STALE: 'stale',
  FAILED: 'failed',
};

interface IpNeighbour {
  dst?: string;
  lladdr?: string;
  state?: string[];
}

/** Reads the table with `ip -j neigh` (IPv4 and IPv6 at once), or /proc/net/arp without iproute2. */
export async function readNeighbours(): Promise<NeighbourTable> {
  try {
    return parseIpNeighbours(await run('ip', ['-j', 'neigh', 'show']));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return parseProcArp(await readFile('/proc/net/arp', 'utf8'));
  }
}

export function parseIpNeighbours(json: string): NeighbourTable {
  const table: NeighbourTable = new Map();
  const rows = json.trim() === '' ? [] : (JSON.parse(json) as IpNeighbour[]);
  for (const row of rows) {
    if (!row.dst) continue;
    const state = (row.state ?? []).map((s) => STATES[s]).find((s) => s !== undefined) ?? 'failed';
    table.set(row.dst, { mac: row.lladdr ? row.lladdr.toLowerCase() : null, state });
  }
  return table;
}

/**
 * /proc/net/arp tells complete (flag 0x2) from incomplete entries but not how fresh they are, so a
 * complete entry counts only as `stale`: a MAC to report, never proof that a silent host is up.
 */
export function parseProcArp(text: string): NeighbourTable {
  const table: NeighbourTable = new Map();
  for (const line of text.split('\n').slice(1)) {
    const [address, , flags, mac] = line.trim().split(/\s+/);
    if (!address || !flags || !mac) continue;
    const complete = (Number.parseInt(flags, 16) & 0x2) !== 0;
    table.set(
      address,
      complete ? { mac: mac.toLowerCase(), state: 'stale' } : { mac: null, state: 'incomplete' },
    );
  }
  return table;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 5000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });
}
