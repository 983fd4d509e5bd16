import { Type } from 'typebox';

const Day = (description: string) => Type.String({ format: 'date', description });

export const TrendQuery = Type.Object(
  {
    From: Type.Optional(
      Day('First day (YYYY-MM-DD, in the organisation’s time zone); default: 89 days before To.'),
    ),
    To: Type.Optional(Day('Last day (YYYY-MM-DD); default: today in the organisation’s time zone.')),
    Tag: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only the findings and assets with this asset tag.',
      }),
    ),
    ScanGroupId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Only the findings of the system and web scans of this group.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });
const BySeverity = Type.Object(
  { Critical: Count, High: Count, Medium: Count, Low: Count, Info: Count },
  { additionalProperties: false },
);
const Mttr = Type.Union([
  Type.Object(
    {
      MeanDays: Type.Number({ description: 'Mean days from first seen to fixed.' }),
      MedianDays: Type.Number(),
      Count: Type.Integer({ description: 'Fixes counted.' }),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

export const TrendDaySchema = Type.Object(
  {
    Date: Type.String({ format: 'date' }),
    Open: Type.Object(BySeverity.properties, {
      additionalProperties: false,
      description: 'Open and Reopened findings at the end of the day, by severity.',
    }),
    ByState: Type.Object(
      { Open: Count, Reopened: Count, RiskAccepted: Count, FalsePositive: Count, Fixed: Count },
      { additionalProperties: false, description: 'Findings at the end of the day, by state.' },
    ),
    New: Type.Integer({ description: 'Findings first seen that day.' }),
    Fixed: Type.Integer({ description: 'Findings fixed that day.' }),
    Reopened: Type.Integer({ description: 'Findings reopened that day.' }),
    PastSla: Type.Integer({ description: 'Open findings past their due date at the end of the day.' }),
    DueSoon: Type.Integer({ description: 'Open findings due within the 7 days after the day.' }),
    RiskExposure: Type.Number({ description: 'Sum of the risk scores of the open findings.' }),
    KevOpen: Type.Integer({ description: 'Open findings of vulnerabilities in CISA KEV.' }),
    AssetsSeen: Type.Integer({ description: 'Assets known and seen in the 30 days up to the day.' }),
    AssetsScanned: Type.Integer({ description: 'Assets a scan or an import reported that day.' }),
    Mttr: Type.Object(
      { Critical: Mttr, High: Mttr, Medium: Mttr, Low: Mttr, Info: Mttr },
      {
        additionalProperties: false,
        description:
          'Time to remediate of the findings fixed in the 90 days up to and including the day, by severity; null without such fixes.',
      },
    ),
  },
  { additionalProperties: false },
);

export const TrendSchema = Type.Object(
  {
    Scope: Type.Object(
      {
        Kind: Type.Union([Type.Literal('Organization'), Type.Literal('Tag'), Type.Literal('ScanGroup')]),
        Tag: Type.Optional(Type.String()),
        ScanGroupId: Type.Optional(Type.String({ format: 'uuid' })),
      },
      { additionalProperties: false },
    ),
    TimeZone: Type.String({ description: 'The organisation’s time zone, whose calendar days these are.' }),
    From: Type.String({ format: 'date' }),
    To: Type.String({ format: 'date' }),
    Days: Type.Array(TrendDaySchema, {
      description:
        'The days of From..To that have a snapshot, oldest first (days before the history began have none).',
    }),
    Build: Type.Union(
      [
        Type.Object(
          {
            State: Type.Union([
              Type.Literal('Queued'),
              Type.Literal('Running'),
              Type.Literal('Completed'),
              Type.Literal('Failed'),
            ]),
            DaysDone: Type.Integer(),
            DaysTotal: Type.Integer(),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'How far the history was built from the findings’ history (a rebuild runs as a job).' },
    ),
  },
  { additionalProperties: false },
);
