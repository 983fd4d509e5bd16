import type { Static } from 'typebox';
import type { SoftwareRow } from './repository.js';
import type { RecordSoftwareSchema, SoftwareListQuery } from './schemas.js';
import type { SoftwareCategory, SoftwareInput } from './service.js';

// How an asset's software looks on the wire, and how requests become the service's input.

export const toSoftwareDto = (s: SoftwareRow) => ({
  Id: s.id,
  AssetId: s.asset_id,
  Name: s.name,
  Version: s.version,
  Vendor: s.vendor,
  Category: s.category as SoftwareCategory,
  Cpe: s.cpe,
  Purl: s.purl,
  FirstSeen: s.first_seen_at.toISOString(),
  LastSeen: s.last_seen_at.toISOString(),
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
