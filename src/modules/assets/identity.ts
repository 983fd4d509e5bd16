import net from 'node:net';
import type { AssetKind, IdentifierKind } from '../../db/schema.js';

export interface AssetIdentity {
  kind: AssetKind;
  fqdn?: string | null;
  hostname?: string | null;
  ipAddresses?: readonly string[];
  macAddresses?: readonly string[];
  url?: string | null;
  /** ContainerImage: an image reference. */
  image?: string | null;
  /** CodeRepository: a repository URL or name. */
  repository?: string | null;
}

export interface Identifier {
  kind: IdentifierKind;
  value: string;
}

/**
 * Lower case, no trailing dot; undefined when it is not a plausible DNS name. No top-level
 * domain is all digits (RFC 3696 §2), so "192.168.1.1001" is a broken address, not a name.
 */
export function normaliseFqdn(name: string): string | undefined {
  const value = name.trim().toLowerCase().replace(/\.$/, '');
  return /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)+$/.test(
    value,
  ) && !/\.\d+$/.test(value)
    ? value
    : undefined;
}

export function normaliseHostname(name: string): string | undefined {
  const value = name.trim().toLowerCase();
  return /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?$/.test(value) ? value : undefined;
}

/** The canonical text of an IPv4 or IPv6 address (IPv6 compressed, lower case). */
export function normaliseIp(address: string): string | undefined {
  const value = address.trim();
  const version = net.isIP(value);
  if (version === 4) return value.split('.').map(Number).join('.');
  if (version === 6) return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  return undefined;
}

export function normaliseMac(address: string): string | undefined {
  const hex = address
    .trim()
    .toLowerCase()
    .replace(/[^0-9a-f]/g, '');
  if (hex.length !== 12 || !/^[0-9a-f:.-]+$/i.test(address.trim())) return undefined;
  return hex.match(/../g)!.join(':');
}

/** Scheme, host, non-default port and path without a trailing slash: one web application. */
export function normaliseUrl(text: string): string | undefined {
  try {
    const u = new URL(text.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    const path = u.pathname.replace(/\/+$/, '');
    return `${u.protocol}//${u.host.toLowerCase()}${path}`;
  } catch {
    return undefined;
  }
}

/**
 * An image reference in one spelling: Docker Hub's implied registry and "library/" dropped,
 * ":latest" added when neither tag nor digest is given, repository part lower case.
 */
export function normaliseImage(ref: string): string | undefined {
  let text = ref.trim();
  if (!text || /\s/.test(text) || text.length > 512) return undefined;
  text = text
    .replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//i, '')
    .replace(/^library\//, '');
  const at = text.indexOf('@');
  const lastSlash = text.lastIndexOf('/');
  const colon = text.indexOf(':', lastSlash + 1);
  const name = at >= 0 ? text.slice(0, at) : colon >= 0 ? text.slice(0, colon) : text;
  const suffix = at >= 0 ? text.slice(at) : colon >= 0 ? text.slice(colon) : ':latest';
  if (!/^[a-z0-9][a-z0-9._\-/:]*$/i.test(name)) return undefined;
  return `${name.toLowerCase()}${suffix}`;
}

/** A repository in one spelling: no scheme, credentials, ".git" or trailing slash; lower case. */
export function normaliseRepository(ref: string): string | undefined {
  let text = ref.trim();
  if (!text || text.length > 512) return undefined;
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]+@/, '');
  text = text.replace(/^([^/:]+):(?!\d)/, '$1/');
  text = text.replace(/\.git$/i, '').replace(/\/+$/, '');
  return text ? text.toLowerCase() : undefined;
}

/**
 * What identifies an asset, strongest first. A bare hostname only counts when no address or
 * FQDN is known: "web01" names different machines in different networks. A MAC address does not
 * make it redundant: only reports from the machine's own segment see the MAC, and others of the
 * same machine (its results, when the report has no valid address) know it by its name alone.
 */
export function identifiersOf(identity: AssetIdentity): Identifier[] {
  const out: Identifier[] = [];
  const add = (kind: IdentifierKind, value: string | undefined) => {
    if (value && !out.some((i) => i.kind === kind && i.value === value)) out.push({ kind, value });
  };
  if (identity.kind === 'WebApplication') {
    add('url', identity.url ? normaliseUrl(identity.url) : undefined);
    return out;
  }
  if (identity.kind === 'ContainerImage') {
    add('image', identity.image ? normaliseImage(identity.image) : undefined);
    return out;
  }
  if (identity.kind === 'CodeRepository') {
    add('repository', identity.repository ? normaliseRepository(identity.repository) : undefined);
    return out;
  }
  for (const mac of identity.macAddresses ?? []) add('mac', normaliseMac(mac));
  if (identity.fqdn) add('fqdn', normaliseFqdn(identity.fqdn));
  for (const ip of identity.ipAddresses ?? []) add('ip', normaliseIp(ip));
  // A host name identifies a host only when nothing stronger does; a dotted one (sslscan names its
  // host "www.target.com") counts as well as a short one, as prepare() accepts both.
  if (out.every((i) => i.kind === 'mac') && identity.hostname)
    add('hostname', normaliseHostname(identity.hostname) ?? normaliseFqdn(identity.hostname));
  return out;
}

/** A field of a reported asset that held a value that is not valid, and was left out. */
export interface DroppedIdentifier {
  field: 'Fqdn' | 'Hostname' | 'IpAddresses' | 'MacAddresses' | 'Url' | 'Image' | 'Repository';
  value: string;
  reason: string;
}

/** What a scanner report names an asset by (the identifying fields of an import's asset). */
export interface ReportedIdentity {
  fqdn?: string;
  hostname?: string;
  ipAddresses?: string[];
  macAddresses?: string[];
  url?: string;
  image?: string;
  repository?: string;
}

/**
 * What a report says of an asset, minus each identifier that is not valid (each listed in
 * `dropped`), so that one odd value does not lose an asset its other identifiers name. A short
 * name where a report puts the FQDN (Nessus's host-fqdn "qa3app01") is a host name: it becomes
 * the hostname, or is left out quietly when the report gives a host name already.
 */
export function keepValidIdentifiers<T extends ReportedIdentity>(
  input: T,
): { identity: T; dropped: DroppedIdentifier[] } {
  const identity = { ...input };
  const dropped: DroppedIdentifier[] = [];
  const drop = (field: DroppedIdentifier['field'], value: string, reason: string) =>
    dropped.push({ field, value, reason });
  if (identity.fqdn !== undefined && !normaliseFqdn(identity.fqdn)) {
    const short = normaliseHostname(identity.fqdn);
    if (short && identity.hostname === undefined) identity.hostname = identity.fqdn.trim();
    else if (!short) drop('Fqdn', identity.fqdn, 'is not a host or domain name');
    delete identity.fqdn;
  }
  if (identity.hostname !== undefined && !validHostname(identity.hostname)) {
    drop('Hostname', identity.hostname, 'is not a host name');
    delete identity.hostname;
  }
  const checks = [
    ['ipAddresses', 'IpAddresses', normaliseIp, 'is not an IP address'],
    ['macAddresses', 'MacAddresses', normaliseMac, 'is not a MAC address'],
  ] as const;
  for (const [key, field, valid, reason] of checks) {
    const values = identity[key];
    if (values === undefined) continue;
    for (const value of values) if (!valid(value)) drop(field, value, reason);
    const kept = values.filter((value) => valid(value) !== undefined);
    if (kept.length > 0) identity[key] = kept;
    else delete identity[key];
  }
  const single = [
    ['url', 'Url', normaliseUrl, 'is not an http(s) URL'],
    ['image', 'Image', normaliseImage, 'is not an image reference'],
    ['repository', 'Repository', normaliseRepository, 'is not a repository'],
  ] as const;
  for (const [key, field, valid, reason] of single) {
    const value = identity[key];
    if (value !== undefined && !valid(value)) {
      drop(field, value, reason);
      delete identity[key];
    }
  }
  return { identity, dropped };
}

/** A host name as the assets service takes one: a single label, or a dotted name. */
function validHostname(name: string): boolean {
  return normaliseHostname(name) !== undefined || normaliseFqdn(name) !== undefined;
}
