import { Type } from 'typebox';
import { PageSchema, pageQueryFields } from '../../http/page.js';
import { ScheduleOptionSchema } from '../../jobs/schedule-option.js';
import { FindingFilterSchema } from '../findings/schemas.js';

const KindSchema = Type.Union([Type.Literal('Executive'), Type.Literal('Technical')], {
  description:
    '`Executive`: a summary of 1–3 pages (headline figures, trend, new vs fixed, MTTR vs SLA, SLA compliance, KEV exposure, the ten riskiest assets and vulnerabilities, with the dashboard’s charts). `Technical`: every open finding in scope, grouped by asset or vulnerability.',
});
const FormatSchema = Type.Union([Type.Literal('Pdf'), Type.Literal('Html'), Type.Literal('Csv')], {
  description:
    '`Pdf`; `Html` (one self-contained page, charts as inline SVG, a print style sheet); `Csv` (technical: one row per finding; executive: the figures).',
});
const GroupBySchema = Type.Union([Type.Literal('Asset'), Type.Literal('Vulnerability')], {
  description: 'Technical reports: how findings are grouped (default Asset).',
});

/** What a report is about, as a request gives it: a tag or a scan group (not both), and a findings filter. */
const SCOPE_FIELDS = {
  Tag: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Only findings of assets with this tag.' }),
  ),
  ScanGroupId: Type.Optional(
    Type.String({ format: 'uuid', description: 'Only findings of the scan group’s system and web scans.' }),
  ),
  Filter: Type.Optional(
    Type.Union([FindingFilterSchema, Type.Null()], {
      description:
        'The findings list’s filter (as `POST /findings/bulk/state` takes it): narrows the scope. Without `State`, reports cover open findings (Open, Reopened).',
    }),
  ),
  GroupBy: Type.Optional(GroupBySchema),
  PeriodDays: Type.Optional(
    Type.Integer({ minimum: 7, maximum: 366, description: 'Executive reports: days of trend (default 30).' }),
  ),
};

export const CreateReportSchema = Type.Object(
  {
    Kind: KindSchema,
    Format: FormatSchema,
    Name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ...SCOPE_FIELDS,
  },
  { additionalProperties: false },
);

const ScopeDto = Type.Object(
  {
    Kind: Type.Union([Type.Literal('Organization'), Type.Literal('Tag'), Type.Literal('ScanGroup')]),
    Tag: Type.Optional(Type.String()),
    ScanGroupId: Type.Optional(Type.String({ format: 'uuid' })),
  },
  { additionalProperties: false },
);

const date = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const ReportSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    DefinitionId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The report definition it was made for; null for an ad hoc report.',
    }),
    Name: Type.String(),
    Kind: KindSchema,
    Format: FormatSchema,
    Scope: ScopeDto,
    Filter: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    GroupBy: GroupBySchema,
    PeriodDays: Type.Integer(),
    State: Type.Union([
      Type.Literal('Queued'),
      Type.Literal('Running'),
      Type.Literal('Completed'),
      Type.Literal('Failed'),
    ]),
    Progress: Type.Integer({ minimum: 0, maximum: 100, description: 'Percent done.' }),
    RowsTotal: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Technical reports: the findings to write.',
    }),
    RowsWritten: Type.Integer({ description: 'Technical reports: the findings written so far.' }),
    Error: Type.Union([Type.String(), Type.Null()]),
    SizeBytes: Type.Union([Type.Integer(), Type.Null()]),
    PageCount: Type.Union([Type.Integer(), Type.Null()], { description: 'PDFs: their pages.' }),
    FileName: Type.Union([Type.String(), Type.Null()]),
    ContentType: Type.Union([Type.String(), Type.Null()]),
    DeliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Scheduled reports: when it was mailed to the definition’s recipients.',
    }),
    DeliveryError: Type.Union([Type.String(), Type.Null()]),
    CreatedAt: Type.String({ format: 'date-time' }),
    StartedAt: date,
    FinishedAt: date,
  },
  { additionalProperties: false },
);

export const ReportListSchema = PageSchema(ReportSchema);
export const ReportListQuery = Type.Object(
  {
    ...pageQueryFields(50, 200),
    DefinitionId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Only this definition’s reports.' }),
    ),
  },
  { additionalProperties: false },
);

const ReportScheduleSchema = Type.Union([ScheduleOptionSchema, Type.Null()], {
  description:
    'When the report is made and mailed: `SchedulingMode` `Weekly` (`DaysOfWeek`) or `Monthly` (`DayOfMonth`), at the time of day of `StartTime` in `TimeZone`; `None` or null: by hand only (`POST /reportdefinitions/{Id}/run`).',
});

export const ReportDefinitionBody = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    Kind: KindSchema,
    Format: FormatSchema,
    ...SCOPE_FIELDS,
    Schedule: Type.Optional(ReportScheduleSchema),
    Recipients: Type.Optional(
      Type.Array(Type.String({ minLength: 3, maxLength: 254 }), {
        maxItems: 50,
        uniqueItems: true,
        description:
          'Email addresses a scheduled report is mailed to (attached, or linked when over 10 MiB).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReportDefinitionSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Name: Type.String(),
    Kind: KindSchema,
    Format: FormatSchema,
    Scope: ScopeDto,
    Filter: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'The saved findings filter.',
    }),
    GroupBy: GroupBySchema,
    PeriodDays: Type.Integer(),
    Schedule: Type.Union([ScheduleOptionSchema, Type.Null()]),
    NextRunAt: date,
    Recipients: Type.Array(Type.String()),
    CreatedAt: Type.String({ format: 'date-time' }),
    UpdatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ReportDefinitionListSchema = PageSchema(ReportDefinitionSchema);
export const DefinitionListQuery = Type.Object(pageQueryFields(50, 200), { additionalProperties: false });
