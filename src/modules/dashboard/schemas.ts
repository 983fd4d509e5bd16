import { Type } from 'typebox';
import { SeveritySchema } from '../findings/schemas.js';
import { ImportSchema } from '../imports/schemas.js';
import { ScanKindSchema } from '../scannodes/schemas.js';
import { ScanRunStateSchema } from '../scanruns/schemas.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });
const NullableDays = Type.Union([Type.Number(), Type.Null()]);

export const DashboardQuery = Type.Object(
  {
    Tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only findings on assets with this tag.' }),
    ),
    ScanGroupId: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'Only findings of the scan group’s system and web scans, and their runs and imports. Not with Tag.',
      }),
    ),
  },
  { additionalProperties: false },
);

const BySeveritySchema = Type.Object(
  { Critical: Count, High: Count, Medium: Count, Low: Count, Info: Count },
  { additionalProperties: false },
);

const SlaFigureSchema = Type.Object(
  {
    WithSla: Type.Integer({ minimum: 0, description: 'Findings that have (or had) a due date.' }),
    WithinSla: Type.Integer({ minimum: 0, description: 'Of those, not past it (open) or fixed by it.' }),
    Percent: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: 'WithinSla / WithSla in per cent, one decimal; null when WithSla is 0.',
    }),
  },
  { additionalProperties: false },
);

const SlaDaysSchema = Type.Object(
  {
    Critical: NullableDays,
    High: NullableDays,
    Medium: NullableDays,
    Low: NullableDays,
    Info: NullableDays,
    Kev: NullableDays,
  },
  { additionalProperties: false, description: 'The SLA of each severity and of KEV, in days (settings).' },
);

export const DashboardSchema = Type.Object(
  {
    Scope: Type.Object(
      {
        Kind: Type.Union([Type.Literal('Organization'), Type.Literal('Tag'), Type.Literal('ScanGroup')]),
        Tag: Type.Optional(Type.String()),
        ScanGroupId: Type.Optional(Type.String({ format: 'uuid' })),
        ScanGroupName: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    GeneratedAt: DateTime,
    WindowDays: Type.Integer({
      description: 'Fixed findings count towards SlaCompliance.Fixed and Mttr for this many days back.',
    }),
    WindowStart: Type.String({
      format: 'date-time',
      description:
        'GeneratedAt less WindowDays: the fixed findings counted were fixed after it (FixedAfter).',
    }),
    Tags: Type.Array(Type.String(), {
      description: 'The tags your assets carry (the choices of the Tag filter), at most 500.',
    }),
    SlaDays: SlaDaysSchema,
    Open: Type.Object(
      {
        Critical: Count,
        High: Count,
        Medium: Count,
        Low: Count,
        Info: Count,
        Total: Count,
        PastSla: Type.Integer({ minimum: 0, description: 'Open findings past their due date.' }),
      },
      {
        additionalProperties: false,
        description: 'Open findings (Open and Reopened, confirmed) by severity.',
      },
    ),
    SlaCompliance: Type.Object(
      {
        Open: SlaFigureSchema,
        Fixed: SlaFigureSchema,
        Overall: SlaFigureSchema,
      },
      {
        additionalProperties: false,
        description:
          'Open: open findings with a due date that are not past it. Fixed: findings fixed in the window that had a due date and were fixed by it. Overall: both together.',
      },
    ),
    Ageing: Type.Array(
      Type.Object(
        {
          Label: Type.String({ examples: ['31–90'] }),
          FromDays: Count,
          ToDays: Type.Union([Count, Type.Null()]),
          FirstSeenAfter: NullableDateTime,
          FirstSeenBefore: NullableDateTime,
          Counts: BySeveritySchema,
          Total: Count,
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Open findings by whole days since first seen (0–30, 31–90, 91–180, 181–365, >365), by severity. FirstSeenAfter and FirstSeenBefore are the findings list filters that list a bucket’s findings.',
      },
    ),
    Mttr: Type.Array(
      Type.Object(
        {
          Severity: SeveritySchema,
          SlaDays: NullableDays,
          MeanDays: NullableDays,
          MedianDays: NullableDays,
          Count: Type.Integer({ minimum: 0, description: 'Findings fixed in the window.' }),
          WithinSla: Type.Integer({ minimum: 0, description: 'Of those, fixed by their due date.' }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Mean and median days from first seen to fixed, of the findings fixed in the window, by severity, against the severity’s SLA.',
      },
    ),
    RiskiestAssets: Type.Array(
      Type.Object(
        {
          AssetId: Type.String({ format: 'uuid' }),
          Name: Type.String(),
          OpenFindings: Count,
          Critical: Count,
          High: Count,
          RiskExposure: Type.Number({ description: 'Sum of the risk scores of its open findings.' }),
          MaxRisk: Type.Number(),
        },
        { additionalProperties: false },
      ),
      { description: 'The ten assets with the most open risk.' },
    ),
    RiskiestVulnerabilities: Type.Array(
      Type.Object(
        {
          VulnerabilityId: Type.String({ format: 'uuid' }),
          Title: Type.String(),
          CveIds: Type.Array(Type.String()),
          Kev: Type.Boolean(),
          Severity: SeveritySchema,
          OpenFindings: Count,
          AssetsAffected: Count,
          RiskExposure: Type.Number({ description: 'Sum of the risk scores of its open findings.' }),
          MaxRisk: Type.Number(),
        },
        { additionalProperties: false },
      ),
      { description: 'The ten vulnerabilities with the most open risk.' },
    ),
    Kev: Type.Object(
      {
        OpenFindings: Count,
        AssetsAffected: Count,
        Overdue: Type.Integer({ minimum: 0, description: 'Open KEV findings past their due date.' }),
      },
      {
        additionalProperties: false,
        description: 'Open findings of vulnerabilities in CISA’s Known Exploited Vulnerabilities catalogue.',
      },
    ),
    LastScans: Type.Array(
      Type.Object(
        {
          RunId: Type.String({ format: 'uuid' }),
          Kind: ScanKindSchema,
          ScanId: Type.String({ format: 'uuid' }),
          ScanName: Type.String(),
          State: ScanRunStateSchema,
          QueuedAt: DateTime,
          StartedAt: NullableDateTime,
          FinishedAt: NullableDateTime,
          Error: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { description: 'The latest five runs of discovery, system and web scans (of the scan group’s scans).' },
    ),
    LastImports: Type.Array(ImportSchema, {
      description: 'The latest five imports, reports and scan results (of the scan group’s scans).',
    }),
  },
  { additionalProperties: false },
);
