import type { Static } from 'typebox';
import type { RecordSoftwareSchema, SoftwareListQuery } from './schemas.js';
import type { SoftwareCategory, SoftwareInput } from './service.js';
import type { Software } from './types.js';

// How an asset's software looks on the wire, and how requests become the service's input.

export const toSoftwareDto = (s: Software) => ({
  Id: s.id,
  AssetId: s.assetId,
  Name: s.name,
  Version: s.version,
  Vendor: s.vendor,
  Category: s.category as SoftwareCategory,
  Cpe: s.cpe,
  Purl: s.purl,
  FirstSeen: s.firstSeenAt.toISOString(),
  LastSeen: s.lastSeenAt.toISOString(),
  OpenFindings: {
    Critical: Number(s.critical ?? 0),
    High: Number(s.high ?? 0),
    Medium: Number(s.medium ?? 0),
    Low: Number(s.low ?? 0),
  },
});

export const softwareFilterFromQuery = (q: Static<typeof SoftwareListQuery>) => ({
  search: q.Search,
  category: q.Category,
});

export const softwareInputFromBody = (b: Static<typeof RecordSoftwareSchema>): SoftwareInput => ({
  name: b.Name,
  version: b.Version,
  vendor: b.Vendor,
  category: b.Category,
  cpe: b.Cpe,
  purl: b.Purl,
});
