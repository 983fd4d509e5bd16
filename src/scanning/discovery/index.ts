// Discovery scans: live hosts by TCP connect probes (or nmap -sn), reverse DNS, MAC addresses from
// the neighbour table and a light OS guess. No database, no HTTP: the node drives it.

import type { DiscoveryTemplate } from '../types.js';
import { type DiscoveryCounts, type DiscoveryOptions, discoverHosts } from './engine.js';
import { discoverWithNmap, nmapAvailable } from './nmap.js';

export {
  type Neighbour,
  type NeighbourState,
  type NeighbourTable,
  readNeighbours,
} from '../runtime/neighbours.js';
export {
  type DiscoveryCounts,
  type DiscoveryOptions,
  discoverHosts,
  validateDiscoveryTemplate,
} from './engine.js';
export { discoverWithNmap, nmapAvailable } from './nmap.js';
export { guessOs } from './os-guess.js';
export { type ReverseDnsOptions, reverseResolver } from './reverse-dns.js';

/**
 * Safe defaults: the ports most hosts answer on (remote access, web, mail, file sharing,
 * databases), one second per connect with one retry, and limits a small office network and the
 * node's own file descriptors take without notice.
 */
export const DEFAULT_DISCOVERY_TEMPLATE: DiscoveryTemplate = Object.freeze({
  ports: Object.freeze([
    22, 80, 443, 445, 3389, 21, 23, 25, 53, 135, 139, 3306, 5432, 8080, 8443,
  ]) as number[],
  timeoutMs: 1000,
  retries: 1,
  maxInFlight: 256,
  connectionsPerSecond: 500,
  perHostInFlight: 4,
  reverseDns: true,
  useNmap: false,
});

/**
 * Discovery as the template asks: through nmap -sn when `useNmap` is set and nmap is installed on
 * this node, with the engine's own TCP connect probes otherwise.
 */
export async function discover(
  addresses: AsyncIterable<string> | Iterable<string>,
  total: number,
  template: DiscoveryTemplate,
  options: DiscoveryOptions,
): Promise<DiscoveryCounts & { engine: 'nmap' | 'connect' }> {
  if (template.useNmap && (await nmapAvailable()))
    return { ...(await discoverWithNmap(addresses, total, template, options)), engine: 'nmap' };
  return { ...(await discoverHosts(addresses, total, template, options)), engine: 'connect' };
}
