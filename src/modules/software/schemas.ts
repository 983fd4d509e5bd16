import { Type } from 'typebox';
import { PageSchema, pageQueryFields } from '../../http/page.js';
import { SOFTWARE_CATEGORIES } from './service.js';

const Category = Type.Enum(SOFTWARE_CATEGORIES, { description: 'What kind of software it is.' });

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const SoftwareSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    AssetId: Type.String({ format: 'uuid' }),
    Name: Type.String({ examples: ['openssl'] }),
    Version: Type.String({
      description: 'Empty when the version is not known.',
      examples: ['3.0.11-1~deb12u2'],
    }),
    Vendor: Nullable(Type.String()),
    Category,
    Cpe: Nullable(Type.String({ examples: ['cpe:2.3:a:openssl:openssl:3.0.11:*:*:*:*:*:*:*'] })),
    Purl: Nullable(Type.String({ examples: ['pkg:deb/debian/openssl@3.0.11-1~deb12u2'] })),
    FirstSeen: Type.String({ format: 'date-time' }),
    LastSeen: Type.String({ format: 'date-time' }),
    OpenFindings: Type.Object(
      {
        Critical: Type.Integer(),
        High: Type.Integer(),
        Medium: Type.Integer(),
        Low: Type.Integer(),
      },
      {
        additionalProperties: false,
        description: 'Open and reopened findings in this package on this asset, by severity.',
      },
    ),
  },
  { additionalProperties: false },
);

export const SoftwareListSchema = PageSchema(SoftwareSchema);

export const SoftwareListQuery = Type.Object(
  {
    ...pageQueryFields(100),
    Search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Part of the name or vendor.' }),
    ),
    Category: Type.Optional(Category),
  },
  { additionalProperties: false },
);

export const RecordSoftwareSchema = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 255 }),
    Version: Type.Optional(Type.String({ maxLength: 100 })),
    Vendor: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    Category: Type.Optional(Category),
    Cpe: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    Purl: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const SoftwareParams = Type.Object(
  { Id: Type.String({ format: 'uuid' }), SoftwareId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
