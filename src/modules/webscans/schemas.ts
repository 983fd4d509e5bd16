import { Type } from 'typebox';
import { ScheduleOptionSchema } from '../../jobs/schedule-option.js';
import {
  NextRunAtSchema,
  NullableUuid,
  RunImportSchema,
  RunSummarySchema,
  scanRunFields,
  Uuid,
} from '../savedscans/schemas.js';

const NullableText = Type.Union([Type.String(), Type.Null()]);

export const WebScanBody = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    Urls: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
      minItems: 1,
      maxItems: 256,
      description:
        'Absolute http or https URLs. Each URL’s host must lie inside the allowed scan targets: host names by the name rules (a name or a *. wildcard above it), addresses by the ranges; otherwise 422 naming `/Urls/{i}`.',
    }),
    TemplateId: Type.Optional(NullableUuid('A web template; the built-in one when left out.')),
    ScanNodeId: Type.Optional(NullableUuid('The node that runs it; any node serving web scans when null.')),
    Schedule: Type.Optional(ScheduleOptionSchema),
  },
  { additionalProperties: false },
);

export const WebScanSchema = Type.Object(
  {
    Id: Uuid(),
    Name: Type.String(),
    Urls: Type.Array(Type.String()),
    TemplateId: Uuid(),
    ScanNodeId: NullableUuid('The node that runs it; any node serving web scans when null.'),
    ScanGroupId: NullableUuid('The scan group the scan belongs to.'),
    Schedule: ScheduleOptionSchema,
    NextRunAt: NextRunAtSchema,
    ...scanRunFields({
      lastCompletedRunId: 'The latest completed run.',
      scanLastCompleted: 'When the latest completed run ended.',
    }),
  },
  { additionalProperties: false },
);

const CheckSchema = Type.Object(
  {
    CheckId: Type.String(),
    Title: Type.String({ description: 'From the catalogue of Rampart’s checks; the id when unknown.' }),
    Severity: Type.String(),
    PluginGuidId: Type.String({ description: 'The check’s id as the original service’s clients know it.' }),
    Url: NullableText,
    Evidence: Type.String(),
  },
  { additionalProperties: false },
);

const UrlResultSchema = Type.Object(
  {
    Url: Type.String(),
    FinalUrl: NullableText,
    Status: Type.Union([Type.Integer(), Type.Null()]),
    Address: Type.Union([Type.String(), Type.Null()], {
      description: 'What the host resolved to and was checked.',
    }),
    Checks: Type.Array(CheckSchema),
    HeaderScore: Type.Union([
      Type.Object({ Score: Type.Number(), Grade: Type.String() }, { additionalProperties: false }),
      Type.Null(),
    ]),
    Notes: Type.Array(Type.String(), { description: 'Checks that could not be judged, and why.' }),
    Software: Type.Array(
      Type.Object(
        {
          Header: Type.String(),
          Value: Type.String(),
          Product: NullableText,
          Version: NullableText,
          Cpes: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    Error: Type.Union([Type.String(), Type.Null()], { description: 'Why the URL could not be scanned.' }),
    BudgetExhausted: Type.Union([Type.Literal('url'), Type.Literal('run'), Type.Null()]),
  },
  { additionalProperties: false },
);

export const WebRunReportSchema = Type.Object(
  {
    Run: RunSummarySchema,
    Verify: Type.Union([Type.Object({ FindingIds: Type.Array(Type.String()) }), Type.Null()], {
      description: 'A Verify run: the findings it may close.',
    }),
    Urls: Type.Array(UrlResultSchema),
    Import: RunImportSchema(
      Type.Integer(),
      Uuid(),
      'The import the completed run’s results became (null until it is done).',
    ),
    IngestError: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the results could not become findings (tried again).',
    }),
  },
  { additionalProperties: false },
);
