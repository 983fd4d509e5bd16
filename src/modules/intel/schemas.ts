import { Type } from 'typebox';

const Time = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const FeedNameSchema = Type.Union(
  [Type.Literal('nvd'), Type.Literal('cve5'), Type.Literal('kev'), Type.Literal('epss'), Type.Literal('osv')],
  {
    description:
      'nvd (NVD CVE API 2.0), cve5 (CVE JSON 5), kev (CISA KEV), epss (FIRST EPSS CSV), osv (OSV advisories).',
  },
);

export const IntelLoadSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Feed: FeedNameSchema,
    Source: Type.String({ description: 'The file name, path or URL the records came from.' }),
    State: Type.Union([Type.Literal('Running'), Type.Literal('Completed'), Type.Literal('Failed')]),
    DataDate: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'The date the file speaks for, in ISO 8601 UTC: KEV catalogue version, EPSS score date, NVD page timestamp (NVD states UTC without a zone). Null when the file states none, or states something that is no date.',
      }),
    ),
    DataDateAsGiven: Nullable(
      Type.String({
        description: 'That date as the file wrote it, e.g. KEV `2025.08.25`, NVD `2026-10-08T22:17:07.363`.',
      }),
    ),
    Added: Type.Integer(),
    Updated: Type.Integer(),
    Unchanged: Type.Integer({
      description: 'Records read that were already stored as given (or older than stored).',
    }),
    Skipped: Type.Integer(),
    Warnings: Type.Array(Type.String()),
    Error: Nullable(Type.String()),
    StartedAt: Time,
    FinishedAt: Nullable(Time),
  },
  { additionalProperties: false },
);

export const IntelLoadListSchema = Type.Object(
  { Items: Type.Array(IntelLoadSchema) },
  { additionalProperties: false },
);

export const SubmitIntelLoadQuery = Type.Object(
  {
    Feed: Type.Optional(FeedNameSchema),
    FileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

const SyncSourceSchema = Type.Object(
  {
    Source: Type.String({ description: "'nvd', 'kev', 'epss' or 'osv:<Ecosystem>'." }),
    Url: Nullable(Type.String({ description: 'Where it is read from now (null: no longer configured).' })),
    LastStartedAt: Nullable(Time),
    LastFinishedAt: Nullable(Time),
    LastSuccessAt: Nullable(Time),
    // NVD: records modified before this time are loaded; the next sync asks for those after.
    SyncedUntil: Nullable(Time),
    Progress: Nullable(
      Type.Object(
        {
          WindowStart: Nullable(Time),
          WindowEnd: Time,
          NextIndex: Type.Integer({ description: 'The next page starts at this record (NVD startIndex).' }),
          TotalResults: Nullable(Type.Integer()),
        },
        {
          additionalProperties: false,
          description:
            'The NVD window under way (no WindowStart: the first full load), resumed at NextIndex by the next sync.',
        },
      ),
    ),
    LastError: Nullable(
      Type.String({ description: "Why the source's last sync failed; null when it succeeded." }),
    ),
  },
  { additionalProperties: false },
);

export const FeedStatusSchema = Type.Object(
  {
    Items: Type.Array(
      Type.Object(
        {
          Feed: FeedNameSchema,
          Records: Type.Integer({ description: 'Records of this feed held now.' }),
          DataDate: Nullable(
            Type.String({
              format: 'date-time',
              description:
                "How current the feed's data is (ISO 8601 UTC): the newest date its loaded files stated, else its newest record's modification; null when unknown.",
            }),
          ),
          Stale: Type.Boolean({
            description: 'The feed holds records and its DataDate is more than StaleAfterDays before Now.',
          }),
          LastLoad: Nullable(IntelLoadSchema),
          LastCompletedLoad: Nullable(IntelLoadSchema),
        },
        { additionalProperties: false },
      ),
    ),
    Now: Type.String({
      format: 'date-time',
      description: "The server's time, which staleness is judged by.",
    }),
    StaleAfterDays: Type.Integer({ description: 'Data older than this many days is stale.' }),
    Stale: Type.Boolean({
      description: 'At least one feed is stale: the knowledge base needs fresh feed files.',
    }),
    SyncEnabled: Type.Boolean({
      description:
        'The official sources (or their mirrors) are synced on a schedule (RAMPART_INTEL_SYNC=on).',
    }),
    Sources: Type.Array(SyncSourceSchema, {
      description:
        'Each official source the sync reads or has read: its last sync, its progress, its last error.',
    }),
    SyncUrls: Type.Array(Type.String(), {
      description: 'More feed files the scheduled sync downloads (RAMPART_INTEL_SYNC_URLS).',
    }),
    SyncHours: Nullable(Type.Integer()),
    LastSync: Nullable(
      Type.Object(
        {
          StartedAt: Nullable(Time),
          FinishedAt: Nullable(Time),
          Errors: Type.Array(
            Type.Object({ Url: Type.String(), Error: Type.String() }, { additionalProperties: false }),
            { description: 'URLs the last sync could not download or read.' },
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const CveIdParams = Type.Object(
  { CveId: Type.String({ pattern: '^[Cc][Vv][Ee]-\\d{4}-\\d{4,}$', maxLength: 30 }) },
  { additionalProperties: false },
);

const CvssMetricSchema = Type.Object(
  { Key: Type.String(), Name: Type.String(), Value: Type.String(), Label: Type.String() },
  { additionalProperties: false },
);

export const CvssAssessmentSchema = Type.Object(
  {
    Version: Type.String(),
    Vector: Type.String(),
    BaseScore: Nullable(Type.Number()),
    Severity: Nullable(Type.String()),
    Source: Nullable(Type.String()),
    Type: Nullable(Type.String()),
    Metrics: Type.Array(CvssMetricSchema, { description: 'The base metrics, in the specification order.' }),
    Error: Nullable(Type.String({ description: 'Why the vector is not valid, when it is not.' })),
  },
  { additionalProperties: false },
);

export const CveIntelSchema = Type.Object(
  {
    Cve: Type.String(),
    Status: Nullable(Type.String()),
    Rejected: Type.Boolean(),
    Description: Nullable(Type.String()),
    PublishedAt: Nullable(Time),
    ModifiedAt: Nullable(Time),
    Cvss: Type.Array(CvssAssessmentSchema),
    Cwe: Type.Array(Type.String()),
    References: Type.Array(Type.String()),
    Epss: Nullable(
      Type.Object(
        { Score: Type.Number(), Percentile: Type.Number(), ScoreDate: Nullable(Type.String()) },
        { additionalProperties: false },
      ),
    ),
    Kev: Nullable(
      Type.Object(
        {
          Name: Nullable(Type.String()),
          Vendor: Nullable(Type.String()),
          Product: Nullable(Type.String()),
          DateAdded: Type.String(),
          DueDate: Nullable(Type.String()),
          RequiredAction: Nullable(Type.String()),
          KnownRansomwareUse: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
    ),
    Advisories: Type.Array(
      Type.Object(
        { Id: Type.String(), Summary: Nullable(Type.String()), Packages: Type.Array(Type.String()) },
        { additionalProperties: false },
      ),
    ),
    AffectedProducts: Type.Array(Type.String(), {
      description: 'vendor:product pairs the CPE configurations name as vulnerable.',
    }),
    Sources: Type.Array(
      Type.Object(
        { Feed: Type.String(), Source: Type.String(), LoadedAt: Time },
        { additionalProperties: false },
      ),
      { description: 'Where each part came from and when it was loaded.' },
    ),
  },
  { additionalProperties: false },
);

export const MatchRequestSchema = Type.Object(
  {
    Cpes: Type.Optional(
      Type.Array(Type.String({ minLength: 5, maxLength: 500 }), {
        maxItems: 100,
        description: 'CPE names (2.3 formatted strings or cpe:/ URIs) of one service or host.',
      }),
    ),
    Products: Type.Optional(
      Type.Array(
        Type.Object(
          {
            Vendor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            Product: Type.String({ minLength: 1, maxLength: 200 }),
            Version: Type.String({ minLength: 1, maxLength: 100 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
    Packages: Type.Optional(
      Type.Array(
        Type.Object(
          {
            Ecosystem: Type.String({
              minLength: 1,
              maxLength: 50,
              description: 'OSV ecosystem: npm, PyPI, Maven…',
            }),
            Name: Type.String({ minLength: 1, maxLength: 300 }),
            Version: Type.String({ minLength: 1, maxLength: 100 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
  },
  { additionalProperties: false },
);

export const MatchResultSchema = Type.Object(
  {
    Items: Type.Array(
      Type.Object(
        {
          Cve: Nullable(Type.String()),
          Advisory: Nullable(Type.String({ description: 'The OSV advisory id, for a package match.' })),
          Aliases: Type.Array(Type.String()),
          MatchedBy: Type.String({ description: 'The CPE criteria or OSV range that matched.' }),
          PlatformAssumed: Type.Boolean({
            description: 'The CVE applies only on some platforms, and none was given: assumed to apply.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
