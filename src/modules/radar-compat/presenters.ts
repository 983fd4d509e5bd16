import type { LocationKind } from '../../db/schema.js';
import { scoreCvss } from '../../intel/cvss/cvss.js';
import { type CheckDefinition, checkById, checkGuid } from '../../scanning/checks/index.js';
import type { Asset, AssetService } from '../assets/service.js';
import type { FindingSummary } from '../findings/types.js';
import type { SoftwareService } from '../software/service.js';
import { categoryOf, cvssBaseScoreOf, RISK_LEVEL, type Vulnerability } from './quirks.js';

/** Rampart's own scans: their check findings are known by the check's stable PluginGuidId. */
const RAMPART_SOURCES = new Set(['Rampart system scan', 'Rampart web scan']);

/** The check's PluginGuidId when a Rampart scan's check found it, else the vulnerability's id. */
function pluginGuidIdOf(f: Pick<FindingSummary, 'source' | 'pluginId' | 'vulnerabilityId'>): string {
  if (RAMPART_SOURCES.has(f.source) && f.pluginId && checkById(f.pluginId)) return checkGuid(f.pluginId);
  return f.vulnerabilityId;
}

/** A Rampart check in detail: its category is the check's own; its score, its vector's. */
export const toRadarCheckDetailed = (c: CheckDefinition) => {
  const scored = c.cvss3Vector ? scoreCvss(c.cvss3Vector) : null;
  return {
    Name: c.title,
    RiskLevel: RISK_LEVEL[c.severity] ?? 'Information',
    VulnerabilityCategory: c.category,
    Synopsis: c.description,
    CVEReferences: [] as { Name: string }[],
    CVSSBaseScore: scored?.ok ? scored.baseScore : ('' as const),
    Solution: c.solution,
  };
};

// Answers shaped as the original service's clients read them (see quirks.ts for the habits).

type OffsetAsset = Awaited<ReturnType<AssetService['listOffset']>>['items'][number];
type OffsetSoftware = Awaited<ReturnType<SoftwareService['listOffset']>>['items'][number];

/** A page by offset as the original answers it: its entries (one item may give several) and how many items in all. */
export const toRadarPage = <T, D>(
  page: { items: T[]; totalCount: number },
  toEntries: (item: T) => D | D[],
) => ({
  Items: page.items.flatMap(toEntries),
  TotalCount: page.totalCount,
});

/** A host as the original lists it: only with an IP address, and only its first one. */
export const toRadarHosts = (a: OffsetAsset) => {
  const [IpAddress] = a.ipAddresses;
  if (IpAddress === undefined) return []; // not listed by the filter; keeps the type exact
  return [
    {
      Id: a.id,
      AssetHostId: a.id,
      Hostname: a.hostname ?? a.name,
      IpAddress,
      FriendlyName: a.friendlyName,
      MacAddress: a.macAddresses[0] ?? null,
      OperatingSystem: a.operatingSystem,
      DomainName: a.domainName,
    },
  ];
};

/**
 * A host as the original lists its endpoint agents' "things". Rampart has no agents: these are the
 * hosts it knows, with their first address, and their tags standing for the directory group.
 */
export const toRadarThing = (a: OffsetAsset) => {
  const [IPAddress] = a.ipAddresses;
  if (IPAddress === undefined) return []; // not listed by the filter; keeps the type exact
  return [
    {
      Hostname: a.hostname ?? a.name,
      IPAddress,
      AdGroupName: a.tags.length > 0 ? a.tags.join(', ') : null,
      OperatingSystem: a.operatingSystem,
    },
  ];
};

/** An asset's business ratings; unrated dimensions take the asset's overall criticality. */
export const toRadarRatings = (
  a: Pick<Asset, 'id' | 'confidentiality' | 'integrity' | 'availability' | 'criticality'>,
) => ({
  Id: a.id,
  AssetId: a.id,
  Confidentiality: a.confidentiality ?? a.criticality,
  Integrity: a.integrity ?? a.criticality,
  Availability: a.availability ?? a.criticality,
  Criticality: a.criticality,
});

export const toRadarFinding = (f: FindingSummary) => ({
  Id: f.id,
  PluginGuidId: pluginGuidIdOf(f),
  Name: f.title,
  RiskLevel: RISK_LEVEL[f.effectiveSeverity] ?? 'Information',
  CVEReferences: f.cveIds.map((Name) => ({ Name })),
  Port: f.port,
  Protocol: f.protocol,
  State: f.state,
  FirstSeen: f.firstSeenAt.toISOString(),
  LastSeen: f.lastSeenAt.toISOString(),
});

/** Installed software; VulnerabilitiesHigh counts Critical and High open findings. */
export const toRadarSoftware = (s: OffsetSoftware) => ({
  Id: s.id,
  Name: s.name,
  Version: s.version,
  Category: s.category,
  VulnerabilitiesHigh: Number(s.critical ?? 0) + Number(s.high ?? 0),
  VulnerabilitiesMedium: Number(s.medium ?? 0),
  VulnerabilitiesLow: Number(s.low ?? 0),
});

/** A vulnerability in detail; where its first finding is says what kind of check it is. */
export const toRadarDetailed = (v: Vulnerability, firstLocation: LocationKind | undefined) => ({
  Name: v.title,
  RiskLevel: RISK_LEVEL[v.severity] ?? 'Information',
  VulnerabilityCategory: categoryOf(firstLocation),
  Synopsis: v.description,
  CVEReferences: v.cveIds.map((Name) => ({ Name })),
  CVSSBaseScore: cvssBaseScoreOf(v),
  Solution: v.solution,
});
