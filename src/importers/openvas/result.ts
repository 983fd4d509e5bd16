import { isIP } from 'node:net';
import { reflowed } from '../common/layout-text.js';
import type { TextLimits } from '../common/limits.js';
import { nonEmpty, SeenKeys, withoutUndefined } from '../common/report-values.js';
import type { AssetRef, LocationRef, ParseContext, ServiceRecord } from '../types.js';

/** Where a result was found, read from OpenVAS's port text. */
export interface OpenvasPort {
  port?: number;
  protocol?: 'tcp' | 'udp';
  name?: string;
}

/**
 * Reads "443/tcp", "https (443/tcp)" (OpenVAS 8 and earlier), "general/tcp" and "general/icmp"
 * (no port: the host as a whole), "package" (local checks).
 */
export function parsePort(text: string | undefined): OpenvasPort {
  const match = text?.trim().match(/^(?:(\S+) \()?(\d{1,5})\/(tcp|udp)\)?$/i);
  if (!match) return {};
  const port = Number(match[2]);
  if (port <= 0 || port > 65535) return {};
  return withoutUndefined({
    port,
    protocol: match[3]!.toLowerCase() as 'tcp' | 'udp',
    name: match[1]?.toLowerCase(),
  });
}

export function locationOf(where: OpenvasPort): LocationRef {
  return where.port && where.protocol
    ? { kind: 'Port', port: where.port, protocol: where.protocol }
    : { kind: 'None' };
}

export function serviceOf(asset: AssetRef, where: OpenvasPort): ServiceRecord | undefined {
  if (!where.port || !where.protocol) return undefined;
  return withoutUndefined<ServiceRecord>({
    type: 'service',
    asset,
    port: where.port,
    protocol: where.protocol,
    name: where.name,
  });
}

/** The host of a result: its address, and the name OpenVAS resolved (a dotted one is an FQDN). */
export function hostAsset(
  address: string | undefined,
  name: string | undefined,
  limits: TextLimits,
  more: Pick<AssetRef, 'operatingSystem' | 'macAddresses'> = {},
): AssetRef | undefined {
  const ip = address?.trim();
  const hostName = name?.trim() || (ip && !isIP(ip) ? ip : undefined);
  const ipAddresses = ip && isIP(ip) ? [ip] : [];
  if (ipAddresses.length === 0 && !hostName) return undefined;
  const dotted = hostName?.includes('.');
  return withoutUndefined<AssetRef>({
    kind: 'Host',
    ipAddresses: nonEmpty(ipAddresses),
    fqdn: dotted ? limits.field(hostName, 'host name') : undefined,
    hostname: dotted ? undefined : limits.field(hostName, 'host name'),
    operatingSystem: limits.field(more.operatingSystem, 'operating system'),
    macAddresses: more.macAddresses,
  });
}

/** Written as an address ("192.168.1.1001", "fe80::zz") but not a valid one. */
function brokenAddress(text: string): boolean {
  return !isIP(text) && (/^[\d.]+$/.test(text) || text.includes(':'));
}

/**
 * The hosts of one report, as OpenVAS names them by address and (when it resolved one) name.
 * An address that is not valid is left out with a warning naming the host, and the machine is
 * known by its name; the name is remembered for the address, so that the report's other
 * mentions of it (ports, host details, CSV rows without the name) land on the same asset.
 */
export class OpenvasHosts {
  private readonly names = new Map<string, string>();
  private readonly said = new SeenKeys(10_000);

  constructor(
    private readonly context: ParseContext,
    private readonly limits: TextLimits,
  ) {}

  /** Undefined when nothing identifies the host (see isUnnamed and skip). */
  asset(
    address: string | undefined,
    name: string | undefined,
    more: Pick<AssetRef, 'operatingSystem' | 'macAddresses'> = {},
  ): AssetRef | undefined {
    let ip = address?.trim() || undefined;
    let hostName = name?.trim() || undefined;
    if (ip && brokenAddress(ip)) {
      const broken = ip;
      ip = undefined;
      if (!hostName) hostName = this.names.get(broken);
      else if (!this.names.has(broken) && this.names.size < 10_000) this.names.set(broken, hostName);
      if (!hostName) return undefined;
      this.once(`Host '${hostName}': the address '${broken}' is not an IP address and was left out.`);
    }
    return hostAsset(ip, hostName, this.limits, more);
  }

  /** An address that is not valid and has no name (yet): what it names cannot be filed. */
  isUnnamed(address: string | undefined): boolean {
    const ip = address?.trim();
    return !!ip && brokenAddress(ip) && !this.names.has(ip);
  }

  /** Says, once per address, that what an invalid address names was skipped. */
  skip(address: string): void {
    this.once(
      `What the report says of '${address.trim()}' was skipped: it is not an IP address, and the report names no host for it.`,
    );
  }

  private once(message: string): void {
    if (this.said.first(message)) this.context.warn(message);
  }
}

/** The parts of an NVT's explanation, as OpenVAS names them (tags in XML, columns in CSV). */
export interface NvtText {
  summary?: string;
  insight?: string;
  impact?: string;
  affected?: string;
  vuldetect?: string;
}

/**
 * OpenVAS wraps its texts with a newline and an indentation (two spaces, four in a list item,
 * more in a pretty-printed file); joining those lines back keeps paragraphs and lists readable.
 */
export const unwrap = reflowed;

/** One description from the summary and the other explanations, each under its heading. */
export function describe(text: NvtText): string | undefined {
  const parts = [
    unwrap(text.summary),
    section('Vulnerability insight', text.insight),
    section('Impact', text.impact),
    section('Affected software/OS', text.affected),
    section('Detection method', text.vuldetect),
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

function section(heading: string, text: string | undefined): string | undefined {
  const body = unwrap(text);
  return body ? `${heading}: ${body}` : undefined;
}

/** The version the result names as the fix ("Fixed version:     117"). */
export function fixedVersionIn(evidence: string | undefined): string | undefined {
  const match = evidence?.match(/^\s*Fixed version:\s*(\S.*?)\s*$/im);
  return match?.[1];
}

/** Ids of "NOCVE", "NOBID", "NOXREF" style placeholders are not ids. */
export function isPlaceholder(id: string): boolean {
  return /^NO(CVE|BID|XREF|CERT)$/i.test(id.trim());
}
