import { Type } from 'typebox';
import { pageQueryFields } from '../../http/page.js';

const Time = Type.String({ format: 'date-time' });

/** The version of the CVSS score that ranks a vulnerability (findings show it too). */
export const CvssVersionSchema = Type.Union(
  [
    Type.Literal('4.0'),
    Type.Literal('3.1'),
    Type.Literal('3.0'),
    Type.Literal('3'),
    Type.Literal('2.0'),
    Type.Null(),
  ],
  {
    description:
      'The CVSS version of CVSSBaseScore: the highest version that scored the vulnerability (4.0, else 3.x, else 2.0); "3" for a v3 score given without the vector that tells 3.0 from 3.1; null when no version scored it.',
  },
);
export const VulnerabilitySchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Source: Type.String(),
    PluginGuidId: Type.Union([Type.String(), Type.Null()]),
    CVEReferences: Type.Array(Type.String()),
    Aliases: Type.Array(Type.String()),
    Title: Type.String(),
    Description: Type.Union([Type.String(), Type.Null()]),
    Solution: Type.Union([Type.String(), Type.Null()]),
    Cwe: Type.Array(Type.String()),
    Severity: Type.String(),
    CVSSBaseScore: Type.Union([Type.Number(), Type.Null()], {
      description:
        'The CVSS base score the vulnerability is ranked by: of the highest version that scored it (see CvssVersion); every version is in Cvss2*, Cvss3* and Cvss4*.',
    }),
    CvssVersion: CvssVersionSchema,
    CvssVector: Type.Union([Type.String(), Type.Null()], {
      description: 'The vector of CVSSBaseScore, when the scanner or feed gave one.',
    }),
    EpssScore: Type.Union([Type.Number(), Type.Null()]),
    EpssPercentile: Type.Union([Type.Number(), Type.Null()]),
    Kev: Type.Boolean(),
    KevDateAdded: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    KevDueDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    Cvss3Vector: Type.Union([Type.String(), Type.Null()], {
      description: 'CVSS v3.0 or v3.1, its "CVSS:3.x/" prefix saying which.',
    }),
    Cvss3BaseScore: Type.Union([Type.Number(), Type.Null()]),
    Cvss2Vector: Type.Union([Type.String(), Type.Null()]),
    Cvss2BaseScore: Type.Union([Type.Number(), Type.Null()]),
    Cvss4Vector: Type.Union([Type.String(), Type.Null()]),
    Cvss4BaseScore: Type.Union([Type.Number(), Type.Null()]),
    References: Type.Array(Type.String()),
    PublishedAt: Type.Union([Time, Type.Null()]),
    IntelUpdatedAt: Type.Union([Time, Type.Null()], {
      description: 'When public intelligence (NVD, KEV, EPSS) last changed this entry.',
    }),
    CreatedAt: Time,
    UpdatedAt: Time,
  },
  { additionalProperties: false },
);

export const VulnerabilityListQuery = Type.Object(
  {
    ...pageQueryFields(100),
    Cve: Type.Optional(Type.String({ pattern: '^[Cc][Vv][Ee]-\\d{4}-\\d{4,}$' })),
    Kev: Type.Optional(Type.Boolean()),
    Search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const VulnerabilityListSchema = Type.Object(
  { Items: Type.Array(VulnerabilitySchema), NextCursor: Type.Union([Type.String(), Type.Null()]) },
  { additionalProperties: false },
);
