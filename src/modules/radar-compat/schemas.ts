import { Type } from 'typebox';

// The request and answer shapes of the RADAR compatibility routes, as the original's clients
// send and read them.

export const Paging = Type.Object(
  {
    StartIndex: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    // Clients ask for 1000 at a time (installed software, findings reports).
    PageSize: Type.Integer({ minimum: 1, maximum: 1000 }),
  },
  { additionalProperties: false },
);
export const AssetPaging = Type.Object(
  { ...Paging.properties, AssetId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
// Clients send a filter object, nothing, or `""` (Python requests' `json=""`); Rampart reads
// what it understands of an object and treats the rest as no filter.
export const OptionalFilters = Type.Union(
  [Type.Object({}, { additionalProperties: true }), Type.Null(), Type.Literal('')],
  { description: 'Filters (ignored); `""` and `null` mean none.' },
);

const DetailedSchema = {
  Name: Type.String(),
  RiskLevel: Type.String({ description: 'High, Medium, Low or Information.' }),
  VulnerabilityCategory: Type.String({
    description:
      'What kind of check found it, from where its findings are: Network (a port), Web (a URL), Software (a package), Code (a file), Generic (anywhere else).',
  }),
  Synopsis: Type.Union([Type.String(), Type.Null()]),
  CVEReferences: Type.Array(Type.Object({ Name: Type.String() }, { additionalProperties: false })),
  CVSSBaseScore: Type.Union([Type.Number(), Type.Literal('')], {
    description:
      'The CVSS base score of the highest version that scored it (v4.0, else v3.x, else v2.0); `""` when none is known.',
  }),
  Solution: Type.Union([Type.String(), Type.Null()]),
};

export const SystemScanDetailedSchema = Type.Object(DetailedSchema, { additionalProperties: false });

export const WebScanDetailedSchema = Type.Object(
  {
    ...DetailedSchema,
    ReferenceId: Type.String({
      description: 'The scanner’s own id of the check (its rule or plugin id); `""` when it has none.',
    }),
  },
  { additionalProperties: false },
);

export const HostPageSchema = Type.Object({
  Items: Type.Array(
    Type.Object({
      Id: Type.String(),
      AssetHostId: Type.String(),
      Hostname: Type.Union([Type.String(), Type.Null()]),
      IpAddress: Type.String(),
      FriendlyName: Type.Union([Type.String(), Type.Null()]),
      MacAddress: Type.Union([Type.String(), Type.Null()]),
      OperatingSystem: Type.Union([Type.String(), Type.Null()]),
      DomainName: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  TotalCount: Type.Integer(),
});

export const AssetIdParams = Type.Object(
  { AssetId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const RatingsSchema = Type.Object({
  Id: Type.String(),
  AssetId: Type.String(),
  Confidentiality: Type.Integer(),
  Integrity: Type.Integer(),
  Availability: Type.Integer(),
  Criticality: Type.Integer(),
});

export const FindingPageSchema = Type.Object({
  Items: Type.Array(
    Type.Object({
      Id: Type.String(),
      PluginGuidId: Type.String(),
      Name: Type.String(),
      RiskLevel: Type.String(),
      CVEReferences: Type.Array(Type.Object({ Name: Type.String() })),
      Port: Type.Union([Type.Integer(), Type.Null()]),
      Protocol: Type.Union([Type.String(), Type.Null()]),
      State: Type.String(),
      FirstSeen: Type.String(),
      LastSeen: Type.String(),
    }),
  ),
  TotalCount: Type.Integer(),
});

export const InstalledSoftwareQuery = Type.Object(
  {
    AssetHostId: Type.String({ format: 'uuid' }),
    categoryName: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    SortPrimary: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  },
  { additionalProperties: true },
);

export const SoftwarePageSchema = Type.Object({
  Items: Type.Array(
    Type.Object({
      Id: Type.String(),
      Name: Type.String(),
      Version: Type.String(),
      Category: Type.String(),
      VulnerabilitiesHigh: Type.Integer(),
      VulnerabilitiesMedium: Type.Integer(),
      VulnerabilitiesLow: Type.Integer(),
    }),
  ),
  TotalCount: Type.Integer(),
});

export const PluginGuidIdParams = Type.Object(
  { PluginGuidId: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
