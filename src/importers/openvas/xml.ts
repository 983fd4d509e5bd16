import type { Readable } from 'node:stream';
import { cveIdsIn, cweIdsIn } from '../../parsing/ids.js';
import { ReportError } from '../../parsing/report-error.js';
import { child, children, childText, type XmlElement, xmlElements } from '../../parsing/xml.js';
import { cvss2Of, cvss2VectorOf, cvss3VectorOf, cvss4VectorOf, cvssScoreOf } from '../common/cvss-score.js';
import { type TextLimits, textLimits } from '../common/limits.js';
import { httpUrlsIn, nonEmpty, SeenKeys, unique, withoutUndefined } from '../common/report-values.js';
import type { AssetRef, FindingRecord, ImportRecord, ParseContext, VulnerabilityRef } from '../types.js';
import {
  describe,
  fixedVersionIn,
  isPlaceholder,
  locationOf,
  OpenvasHosts,
  parsePort,
  serviceOf,
  unwrap,
} from './result.js';
import { isFalsePositive, openvasSeverity } from './severity.js';

/** Root elements of a GMP/OMP report export (bare, or as the get_reports answer). */
const ROOTS = new Set(['report', 'get_reports_response']);

/** Ports of addresses whose host is not known yet, kept until the end of the report (a bound). */
const MAX_LATER_PORTS = 10_000;

/** A service once per host (its address, else its name), port and protocol. */
function serviceKey(asset: AssetRef, port: number, protocol: string): string {
  return JSON.stringify([asset.ipAddresses ?? [asset.fqdn, asset.hostname], port, protocol]);
}

/**
 * Reads an OpenVAS / Greenbone XML report one element at a time: each `results/result` gives a
 * finding, each report-level `host` an asset record (its OS and names come after the results in
 * the file), each `ports/port` a service. Both layouts are read: the classic one (OpenVAS 8/9,
 * OMP: `<cve>`, `<bid>`, `<xref>` lists in the NVT) and the current one (GVM 10+, GMP: `<refs>`,
 * `<severities>` with CVSS v3/v4 vectors, `<solution>`).
 */
export async function* openvasXmlRecords(
  input: Readable,
  context: ParseContext,
): AsyncGenerator<ImportRecord> {
  const limits = textLimits(context);
  const seenServices = new SeenKeys();
  const hosts = new OpenvasHosts(context, limits);
  // The ports list comes before the results: a port of an invalid address waits for its name.
  const laterPorts: { address: string; port: string }[] = [];
  let root: string | undefined;
  // Reports of GMP before 20.08 (GVM 11 and older) rate every NVT with CVSS v2 alone.
  const scoring: NvtScoring = { v2Only: false };
  const elements = xmlElements(
    input,
    (name, ancestors) => {
      if (ancestors.length === 0) root = name;
      const parent = ancestors[ancestors.length - 1]?.name;
      return (
        (name === 'result' && parent === 'results') ||
        (name === 'host' && parent === 'report') ||
        (name === 'port' && parent === 'ports') ||
        (name === 'version' && parent === 'gmp')
      );
    },
    { maxTextChars: Math.max(context.maxEvidenceChars, context.maxFieldChars) + 1 },
  );
  const serviceOnce = (asset: AssetRef, port: string | undefined) => {
    const service = serviceOf(asset, parsePort(port));
    return service && seenServices.first(serviceKey(asset, service.port, service.protocol))
      ? service
      : undefined;
  };
  for await (const { element } of elements) {
    if (element.name === 'result') {
      const host = child(element, 'host');
      const asset = hosts.asset(host?.text, host && childText(host, 'hostname'));
      if (!asset) {
        if (host?.text.trim()) hosts.skip(host.text);
        continue;
      }
      const service = serviceOnce(asset, childText(element, 'port'));
      if (service) yield service;
      yield findingOf(element, asset, limits, scoring);
    } else if (element.name === 'version') {
      scoring.v2Only = gmpBeforeCvss3(element.text);
    } else if (element.name === 'host') {
      const asset = hostElementAsset(element, hosts);
      if (asset) yield { type: 'asset', asset };
    } else {
      const address = childText(element, 'host');
      const asset = hosts.asset(address, undefined);
      if (asset) {
        const service = serviceOnce(asset, element.text);
        if (service) yield service;
      } else if (address && hosts.isUnnamed(address)) {
        if (laterPorts.length < MAX_LATER_PORTS) laterPorts.push({ address, port: element.text });
        else hosts.skip(address);
      }
    }
  }
  for (const { address, port } of laterPorts) {
    const asset = hosts.asset(address, undefined);
    const service = asset && serviceOnce(asset, port);
    if (service) yield service;
    else if (!asset) hosts.skip(address);
  }
  if (!root || !ROOTS.has(root))
    throw new ReportError(
      `Not an OpenVAS XML report: the root element is <${root ?? 'none'}>, not <report>.`,
    );
}

/** The report-level host: address, then details OpenVAS gathered (names, best OS guess, MAC). */
function hostElementAsset(host: XmlElement, hosts: OpenvasHosts): AssetRef | undefined {
  const details = new Map<string, string>();
  for (const detail of children(host, 'detail')) {
    const name = childText(detail, 'name')?.toLowerCase();
    const value = childText(detail, 'value');
    if (name && value && !details.has(name)) details.set(name, value);
  }
  const mac = details.get('mac')?.toLowerCase();
  const address = childText(host, 'ip');
  const asset = hosts.asset(address, details.get('hostname'), {
    operatingSystem: details.get('best_os_txt'),
    macAddresses: mac ? [mac] : undefined,
  });
  if (!asset && address) hosts.skip(address);
  return asset;
}

/** NVT tags: "summary=…|insight=…|cvss_base_vector=…" (a value may hold "|" but not "|key="). */
function nvtTags(nvt: XmlElement | undefined): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of (nvt ? (childText(nvt, 'tags') ?? '') : '').split(/\|(?=[A-Za-z_]+=)/)) {
    const eq = part.indexOf('=');
    if (eq > 0) tags.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return tags;
}

/** Comma-separated ids of the classic layout ("CVE-2011-3389, CVE-2015-0204", "NOCVE"). */
function listed(nvt: XmlElement, name: string): string[] {
  return (childText(nvt, name) ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id && !isPlaceholder(id));
}

/** The NVT's ids and links: `<refs><ref type id/>` (current) and `<cve>/<bid>/<xref>` (classic). */
function nvtRefs(nvt: XmlElement): Pick<VulnerabilityRef, 'cveIds' | 'aliases' | 'cweIds' | 'references'> {
  const refs = children(child(nvt, 'refs') ?? nvt, 'ref').map((r) => ({
    type: (r.attributes.type ?? '').toLowerCase(),
    id: (r.attributes.id ?? '').trim(),
  }));
  const ofType = (type: string) => refs.filter((r) => r.type === type).map((r) => r.id);
  const xrefs = listed(nvt, 'xref');
  const urls = [...ofType('url'), ...xrefs.filter((x) => /^URL:/i.test(x)).map((x) => x.slice(4))];
  const others = [
    ...refs.filter((r) => !['cve', 'url', 'cwe', 'bid'].includes(r.type) && r.id).map((r) => r.id),
    ...[...ofType('bid'), ...listed(nvt, 'bid')].map((bid) => `BID:${bid}`),
    // "CERT:CB-K16/1828" names the advisory a <cert_ref> may name again.
    ...xrefs.filter((x) => !/^URL:/i.test(x)).map((x) => x.replace(/^CERT:/i, '')),
    ...children(child(nvt, 'cert') ?? nvt, 'cert_ref').map((c) => c.attributes.id),
  ];
  return {
    cveIds: nonEmpty(unique([...ofType('cve'), ...listed(nvt, 'cve')].flatMap(cveIdsIn))),
    aliases: nonEmpty(unique(others)),
    cweIds: nonEmpty(unique(ofType('cwe').flatMap((id) => cweIdsIn(/^\d+$/.test(id) ? `CWE-${id}` : id)))),
    references: nonEmpty(unique(urls.flatMap(httpUrlsIn))),
  };
}

/** What the report says of how its NVTs were scored. */
interface NvtScoring {
  v2Only: boolean;
}

/** GMP before 20.08 ("9.0" is GVM 11): NVTs had CVSS v2 vectors and scores only. */
function gmpBeforeCvss3(version: string): boolean {
  const [major] = version.trim().split('.').map(Number);
  return major !== undefined && Number.isFinite(major) && major < 20;
}

/**
 * CVSS v2, v3 and v4 from `<severities>` (GVM 21.04+), else from the `cvss_base_vector` tag, whose
 * version is that of `<cvss_base>` (the NVT's score). A `<cvss_base>` without a vector is v2 in a
 * report of GMP before 20.08, and of no known version otherwise (then the severity alone says it).
 */
function nvtCvss(nvt: XmlElement, tags: Map<string, string>, scoring: NvtScoring): Partial<VulnerabilityRef> {
  const severities = children(child(nvt, 'severities') ?? nvt, 'severity');
  const ofType = (prefix: string) => severities.find((s) => s.attributes.type?.startsWith(prefix));
  const v2 = ofType('cvss_base_v2');
  const v3 = ofType('cvss_base_v3');
  const v4 = ofType('cvss_base_v4');
  const tagVector = tags.get('cvss_base_vector')?.trim();
  const base = childText(nvt, 'cvss_base');
  const cvss3Vector = cvss3VectorOf(v3 ? childText(v3, 'value') : tagVector);
  const cvss4Vector = cvss4VectorOf(v4 ? childText(v4, 'value') : tagVector);
  const tagIsV2 = !!cvss2VectorOf(tagVector) || (!tagVector && scoring.v2Only);
  return {
    ...(v2
      ? cvss2Of(cvssScoreOf(childText(v2, 'score')), childText(v2, 'value'))
      : tagIsV2
        ? cvss2Of(cvssScoreOf(base), tagVector)
        : {}),
    cvss3Vector,
    cvss3Score: cvssScoreOf(v3 ? childText(v3, 'score') : cvss3Vector ? base : undefined),
    cvss4Vector,
    cvss4Score: cvssScoreOf(v4 ? childText(v4, 'score') : cvss4Vector ? base : undefined),
  };
}

function findingOf(
  result: XmlElement,
  asset: AssetRef,
  limits: TextLimits,
  scoring: NvtScoring,
): FindingRecord {
  const nvt = child(result, 'nvt');
  const tags = nvtTags(nvt);
  const oid = nvt?.attributes.oid?.trim() || 'unknown';
  const threat = childText(result, 'threat');
  const falsePositive = isFalsePositive(threat);
  const severity = falsePositive
    ? openvasSeverity(childText(result, 'original_threat'), childText(result, 'original_severity'))
    : openvasSeverity(threat, childText(result, 'severity'));
  const evidence = childText(result, 'description');
  const solution = (nvt && childText(nvt, 'solution')) ?? tags.get('solution');
  const vulnerability: VulnerabilityRef = withoutUndefined({
    ruleId: oid,
    // The NVT's name: the result's own <name> repeats it, unless the report was anonymised.
    title:
      limits.field((nvt && childText(nvt, 'name')) ?? childText(result, 'name'), 'title') ??
      `OpenVAS NVT ${oid}`,
    description: limits.field(describe(Object.fromEntries(tags)), 'description'),
    solution: limits.field(unwrap(solution), 'solution'),
    ...(nvt ? withoutUndefined(nvtRefs(nvt)) : {}),
    ...(nvt ? withoutUndefined(nvtCvss(nvt, tags, scoring)) : {}),
  });
  return withoutUndefined<FindingRecord>({
    type: 'finding',
    asset,
    vulnerability,
    location: locationOf(parsePort(childText(result, 'port'))),
    severity,
    evidence: limits.evidence(evidence),
    toolFindingId: limits.field(result.attributes.id, 'result id'),
    state: falsePositive
      ? { state: 'FalsePositive', reason: 'An OpenVAS override marks it a false positive.' }
      : undefined,
    fixedIn: limits.field(fixedVersionIn(evidence), 'fixed version'),
  });
}
