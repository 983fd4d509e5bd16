import type { Static } from 'typebox';
import type { AssetKind } from '../../db/schema.js';
import type { CsvColumn } from '../../http/csv.js';
import type { AssetListFilter } from './repository.js';
import type { CreateAssetSchema, CreateServiceSchema, UpdateAssetSchema } from './schemas.js';
import type { AssetInput } from './service.js';
import type { Asset, AssetDetail, AssetPatch, AssetWithFindings, HostService } from './types.js';

// How assets and their services look on the wire, and how requests become the service's input.

export const toAssetDto = (a: Asset) => ({
  Id: a.id,
  Kind: a.kind,
  Name: a.name,
  FriendlyName: a.friendlyName,
  Hostname: a.hostname,
  Fqdn: a.fqdn,
  DomainName: a.domainName,
  IpAddress: a.ipAddresses[0] ?? null,
  IpAddresses: a.ipAddresses,
  MacAddress: a.macAddresses[0] ?? null,
  MacAddresses: a.macAddresses,
  OperatingSystem: a.operatingSystem,
  Url: a.url,
  Criticality: a.criticality,
  Confidentiality: a.confidentiality,
  Integrity: a.integrity,
  Availability: a.availability,
  OwnerId: a.ownerUserId,
  InternetFacing: a.internetFacing,
  Tags: a.tags,
  Sources: a.sources,
  FirstSeen: a.firstSeenAt.toISOString(),
  LastSeen: a.lastSeenAt.toISOString(),
  CreatedAt: a.createdAt.toISOString(),
  UpdatedAt: a.updatedAt.toISOString(),
});

/** A row of the asset list: the asset with its open findings and their top risk. */
export const toAssetListItemDto = (a: AssetWithFindings) => ({
  ...toAssetDto(a),
  OpenFindings: a.openFindings,
  TopRisk: a.topRisk,
});

export const toAssetDetailDto = (a: AssetDetail) => ({
  ...toAssetDto(a),
  Identifiers: a.identifiers.map((i) => ({ Kind: i.kind, Value: i.value })),
});

export const ASSET_CSV: readonly CsvColumn<Asset>[] = [
  { header: 'Id', value: (a) => a.id },
  { header: 'Kind', value: (a) => a.kind },
  { header: 'Name', value: (a) => a.name },
  { header: 'FriendlyName', value: (a) => a.friendlyName },
  { header: 'Fqdn', value: (a) => a.fqdn },
  { header: 'IpAddresses', value: (a) => a.ipAddresses.join(' ') },
  { header: 'Url', value: (a) => a.url },
  { header: 'OperatingSystem', value: (a) => a.operatingSystem },
  { header: 'Criticality', value: (a) => a.criticality },
  { header: 'InternetFacing', value: (a) => a.internetFacing },
  { header: 'Tags', value: (a) => a.tags.join(' ') },
  { header: 'FirstSeen', value: (a) => a.firstSeenAt.toISOString() },
  { header: 'LastSeen', value: (a) => a.lastSeenAt.toISOString() },
];

export const toServiceDto = (v: HostService) => ({
  Id: v.id,
  Port: v.port,
  Protocol: v.protocol,
  Name: v.name,
  Product: v.product,
  Version: v.version,
  Cpe: v.cpe,
  Banner: v.banner,
  FirstSeen: v.firstSeenAt.toISOString(),
  LastSeen: v.lastSeenAt.toISOString(),
});

/** The filter of an assets list (query string) or a bulk action (`Filter` in its body). */
export const assetFilterFrom = (f: {
  Kind?: AssetKind;
  Tag?: string;
  Search?: string;
  InternetFacing?: boolean;
  CriticalityMin?: number;
}): AssetListFilter => ({
  kind: f.Kind,
  tag: f.Tag,
  search: f.Search,
  internetFacing: f.InternetFacing,
  criticalityMin: f.CriticalityMin,
});

/** An asset added by hand (POST /assets). */
export const assetInputFromBody = (b: Static<typeof CreateAssetSchema>): AssetInput => ({
  kind: b.Kind,
  name: b.Name,
  friendlyName: b.FriendlyName,
  hostname: b.Hostname,
  fqdn: b.Fqdn,
  ipAddresses: b.IpAddresses,
  macAddresses: b.MacAddresses,
  operatingSystem: b.OperatingSystem,
  url: b.Url,
  image: b.Image,
  repository: b.Repository,
  criticality: b.Criticality,
  internetFacing: b.InternetFacing,
  tags: b.Tags,
  source: 'Manual',
});

/** The changes of PATCH /assets/{Id}: only the properties the body names. */
export const assetPatchFromBody = (b: Static<typeof UpdateAssetSchema>): AssetPatch => ({
  ...(b.FriendlyName !== undefined ? { friendlyName: b.FriendlyName } : {}),
  ...(b.OperatingSystem !== undefined ? { operatingSystem: b.OperatingSystem } : {}),
  ...(b.Criticality !== undefined ? { criticality: b.Criticality } : {}),
  ...(b.Confidentiality !== undefined ? { confidentiality: b.Confidentiality } : {}),
  ...(b.Integrity !== undefined ? { integrity: b.Integrity } : {}),
  ...(b.Availability !== undefined ? { availability: b.Availability } : {}),
  ...(b.OwnerId !== undefined ? { ownerUserId: b.OwnerId } : {}),
  ...(b.InternetFacing !== undefined ? { internetFacing: b.InternetFacing } : {}),
  ...(b.Tags !== undefined ? { tags: b.Tags } : {}),
});

/** A service seen on a host (POST /assets/{Id}/services). */
export const serviceInputFromBody = (b: Static<typeof CreateServiceSchema>) => ({
  port: b.Port,
  protocol: b.Protocol,
  name: b.Name,
  product: b.Product,
  version: b.Version,
  cpe: b.Cpe,
  banner: b.Banner,
});
