import { child, children, type XmlElement } from '../../parsing/xml.js';
import type { TextLimits } from '../common/limits.js';
import type { AssetRef, ImportRecord, ParseContext, ServiceRecord } from '../types.js';
import { type PortRef, vulnersEntries, vulnersFinding } from './vulners.js';

/**
 * The host as Nmap saw it: its addresses, the name it was asked to scan (`type="user"`, kept as
 * hostname), the reverse-DNS name (`type="PTR"`, kept as FQDN: the name DNS gives that address,
 * which is also what DefectDojo uses) and the most likely OS match.
 */
export function hostAsset(host: XmlElement, limits: TextLimits): AssetRef | undefined {
  const ipAddresses: string[] = [];
  const macAddresses: string[] = [];
  for (const address of children(host, 'address')) {
    const value = limits.field(address.attributes.addr, 'address');
    if (!value) continue;
    const type = address.attributes.addrtype ?? 'ipv4';
    if (type === 'mac') macAddresses.push(value);
    else if (type === 'ipv4' || type === 'ipv6') ipAddresses.push(value);
  }
  const names = children(child(host, 'hostnames') ?? host, 'hostname');
  const nameOf = (type: string) =>
    limits.field(
      names.find((n) => n.attributes.type === type && n.attributes.name?.trim())?.attributes.name,
      'host name',
    );
  const hostname = nameOf('user');
  const fqdn = nameOf('PTR');
  const operatingSystem = limits.field(bestOsMatch(host), 'operating system');
  if (ipAddresses.length === 0 && macAddresses.length === 0 && !hostname && !fqdn) return undefined;
  return {
    kind: 'Host',
    ...(hostname ? { hostname } : {}),
    ...(fqdn ? { fqdn } : {}),
    ...(ipAddresses.length > 0 ? { ipAddresses } : {}),
    ...(macAddresses.length > 0 ? { macAddresses } : {}),
    ...(operatingSystem ? { operatingSystem } : {}),
  };
}

/** The name of the most accurate `<osmatch>` (Nmap lists the best first; ties keep that order). */
function bestOsMatch(host: XmlElement): string | undefined {
  let best: { name: string; accuracy: number } | undefined;
  for (const match of children(child(host, 'os') ?? host, 'osmatch')) {
    const name = match.attributes.name?.trim();
    const accuracy = Number(match.attributes.accuracy ?? 0);
    if (name && (!best || accuracy > best.accuracy)) best = { name, accuracy };
  }
  return best?.name;
}

/** "OpenSSH 8.9p1 Ubuntu 3ubuntu0.6 (Ubuntu Linux; protocol 2.0)": Nmap's VERSION column. */
function versionLine(service: XmlElement): string | undefined {
  const { product, version, extrainfo } = service.attributes;
  if (!product) return undefined;
  return [product, version, extrainfo ? `(${extrainfo})` : undefined].filter(Boolean).join(' ');
}

/** The software CPE Nmap matched (an application's before the OS's). */
function serviceCpe(service: XmlElement): string | undefined {
  const cpes = children(service, 'cpe')
    .map((c) => c.text.trim())
    .filter(Boolean);
  return cpes.find((c) => c.startsWith('cpe:/a:')) ?? cpes[0];
}

function portService(asset: AssetRef, where: PortRef, port: XmlElement, limits: TextLimits): ServiceRecord {
  const service = child(port, 'service');
  const attributes = service?.attributes ?? {};
  const banner = children(port, 'script').find((s) => s.attributes.id === 'banner')?.attributes.output;
  const cpe = service ? serviceCpe(service) : undefined;
  const fields = {
    name: limits.field(attributes.name, 'service name'),
    product: limits.field(attributes.product, 'product'),
    version: limits.field(attributes.version, 'version'),
    cpe: limits.field(cpe, 'CPE'),
    // The raw banner when the banner script ran; else the version line Nmap prints.
    banner: limits.field(banner ?? (service ? versionLine(service) : undefined), 'banner'),
  };
  const known = Object.fromEntries(Object.entries(fields).filter(([, value]) => value));
  return { type: 'service', asset, port: where.port, protocol: where.protocol, ...known };
}

/** Port number and protocol when the port is open and of a kind we keep (TCP or UDP). */
function openPort(port: XmlElement, context: ParseContext, skipped: Set<string>): PortRef | undefined {
  // "open|filtered" (UDP without an answer) is not known to be open.
  if (child(port, 'state')?.attributes.state !== 'open') return undefined;
  const portid = port.attributes.portid ?? '';
  const number = Number(portid);
  const protocol = port.attributes.protocol;
  if (!/^\d{1,5}$/.test(portid) || number > 65535) return undefined;
  if (protocol === 'tcp' || protocol === 'udp') return { port: number, protocol };
  if (protocol && !skipped.has(protocol)) {
    skipped.add(protocol);
    context.warn(`Open ${protocol} ports were skipped: only TCP and UDP services are recorded.`);
  }
  return undefined;
}

/**
 * Records of one `<host>`: a service per open port, a finding per `vulners` entry on it, or the
 * bare asset when the host is up with nothing open. Hosts not up are passed over.
 */
export function* hostRecords(
  host: XmlElement,
  context: ParseContext,
  limits: TextLimits,
  skippedProtocols: Set<string>,
): Generator<ImportRecord> {
  const state = child(host, 'status')?.attributes.state;
  if (state && state !== 'up') return;
  const asset = hostAsset(host, limits);
  if (!asset) {
    context.warn('A host without any address or name was skipped.');
    return;
  }
  let open = 0;
  for (const port of children(child(host, 'ports') ?? host, 'port')) {
    const where = openPort(port, context, skippedProtocols);
    if (!where) continue;
    open += 1;
    yield portService(asset, where, port, limits);
    for (const script of children(port, 'script')) {
      if (script.attributes.id !== 'vulners') continue;
      for (const entry of vulnersEntries(script)) yield vulnersFinding(asset, where, entry, limits);
    }
  }
  if (open === 0) yield { type: 'asset', asset };
}
