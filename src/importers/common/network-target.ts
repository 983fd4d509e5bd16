import { isIP } from 'node:net';
import type { AssetRef, LocationRef } from '../types.js';

/**
 * Network targets as reports write them — "https://host/path", "host:443", "10.0.0.5", "[::1]:22"
 * — read into Rampart's asset and location shapes. Used by importers whose targets are plain
 * strings (Nuclei, the generic format).
 */

/** A host and an optional port, read from "host", "host:port" or "[v6]:port". */
export interface HostPort {
  host: string;
  port?: number;
}

/** A port number from a number or digits; undefined outside 1–65535. */
export function portNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : Number(String(value ?? '').trim() || Number.NaN);
  return Number.isInteger(n) && n > 0 && n <= 65535 ? n : undefined;
}

/** Reads "host", "host:port", "[v6]" or "[v6]:port"; a bare IPv6 address has no port. */
export function splitHostPort(text: string): HostPort | undefined {
  const value = text.trim();
  if (value === '' || /\s/.test(value)) return undefined;
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) return withPort(bracketed[1]!, bracketed[2]);
  if (isIP(value) === 6) return { host: value };
  const colon = value.lastIndexOf(':');
  if (colon === -1) return { host: value };
  const port = portNumber(value.slice(colon + 1));
  return port && colon > 0 ? { host: value.slice(0, colon), port } : undefined;
}

function withPort(host: string, port: string | undefined): HostPort {
  const n = portNumber(port);
  return n ? { host, port: n } : { host };
}

/**
 * A Host asset for a name or an address as the report gives it: an IP address goes to
 * `ipAddresses`, a name to `hostname` (the target as typed, as the Nmap importer keeps it), and
 * `ip` — the address the tool resolved the name to — is added when it is one.
 */
export function hostAsset(host: string, ip?: string): AssetRef | undefined {
  const name = host
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  const addresses = new Set<string>();
  if (isIP(name)) addresses.add(name);
  const resolved = ip?.trim();
  if (resolved && isIP(resolved)) addresses.add(resolved);
  const hostname = name && !isIP(name) ? name : undefined;
  if (!hostname && addresses.size === 0) return undefined;
  return {
    kind: 'Host',
    ...(hostname ? { hostname } : {}),
    ...(addresses.size > 0 ? { ipAddresses: [...addresses] } : {}),
  };
}

/** An http(s) URL, or undefined for anything else (other schemes, no scheme, junk). */
export function webUrl(text: string | undefined): URL | undefined {
  const value = text?.trim();
  if (!value || !/^https?:\/\//i.test(value)) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * The WebApplication asset of a URL (its origin: scheme, host and a port other than the
 * default) and the Url location of the URL itself.
 */
export function webTarget(
  url: URL,
  rawUrl: string,
  parameter?: string,
): { asset: AssetRef; location: LocationRef } {
  return {
    asset: { kind: 'WebApplication', url: url.origin },
    location: { kind: 'Url', url: rawUrl.trim(), ...(parameter ? { parameter } : {}) },
  };
}

/** A Port location; UDP only when the report says so. */
export function portLocation(port: number, protocol?: string): LocationRef {
  return { kind: 'Port', port, protocol: protocol?.trim().toLowerCase() === 'udp' ? 'udp' : 'tcp' };
}
