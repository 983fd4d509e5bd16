// Host names of live hosts from PTR records, with a bounded wait: a slow or silent DNS server costs
// each host at most the timeout, never the run.

import { Resolver } from 'node:dns/promises';

export interface ReverseDnsOptions {
  /** DNS servers ("127.0.0.1:5353", "[::1]:53", …); the system's when empty. */
  servers?: string[];
  /** How long one lookup may take. */
  timeoutMs?: number;
}

export const DEFAULT_REVERSE_DNS_TIMEOUT_MS = 2000;

/** A PTR lookup answering the names found, or none on any error or timeout. */
export function reverseResolver(options: ReverseDnsOptions = {}): (address: string) => Promise<string[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REVERSE_DNS_TIMEOUT_MS;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (options.servers && options.servers.length > 0) resolver.setServers(options.servers);
  return async (address) => {
    try {
      const names = await resolver.reverse(address);
      return names.map((n) => n.replace(/\.$/, '')).filter((n) => n !== '');
    } catch {
      return [];
    }
  };
}
