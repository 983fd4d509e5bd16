import { Type } from 'typebox';
import { PageSchema, pageQueryFields } from '../../http/page.js';

const Kind = Type.Union(
  [
    Type.Literal('Host'),
    Type.Literal('WebApplication'),
    Type.Literal('ContainerImage'),
    Type.Literal('CodeRepository'),
  ],
  {
    description:
      'Host (addresses, names), WebApplication (base URL); image and repository kinds come with imports.',
  },
);
const Rating = Type.Integer({ minimum: 1, maximum: 5 });
const NullableText = (max: number) => Type.Union([Type.String({ maxLength: max }), Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const AssetSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Kind,
    Name: Type.String(),
    FriendlyName: Type.Union([Type.String(), Type.Null()]),
    Hostname: Type.Union([Type.String(), Type.Null()]),
    Fqdn: Type.Union([Type.String(), Type.Null()]),
    DomainName: Type.Union([Type.String(), Type.Null()]),
    IpAddress: Type.Union([Type.String(), Type.Null()], { description: 'The first of IpAddresses.' }),
    IpAddresses: Type.Array(Type.String()),
    MacAddress: Type.Union([Type.String(), Type.Null()]),
    MacAddresses: Type.Array(Type.String()),
    OperatingSystem: Type.Union([Type.String(), Type.Null()]),
    Url: Type.Union([Type.String(), Type.Null()]),
    Criticality: Rating,
    Confidentiality: Type.Union([Rating, Type.Null()]),
    Integrity: Type.Union([Rating, Type.Null()]),
    Availability: Type.Union([Rating, Type.Null()]),
    OwnerId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    InternetFacing: Type.Boolean(),
    Tags: Type.Array(Type.String()),
    Sources: Type.Array(Type.String(), { description: 'Who reported it: Manual, or the importing tool.' }),
    FirstSeen: Time,
    LastSeen: Time,
    CreatedAt: Time,
    UpdatedAt: Time,
  },
  { additionalProperties: false },
);

export const AssetDetailSchema = Type.Object(
  {
    ...AssetSchema.properties,
    Identifiers: Type.Array(
      Type.Object({ Kind: Type.String(), Value: Type.String() }, { additionalProperties: false }),
      { description: 'What merges other reports into this asset.' },
    ),
  },
  { additionalProperties: false },
);

export const AssetListItemSchema = Type.Object(
  {
    ...AssetSchema.properties,
    OpenFindings: Type.Integer({ minimum: 0, description: 'Its findings that are Open or Reopened.' }),
    TopRisk: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: 'The highest risk score (0–100) of its open findings; null without any.',
    }),
  },
  { additionalProperties: false },
);

export const AssetListSchema = PageSchema(AssetListItemSchema);

export const AssetListQuery = Type.Object(
  {
    ...pageQueryFields(100),
    Kind: Type.Optional(Kind),
    Tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    Search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Part of a name, FQDN, URL or address.' }),
    ),
    InternetFacing: Type.Optional(Type.Boolean()),
    CriticalityMin: Type.Optional(Rating),
  },
  { additionalProperties: false },
);

export const CreateAssetSchema = Type.Object(
  {
    Kind,
    Name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    FriendlyName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    Hostname: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    Fqdn: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    IpAddresses: Type.Optional(Type.Array(Type.String({ maxLength: 45 }), { maxItems: 64 })),
    MacAddresses: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 })),
    OperatingSystem: Type.Optional(Type.String({ maxLength: 255 })),
    Url: Type.Optional(Type.String({ maxLength: 2048 })),
    Image: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'ContainerImage: e.g. alpine:3.18 or registry/app@sha256:…',
      }),
    ),
    Repository: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'CodeRepository: its URL or name.' }),
    ),
    Criticality: Type.Optional(Rating),
    InternetFacing: Type.Optional(Type.Boolean()),
    Tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);

export const UpdateAssetSchema = Type.Object(
  {
    FriendlyName: Type.Optional(NullableText(255)),
    OperatingSystem: Type.Optional(NullableText(255)),
    Criticality: Type.Optional(Rating),
    Confidentiality: Type.Optional(Type.Union([Rating, Type.Null()])),
    Integrity: Type.Optional(Type.Union([Rating, Type.Null()])),
    Availability: Type.Optional(Type.Union([Rating, Type.Null()])),
    OwnerId: Type.Optional(Type.Union([Type.String({ format: 'uuid' }), Type.Null()])),
    InternetFacing: Type.Optional(Type.Boolean()),
    Tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const BulkTagSchema = Type.Object(
  {
    Filter: Type.Object(
      {
        Kind: Type.Optional(Kind),
        Tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        Search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        InternetFacing: Type.Optional(Type.Boolean()),
        CriticalityMin: Type.Optional(Rating),
      },
      { additionalProperties: false },
    ),
    Add: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
    Remove: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);

export const ServiceSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Port: Type.Integer(),
    Protocol: Type.Union([Type.Literal('tcp'), Type.Literal('udp')]),
    Name: Type.Union([Type.String(), Type.Null()], { examples: ['ssh'] }),
    Product: Type.Union([Type.String(), Type.Null()], { examples: ['OpenSSH'] }),
    Version: Type.Union([Type.String(), Type.Null()], { examples: ['8.9p1'] }),
    Cpe: Type.Union([Type.String(), Type.Null()], {
      examples: ['cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*'],
    }),
    Banner: Type.Union([Type.String(), Type.Null()]),
    FirstSeen: Type.String({ format: 'date-time' }),
    LastSeen: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const CreateServiceSchema = Type.Object(
  {
    Port: Type.Integer({ minimum: 0, maximum: 65535 }),
    Protocol: Type.Union([Type.Literal('tcp'), Type.Literal('udp')]),
    Name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    Product: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    Version: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    Cpe: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    Banner: Type.Optional(Type.String({ maxLength: 65536 })),
  },
  { additionalProperties: false },
);
