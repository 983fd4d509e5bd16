import type { Static } from 'typebox';
import type { AssetKind } from '../../db/schema.js';
import type { CsvColumn } from '../../http/csv.js';
import type { AssetListFilter, AssetRow } from './repository.js';
import type { CreateAssetSchema, CreateServiceSchema, UpdateAssetSchema } from './schemas.js';
import type { Asset, AssetInput, AssetService } from './service.js';

// How assets and their services look on the wire, and how requests become the service's input.

export const toAssetDto = (a: AssetRow) => ({
  Id: a.id,
  Kind: a.kind,
  Name: a.name,
  FriendlyName: a.friendly_name,
  Hostname: a.hostname,
  Fqdn: a.fqdn,
  DomainName: a.domain_name,
  IpAddress: a.ip_addresses[0] ?? null,
  IpAddresses: a.ip_addresses,
  MacAddress: a.mac_addresses[0] ?? null,
  MacAddresses: a.mac_addresses,
  OperatingSystem: a.operating_system,
  Url: a.url,
  Criticality: a.criticality,
  Confidentiality: a.confidentiality,
  Integrity: a.integrity,
  Availability: a.availability,
  OwnerId: a.owner_user_id,
  InternetFacing: a.internet_facing,
  Tags: a.tags,
  Sources: a.sources,
  FirstSeen: a.first_seen_at.toISOString(),
  LastSeen: a.last_seen_at.toISOString(),
  CreatedAt: a.created_at.toISOString(),
  UpdatedAt: a.updated_at.toISOString(),
});

export const toAssetDetailDto = (a: Asset) => ({
  ...toAssetDto(a),
  Identifiers: a.identifiers.map((i) => ({ Kind: i.kind, Value: i.value })),
});

export const ASSET_CSV: readonly CsvColumn<AssetRow>[] = [
  { header: 'Id', value: (a) => a.id },
  { header: 'Kind', value: (a) => a.kind },
  { header: 'Name', value: (a) => a.name },
  { header: 'FriendlyName', value: (a) => a.friendly_name },
  { header: 'Fqdn', value: (a) => a.fqdn },
  { header: 'IpAddresses', value: (a) => a.ip_addresses.join(' ') },
  { header: 'Url', value: (a) => a.url },
  { header: 'OperatingSystem', value: (a) => a.operating_system },
  { header: 'Criticality', value: (a) => a.criticality },
  { header: 'InternetFacing', value: (a) => a.internet_facing },
  { header: 'Tags', value: (a) => a.tags.join(' ') },
  { header: 'FirstSeen', value: (a) => a.first_seen_at.toISOString() },
  { header: 'LastSeen', value: (a) => a.last_seen_at.toISOString() },
];

type HostService = Awaited<ReturnType<AssetService['services']>>[number];

export const toServiceDto = (v: HostService) => ({
  Id: v.id,
  Port: v.port,
  Protocol: v.protocol,
  Name: v.name,
  Product: v.product,
  Version: v.version,
  Cpe: v.cpe,
  Banner: v.banner,
  FirstSeen: v.first_seen_at.toISOString(),
  LastSeen: v.last_seen_at.toISOString(),
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
export const assetPatchFromBody = (b: Static<typeof UpdateAssetSchema>) => ({
  ...(b.FriendlyName !== undefined ? { friendly_name: b.FriendlyName } : {}),
  ...(b.OperatingSystem !== undefined ? { operating_system: b.OperatingSystem } : {}),
  ...(b.Criticality !== undefined ? { criticality: b.Criticality } : {}),
  ...(b.Confidentiality !== undefined ? { confidentiality: b.Confidentiality } : {}),
  ...(b.Integrity !== undefined ? { integrity: b.Integrity } : {}),
  ...(b.Availability !== undefined ? { availability: b.Availability } : {}),
  ...(b.OwnerId !== undefined ? { owner_user_id: b.OwnerId } : {}),
  ...(b.InternetFacing !== undefined ? { internet_facing: b.InternetFacing } : {}),
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
