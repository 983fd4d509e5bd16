import { Type } from 'typebox';
import { ScheduleOptionSchema } from '../../jobs/schedule-option.js';
import {
  DateTime,
  ExclusionsBody,
  NextRunAtSchema,
  NotificationSchema,
  NullableUuid,
  ScanTargetSchema,
  scanRunFields,
  TargetText,
  targetScanFields,
  Uuid,
} from '../savedscans/schemas.js';

export const DiscoveryScanBody = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    ScanTargets: Type.Array(ScanTargetSchema, { minItems: 1, maxItems: 256 }),
    Exclusions: ExclusionsBody(TargetText),
    TemplateId: Type.Optional(Uuid('A discovery template; "Host Discovery [T1]" when left out.')),
    ScanNodeId: Type.Optional(NullableUuid('The node that runs it; any node serving discovery when null.')),
    Notifications: Type.Optional(Type.Array(NotificationSchema, { maxItems: 20 })),
    ResponsibleUserId: Type.Optional(NullableUuid('The person answerable for the scan.')),
    Schedule: Type.Optional(ScheduleOptionSchema),
  },
  { additionalProperties: false },
);

export const DiscoveryScanSchema = Type.Object(
  {
    ...targetScanFields('The node that runs it; any node serving discovery when null.'),
    Notifications: Type.Array(NotificationSchema),
    ResponsibleUserId: NullableUuid('The person answerable for the scan.'),
    Schedule: ScheduleOptionSchema,
    NextRunAt: NextRunAtSchema,
    ScheduleId: NullableUuid(
      'The id of its schedule, null when it is not scheduled: what a scan group’s monitoring may name as `ScheduleId`.',
    ),
    ...scanRunFields({
      lastCompletedRunId: 'The run whose report is the scan’s latest.',
      scanLastCompleted: 'When the latest completed run ended.',
    }),
  },
  { additionalProperties: false },
);

export const ReportParams = Type.Object(
  {
    Id: Uuid(),
    RunId: Type.Union([Type.String({ format: 'uuid' }), Type.Literal('latest')], {
      description: 'A run of the scan, or `latest` for its latest completed run.',
    }),
  },
  { additionalProperties: false },
);

export const HostStatusSchema = Type.Enum(['Found', 'New', 'Seen', 'Gone'], {
  description:
    'New: first found by this scan in this run. Seen: found before too. Gone: found by the previous completed run, not by this one. Found: the run has not completed yet.',
});

export const ReportQuery = Type.Object(
  {
    Status: Type.Optional(HostStatusSchema),
    PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    Cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const ReportHostSchema = Type.Object(
  {
    IpAddress: Type.String(),
    Hostname: Type.Union([Type.String(), Type.Null()], { description: 'From reverse DNS.' }),
    MacAddress: Type.Union([Type.String(), Type.Null()], {
      description: 'Only for hosts on the node’s own segment.',
    }),
    OperatingSystem: Type.Union([Type.String(), Type.Null()], {
      description: 'A light guess from what answered.',
    }),
    OpenPorts: Type.Array(Type.Integer(), { description: 'Probe ports that accepted a connection.' }),
    ClosedPorts: Type.Array(Type.Integer(), { description: 'Probe ports that refused (the host is up).' }),
    Status: HostStatusSchema,
    AssetId: NullableUuid('The asset the host became.'),
    FirstSeen: Type.Union([DateTime, Type.Null()], { description: 'When this scan first found the host.' }),
    LastSeen: Type.Union([DateTime, Type.Null()], { description: 'When this scan last found the host.' }),
  },
  { additionalProperties: false },
);

export const ReportSchema = Type.Object(
  {
    RunId: Uuid(),
    Counts: Type.Object(
      { New: Type.Integer(), Seen: Type.Integer(), Gone: Type.Integer(), Found: Type.Integer() },
      { additionalProperties: false },
    ),
    Items: Type.Array(ReportHostSchema),
    NextCursor: Type.Union([Type.String(), Type.Null()]),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);
