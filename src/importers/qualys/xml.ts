import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import { child, children, childText, type XmlElement, xmlElements } from '../../parsing/xml.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { nonEmpty, unique, withoutUndefined } from '../common/report-values.js';
import type { AssetRef, FindingRecord, ImportRecord, ParseContext } from '../types.js';
import { type Detection, HostServices, portOf, qualysFinding } from './detection.js';
import { type QidDetails, qidDetails, SERVICE_LIST_QIDS, serviceTable } from './qid.js';
import { type QualysType, qualysType } from './severity.js';
import { Spill } from './spill.js';

interface Known {
  details: QidDetails;
  level?: string;
}

/**
 * Reads Qualys VM XML reports, one host element at a time, in either layout:
 * - the scan report (root SCAN, scan-1.dtd): each `IP` holds its results with their
 *   knowledge-base text, grouped in VULNS/PRACTICES/INFOS/SERVICES by `CAT` (port, protocol);
 * - the Asset Data Report (root ASSET_DATA_REPORT): each `HOST_LIST/HOST` lists its detections
 *   (`VULN_INFO`: QID, type, port, result) and the `GLOSSARY` after the host list describes each
 *   QID once. Detections read before their QID's description wait in a temporary file (Spill)
 *   and are completed at the end, so memory holds the glossary, never the host list.
 */
export async function* qualysXmlRecords(
  input: Readable,
  context: ParseContext,
): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  const glossary = new Map<string, Known>();
  let spill: Spill<Detection> | undefined;
  let root: string | undefined;
  try {
    const elements = xmlElements(
      input,
      (name, ancestors) => {
        if (ancestors.length === 0) root = name;
        const parent = ancestors[ancestors.length - 1]?.name;
        return (
          (name === 'IP' && parent === 'SCAN') ||
          (name === 'HOST' && parent === 'HOST_LIST') ||
          (name === 'VULN_DETAILS' && parent === 'VULN_DETAILS_LIST')
        );
      },
      { maxTextChars: Math.max(context.maxEvidenceChars, context.maxFieldChars) + 1 },
    );
    for await (const { element } of elements) {
      if (element.name === 'IP') yield* scanHostRecords(element, limits);
      else if (element.name === 'VULN_DETAILS') glossaryEntry(element, glossary, limits);
      else {
        const { records, detections } = reportHost(element, limits);
        yield* records;
        for (const detection of detections) {
          const known = glossary.get(detection.qid);
          if (known) yield qualysFinding(detection, known.details, known.level);
          else {
            spill ??= await Spill.open<Detection>();
            await spill.write(detection);
          }
        }
      }
    }
    if (root !== 'SCAN' && root !== 'ASSET_DATA_REPORT')
      throw new ReportError(
        `Not a Qualys scan report or Asset Data Report: the root element is <${root ?? 'none'}>, not <SCAN> or <ASSET_DATA_REPORT>.`,
      );
    if (spill) yield* completeSpilled(spill, glossary, context);
  } finally {
    await spill?.dispose();
  }
}

async function* completeSpilled(
  spill: Spill<Detection>,
  glossary: Map<string, Known>,
  context: ParseContext,
): AsyncGenerator<ImportRecord> {
  const missing = new Set<string>();
  for await (const detection of spill.read()) {
    const known = glossary.get(detection.qid);
    if (!known) missing.add(detection.qid);
    yield qualysFinding(detection, known?.details, known?.level);
  }
  if (missing.size > 0)
    context.warn(
      `The glossary does not describe QID ${[...missing].slice(0, 10).join(', ')}; their findings have no title.`,
    );
}

/** The QID of a VULN_INFO or VULN_DETAILS: `<QID id="qid_38170">38170</QID>`. */
function qidOf(element: XmlElement): string | undefined {
  const qid = child(element, 'QID');
  return qid?.text.trim() || qid?.attributes.id?.replace(/^qid_/, '').trim() || undefined;
}

function glossaryEntry(details: XmlElement, glossary: Map<string, Known>, limits: TextLimits): void {
  const qid = qidOf(details) ?? details.attributes.id?.replace(/^qid_/, '');
  if (!qid) return;
  glossary.set(qid, { details: qidDetails(details, limits), level: childText(details, 'SEVERITY') });
}

function hostAsset(
  address: string | undefined,
  dnsName: string | undefined,
  netbios: string | undefined,
  os: string | undefined,
  limits: TextLimits,
): AssetRef | undefined {
  const ip = address?.trim();
  // Qualys writes "No registered hostname" when reverse DNS gave nothing.
  const dns = dnsName && !/^no registered hostname$/i.test(dnsName.trim()) ? dnsName.trim() : undefined;
  // Kept as written: the import leaves out one that is not an address, and says so.
  const ipAddresses = ip ? [ip] : [];
  const fqdn = dns?.includes('.') ? dns : undefined;
  const hostname = netbios?.trim() || (dns && !fqdn ? dns : undefined);
  if (ipAddresses.length === 0 && !fqdn && !hostname) return undefined;
  return withoutUndefined<AssetRef>({
    kind: 'Host',
    ipAddresses: nonEmpty(unique(ipAddresses)),
    fqdn: limits.field(fqdn, 'host name'),
    hostname: limits.field(hostname, 'host name'),
    operatingSystem: limits.field(os, 'operating system'),
  });
}

/** Result sections of a scanned IP: the element of each result and its type. */
const SCAN_SECTIONS: Readonly<Record<string, readonly [string, QualysType]>> = {
  VULNS: ['VULN', 'Vuln'],
  PRACTICES: ['PRACTICE', 'Practice'],
  INFOS: ['INFO', 'Ig'],
  SERVICES: ['SERVICE', 'Ig'],
};

/** One scanned IP of a scan report: its services and findings, or an asset record when it has none. */
function* scanHostRecords(ip: XmlElement, limits: TextLimits): Generator<ImportRecord> {
  if (ip.attributes.status === 'down') return;
  const asset = hostAsset(
    ip.attributes.value,
    ip.attributes.name,
    childText(ip, 'NETBIOS_HOSTNAME'),
    childText(ip, 'OS'),
    limits,
  );
  if (!asset) return;
  const services = new HostServices(asset);
  const findings: FindingRecord[] = [];
  for (const section of ip.children) {
    const [itemName, type] = SCAN_SECTIONS[section.name] ?? [];
    if (!itemName) continue;
    for (const cat of children(section, 'CAT')) {
      const where = portOf(cat.attributes.port, cat.attributes.protocol);
      if (where) services.note(where.port, where.protocol);
      for (const item of children(cat, itemName)) {
        const qid = item.attributes.number?.trim();
        if (!qid) continue;
        const result = childText(item, 'RESULT');
        noteListedServices(qid, result, services);
        const detection: Detection = { qid, asset, type, ...where, result: limits.evidence(result) };
        findings.push(qualysFinding(detection, qidDetails(item, limits), item.attributes.severity));
      }
    }
  }
  yield* services.records(limits);
  yield* findings;
  if (findings.length === 0) yield { type: 'asset', asset };
}

function noteListedServices(qid: string, result: string | undefined, services: HostServices): void {
  const protocol = SERVICE_LIST_QIDS[qid];
  if (!protocol) return;
  for (const { port, name } of serviceTable(result)) services.note(port, protocol, name);
}

/**
 * One host of an Asset Data Report: its service records (or its asset record when it has no
 * detection), and its detections, which the glossary will name.
 */
function reportHost(
  host: XmlElement,
  limits: TextLimits,
): { records: ImportRecord[]; detections: Detection[] } {
  const dnsData = child(host, 'DNS_DATA');
  const asset = hostAsset(
    childText(host, 'IP'),
    childText(host, 'DNS') ?? (dnsData && childText(dnsData, 'FQDN')),
    childText(host, 'NETBIOS'),
    childText(host, 'OPERATING_SYSTEM') ?? childText(host, 'OS'),
    limits,
  );
  if (!asset) return { records: [], detections: [] };
  const services = new HostServices(asset);
  const detections: Detection[] = [];
  for (const info of children(child(host, 'VULN_INFO_LIST') ?? host, 'VULN_INFO')) {
    const qid = qidOf(info);
    if (!qid) continue;
    const where = portOf(childText(info, 'PORT'), childText(info, 'PROTOCOL'));
    if (where) services.note(where.port, where.protocol, childText(info, 'SERVICE'));
    const result = childText(info, 'RESULT');
    noteListedServices(qid, result, services);
    detections.push(
      withoutUndefined<Detection>({
        qid,
        asset,
        type: qualysType(childText(info, 'TYPE')),
        ...where,
        result: limits.evidence(result),
        status: childText(info, 'VULN_STATUS'),
      }),
    );
  }
  const records: ImportRecord[] = services.records(limits);
  if (detections.length === 0) records.push({ type: 'asset', asset });
  return { records, detections };
}
