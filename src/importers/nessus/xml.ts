import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { cveIdsIn } from '../../parsing/ids.js';
import { ReportError } from '../../parsing/report-error.js';
import { child, children, childText, type XmlElement, xmlElements } from '../../parsing/xml.js';
import { cvss2Of, cvss3VectorOf } from '../common/cvss-score.js';
import { withoutLayoutIndent } from '../common/layout-text.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { webUrl } from '../common/network-target.js';
import {
  httpUrlsIn,
  isoDate,
  leadingScore,
  nonEmpty,
  unique,
  withoutUndefined,
} from '../common/report-values.js';
import type {
  AssetRef,
  FindingRecord,
  ImportRecord,
  LocationRef,
  ParseContext,
  ServiceRecord,
} from '../types.js';
import { cweIdsOf, fixedVersionIn, otherIds, serviceName } from './refs.js';
import { nessusSeverity } from './severity.js';

/**
 * Reads a .nessus (NessusClientData_v2) report, one ReportHost at a time: the host's
 * HostProperties give the asset, each ReportItem a finding (severity 0 "informational" results
 * included: they carry the inventory), and each port a service. Tenable Web App Scanning writes
 * the same layout with a URL as the host; those become WebApplication assets.
 */
export async function* nessusXmlRecords(
  input: Readable,
  context: ParseContext,
): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  let root: string | undefined;
  const hosts = xmlElements(
    input,
    (name, ancestors) => {
      if (ancestors.length === 0) root = name;
      return name === 'ReportHost' && ancestors[ancestors.length - 1]?.name === 'Report';
    },
    { maxTextChars: Math.max(context.maxEvidenceChars, context.maxFieldChars) + 1 },
  );
  for await (const { element, ancestors } of hosts) {
    const reportType = ancestors[ancestors.length - 1]?.attributes.type;
    yield* hostRecords(element, reportType, limits);
  }
  if (root !== 'NessusClientData_v2')
    throw new ReportError(
      `Not a Nessus v2 report: the root element is <${root ?? 'none'}>, not <NessusClientData_v2>.`,
    );
}

function* hostRecords(
  host: XmlElement,
  reportType: string | undefined,
  limits: TextLimits,
): Generator<ImportRecord> {
  const tags = hostTags(host);
  const asset = hostAsset(host.attributes.name?.trim() ?? '', tags, reportType, limits);
  if (!asset) return;
  const items = children(host, 'ReportItem');
  const seen = new Set<string>();
  for (const item of items) {
    const service = asset.kind === 'Host' ? serviceOf(item, asset, limits) : undefined;
    const key = service && `${service.protocol}/${service.port}`;
    if (service && key && !seen.has(key)) {
      seen.add(key);
      yield service;
    }
    yield findingOf(item, asset, limits);
  }
  if (items.length === 0) yield { type: 'asset', asset };
}

/** HostProperties tags by name (the first of a repeated name). */
function hostTags(host: XmlElement): Map<string, string> {
  const tags = new Map<string, string>();
  for (const tag of children(child(host, 'HostProperties') ?? host, 'tag')) {
    const name = tag.attributes.name;
    const value = tag.text.trim();
    if (name && value && !tags.has(name)) tags.set(name, value);
  }
  return tags;
}

/**
 * The asset of a ReportHost. Its `name` is what was scanned (an address, a name, or a URL for
 * Web App Scanning); host-ip, host-fqdn, netbios-name, mac-address and operating-system say
 * more when Nessus found them.
 */
function hostAsset(
  name: string,
  tags: Map<string, string>,
  reportType: string | undefined,
  limits: TextLimits,
): AssetRef | undefined {
  const url = webUrl(tags.get('host-fqdn')) ?? webUrl(name);
  if (url && (reportType === 'was' || tags.get('system-type') === 'web_application' || webUrl(name))) {
    const path = url.pathname === '/' ? '' : url.pathname;
    return { kind: 'WebApplication', url: url.origin + path, name: limits.field(name, 'host name') };
  }
  // host-ip is kept as written: the import leaves out one that is not an address, and says so.
  const ipAddresses = unique([tags.get('host-ip'), isIP(name) ? name : undefined]);
  const fqdn = tags.get('host-fqdn') ?? (!isIP(name) && name.includes('.') ? name : undefined);
  const hostname =
    tags.get('netbios-name') ?? (!isIP(name) && !name.includes('.') && name ? name : undefined);
  const macAddresses = unique((tags.get('mac-address') ?? '').toLowerCase().split(/[\s,]+/));
  // Nessus lists several candidates, one a line, when it is unsure of the OS: the first is likeliest.
  const operatingSystem = tags.get('operating-system')?.split('\n')[0];
  if (ipAddresses.length === 0 && !fqdn && !hostname) return undefined;
  return withoutUndefined<AssetRef>({
    kind: 'Host',
    name: limits.field(name, 'host name'),
    ipAddresses: nonEmpty(ipAddresses),
    fqdn: limits.field(fqdn, 'host name'),
    hostname: limits.field(hostname, 'host name'),
    macAddresses: nonEmpty(macAddresses),
    operatingSystem: limits.field(operatingSystem, 'operating system'),
  });
}

function portOf(item: XmlElement): { port: number; protocol: 'tcp' | 'udp' } | undefined {
  const port = Number(item.attributes.port);
  const protocol = item.attributes.protocol?.trim().toLowerCase();
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  return protocol === 'tcp' || protocol === 'udp' ? { port, protocol } : undefined;
}

function serviceOf(item: XmlElement, asset: AssetRef, limits: TextLimits): ServiceRecord | undefined {
  const where = portOf(item);
  if (!where) return undefined;
  const name = limits.field(serviceName(item.attributes.svc_name), 'service name');
  return { type: 'service', asset, ...where, ...(name ? { name } : {}) };
}

function texts(item: XmlElement, name: string): string[] {
  return children(item, name)
    .map((c) => c.text.trim())
    .filter(Boolean);
}

/** An element's text without the indentation a pretty-printed file gives it (read untrimmed). */
function layoutText(item: XmlElement, name: string): string | undefined {
  return withoutLayoutIndent(child(item, name)?.text);
}

function findingOf(item: XmlElement, asset: AssetRef, limits: TextLimits): FindingRecord {
  const attributes = item.attributes;
  const pluginId = attributes.pluginID?.trim() || childText(item, 'plugin_id') || 'unknown';
  const ids = otherIds(texts(item, 'xref'), texts(item, 'bid'));
  const where = portOf(item);
  const location: LocationRef = where ? { kind: 'Port', ...where } : { kind: 'None' };
  const output = layoutText(item, 'plugin_output');
  const solution = layoutText(item, 'solution');
  return withoutUndefined({
    type: 'finding',
    asset,
    vulnerability: withoutUndefined({
      ruleId: pluginId,
      title:
        limits.field(attributes.pluginName || childText(item, 'plugin_name'), 'title') ??
        `Nessus plugin ${pluginId}`,
      cveIds: nonEmpty(unique(texts(item, 'cve').flatMap(cveIdsIn))),
      aliases: nonEmpty(ids.aliases),
      description: limits.field(
        layoutText(item, 'description') ?? layoutText(item, 'synopsis'),
        'description',
      ),
      solution: limits.field(solution?.toLowerCase() === 'n/a' ? undefined : solution, 'solution'),
      cweIds: nonEmpty(unique([...cweIdsOf(texts(item, 'cwe')), ...ids.cweIds])),
      // CVSS v2 ("CVSS2#AV:N/…"): older plugins have no other assessment. Web App Scanning
      // writes the v2 base score as <cvss>, beside <cvssv3>.
      ...cvss2Of(
        leadingScore(childText(item, 'cvss_base_score') ?? childText(item, 'cvss')),
        childText(item, 'cvss_vector'),
      ),
      cvss3Vector: cvss3VectorOf(childText(item, 'cvss3_vector'), '3.0'),
      // Web App Scanning writes the v3 base score as <cvssv3>.
      cvss3Score: leadingScore(childText(item, 'cvss3_base_score') ?? childText(item, 'cvssv3')),
      references: nonEmpty(texts(item, 'see_also').flatMap(httpUrlsIn)),
      publishedAt: isoDate(childText(item, 'vuln_publication_date')),
    }),
    location,
    severity: nessusSeverity(attributes.severity) ?? nessusSeverity(childText(item, 'risk_factor')) ?? 'Info',
    evidence: limits.evidence(output),
    fixedIn: limits.field(fixedVersionIn(output), 'fixed version'),
  });
}
