import { Type } from 'typebox';
import { PageSchema, pageQueryFields } from '../../http/page.js';
import { CvssVersionSchema } from '../vulnerabilities/schemas.js';
import { TOTAL_COUNT_CAP } from './repository.js';

export const SeveritySchema = Type.Union([
  Type.Literal('Critical'),
  Type.Literal('High'),
  Type.Literal('Medium'),
  Type.Literal('Low'),
  Type.Literal('Info'),
]);
export const StateSchema = Type.Union([
  Type.Literal('Open'),
  Type.Literal('Fixed'),
  Type.Literal('Reopened'),
  Type.Literal('RiskAccepted'),
  Type.Literal('FalsePositive'),
]);

/**
 * Unconfirmed: an upstream CVE matched on a distribution build whose advisory data Rampart does
 * not hold; scored 0, no due date, left out of lists unless asked for (Confidence=Unconfirmed|Any).
 */
export const ConfidenceSchema = Type.Union([Type.Literal('Confirmed'), Type.Literal('Unconfirmed')], {
  description:
    'Unconfirmed: an upstream CVE on a distribution build whose advisory data Rampart does not hold (its evidence names the data); not counted in risk or SLA until a scan with the data decides it.',
});
const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);

export const LocationSchema = Type.Object(
  {
    Kind: Type.Union([
      Type.Literal('None'),
      Type.Literal('Port'),
      Type.Literal('Url'),
      Type.Literal('File'),
      Type.Literal('Package'),
    ]),
    Port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    Protocol: Type.Optional(Type.Union([Type.Literal('tcp'), Type.Literal('udp')])),
    Url: Type.Optional(Type.String({ maxLength: 2048 })),
    Parameter: Type.Optional(Type.String({ maxLength: 255 })),
    File: Type.Optional(Type.String({ maxLength: 1024 })),
    Line: Type.Optional(Type.Integer({ minimum: 0 })),
    Package: Type.Optional(Type.String({ maxLength: 255 })),
    Version: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);

/** An entry of a history (a finding's, a ticket's) but its id: when, who, what, from and to which state. */
export const HISTORY_EVENT_FIELDS = {
  At: Time,
  ActorType: Type.String(),
  ActorId: Type.Union([Type.String(), Type.Null()]),
  Kind: Type.String(),
  FromState: Type.Union([Type.String(), Type.Null()]),
  ToState: Type.Union([Type.String(), Type.Null()]),
};

export const FindingSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    AssetId: Type.String({ format: 'uuid' }),
    AssetName: Type.String(),
    VulnerabilityId: Type.String({ format: 'uuid' }),
    PluginGuidId: Type.Union([Type.String(), Type.Null()], {
      description: 'The scanner rule id, as the original service names it.',
    }),
    Title: Type.String(),
    CVEReferences: Type.Array(Type.String()),
    Kev: Type.Boolean(),
    EpssScore: Type.Union([Type.Number(), Type.Null()]),
    EpssPercentile: Type.Union([Type.Number(), Type.Null()]),
    KevDueDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    CVSSBaseScore: Type.Union([Type.Number(), Type.Null()], {
      description:
        "The CVSS base score the risk score uses: the vulnerability's highest CVSS version that scored it (v4.0, else v3.x, else v2.0).",
    }),
    CvssVersion: CvssVersionSchema,
    Severity: SeveritySchema,
    ScannerSeverity: SeveritySchema,
    SeverityOverrideReason: Type.Union([Type.String(), Type.Null()]),
    State: StateSchema,
    StateReason: Type.Union([Type.String(), Type.Null()]),
    RiskAcceptedUntil: NullableTime,
    RiskScore: Type.Number({ minimum: 0, maximum: 100 }),
    DueAt: NullableTime,
    Confidence: ConfidenceSchema,
    Location: Type.Object({
      Kind: Type.String(),
      Port: Type.Union([Type.Integer(), Type.Null()]),
      Protocol: Type.Union([Type.String(), Type.Null()]),
      Url: Type.Union([Type.String(), Type.Null()]),
      Parameter: Type.Union([Type.String(), Type.Null()]),
      File: Type.Union([Type.String(), Type.Null()]),
      Line: Type.Union([Type.Integer(), Type.Null()]),
      Package: Type.Union([Type.String(), Type.Null()]),
      Version: Type.Union([Type.String(), Type.Null()]),
    }),
    Source: Type.String(),
    FirstSeen: Time,
    LastSeen: Time,
    FixedAt: NullableTime,
    CreatedAt: Time,
    UpdatedAt: Time,
  },
  { additionalProperties: false },
);

export const FindingDetailSchema = Type.Object(
  {
    ...FindingSchema.properties,
    Evidence: Type.Union([Type.String(), Type.Null()]),
    FoundBy: Type.Union(
      [
        Type.Object(
          {
            Kind: Type.Union([Type.Literal('System'), Type.Literal('Web')]),
            ScanId: Type.String({ format: 'uuid' }),
            ImportId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
              description: 'The results of the run that reported it last (an import).',
            }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The Rampart scan that found it; null for findings imported from other tools.' },
    ),
    Events: Type.Array(
      Type.Object({
        Id: Type.String(),
        ...HISTORY_EVENT_FIELDS,
        Reason: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  },
  { additionalProperties: false },
);

export const FindingListSchema = PageSchema(
  FindingSchema,
  Type.Optional(
    Type.Integer({
      description: `How many findings match. Given when IncludeTotal=true, and otherwise when at most ${TOTAL_COUNT_CAP.toLocaleString('en')} match; counting a larger match exactly costs a scan of every matching row, so it is left out unless asked for.`,
    }),
  ),
);

/** The filters on a finding's vulnerability, risk and times: the list's and the bulk actions' alike. */
const VULNERABILITY_AND_TIME_FILTERS = {
  VulnerabilityId: Type.Optional(Type.String({ format: 'uuid' })),
  Cve: Type.Optional(Type.String({ pattern: '^[Cc][Vv][Ee]-\\d{4}-\\d{4,}$' })),
  Kev: Type.Optional(Type.Boolean()),
  EpssMin: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  RiskMin: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  DueBefore: Type.Optional(Type.String({ format: 'date-time' })),
  FirstSeenAfter: Type.Optional(Type.String({ format: 'date-time' })),
  FirstSeenBefore: Type.Optional(Type.String({ format: 'date-time' })),
  FixedAfter: Type.Optional(
    Type.String({ format: 'date-time', description: 'Findings last fixed after this time.' }),
  ),
  FixedBefore: Type.Optional(
    Type.String({ format: 'date-time', description: 'Findings last fixed before this time.' }),
  ),
  LastSeenBefore: Type.Optional(Type.String({ format: 'date-time' })),
};

const SCAN_GROUP_FILTER = Type.String({
  format: 'uuid',
  description:
    'Only the findings of the system and web scans of this scan group (the ones they reported last).',
});

export const FindingListQuery = Type.Object(
  {
    ...pageQueryFields(100),
    IncludeTotal: Type.Optional(
      Type.Boolean({
        description: `true: always count the matching findings exactly; false: never count. Unset: count when at most ${TOTAL_COUNT_CAP.toLocaleString('en')} match.`,
      }),
    ),
    Sort: Type.Optional(
      Type.Union(
        [
          Type.Literal('-Risk'),
          Type.Literal('-Severity'),
          Type.Literal('-FirstSeen'),
          Type.Literal('-LastSeen'),
          Type.Literal('DueAt'),
        ],
        {
          default: '-Risk',
        },
      ),
    ),
    State: Type.Optional(Type.Array(StateSchema, { maxItems: 5 })),
    Confidence: Type.Optional(
      Type.Union([Type.Literal('Confirmed'), Type.Literal('Unconfirmed'), Type.Literal('Any')], {
        default: 'Confirmed',
        description:
          'Confirmed (the default): Unconfirmed findings are left out; Unconfirmed: only those; Any: both.',
      }),
    ),
    Severity: Type.Optional(Type.Array(SeveritySchema, { maxItems: 5 })),
    AssetId: Type.Optional(Type.String({ format: 'uuid' })),
    Tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A tag of the asset.' })),
    ...VULNERABILITY_AND_TIME_FILTERS,
    Search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Part of the title or the asset name.' }),
    ),
    ImportId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Findings an import created, fixed or reopened (see ImportChange).',
      }),
    ),
    ImportChange: Type.Optional(
      Type.Union([Type.Literal('New'), Type.Literal('Fixed'), Type.Literal('Reopened')], {
        description: 'With ImportId: only the findings it created (New), fixed or reopened.',
      }),
    ),
    ScanId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Only the findings of this Rampart system or web scan (the ones it reported last).',
      }),
    ),
    ScanGroupId: Type.Optional(SCAN_GROUP_FILTER),
  },
  { additionalProperties: false },
);

export const CreateFindingSchema = Type.Object(
  {
    AssetId: Type.String({ format: 'uuid' }),
    VulnerabilityId: Type.Optional(Type.String({ format: 'uuid' })),
    Vulnerability: Type.Optional(
      Type.Object(
        {
          Title: Type.String({ minLength: 1, maxLength: 500 }),
          Cve: Type.Optional(Type.Array(Type.String({ maxLength: 30 }), { maxItems: 50 })),
          Description: Type.Optional(Type.String({ maxLength: 32768 })),
          Solution: Type.Optional(Type.String({ maxLength: 32768 })),
          Cwe: Type.Optional(Type.Array(Type.String({ pattern: '^CWE-\\d+$' }), { maxItems: 20 })),
          Severity: SeveritySchema,
          CvssScore: Type.Optional(Type.Number({ minimum: 0, maximum: 10 })),
          CvssVector: Type.Optional(Type.String({ maxLength: 200 })),
          References: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
    Location: Type.Optional(LocationSchema),
    Severity: Type.Optional(SeveritySchema),
    Evidence: Type.Optional(Type.String({ maxLength: 65536 })),
  },
  { additionalProperties: false },
);

export const ChangeStateSchema = Type.Object(
  {
    State: StateSchema,
    Justification: Type.Optional(Type.String({ maxLength: 4000 })),
    Until: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Required for RiskAccepted: when the finding returns to Open by itself.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OverrideSeveritySchema = Type.Object(
  {
    Severity: Type.Union([SeveritySchema, Type.Null()], { description: 'null removes the override.' }),
    Reason: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
);

/** The list filters, as a JSON body for bulk actions. */
export const FindingFilterSchema = Type.Object(
  {
    State: Type.Optional(Type.Array(StateSchema, { maxItems: 5 })),
    Confidence: Type.Optional(
      Type.Union([Type.Literal('Confirmed'), Type.Literal('Unconfirmed'), Type.Literal('Any')], {
        description:
          'As in the list: Confirmed (the default, unless Ids are given: then Any), Unconfirmed or Any.',
      }),
    ),
    Severity: Type.Optional(Type.Array(SeveritySchema, { maxItems: 5 })),
    AssetId: Type.Optional(Type.String({ format: 'uuid' })),
    Tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    ...VULNERABILITY_AND_TIME_FILTERS,
    Search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ScanGroupId: Type.Optional(SCAN_GROUP_FILTER),
    Ids: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        minItems: 1,
        maxItems: 10000,
        description: 'Exactly these findings (selected in a table).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const BulkStateSchema = Type.Object(
  {
    Filter: FindingFilterSchema,
    State: StateSchema,
    Justification: Type.Optional(Type.String({ maxLength: 4000 })),
    Until: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const BulkTicketSchema = Type.Object(
  { Filter: FindingFilterSchema, TicketId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const BulkResultSchema = Type.Object(
  {
    Matched: Type.Integer({ description: 'Findings that match the filter.' }),
    Changed: Type.Integer({ description: 'Findings changed.' }),
    Skipped: Type.Integer({
      description: 'Matching findings whose state does not allow the change, or already linked.',
    }),
  },
  { additionalProperties: false },
);
