import { Type } from 'typebox';
import { ScheduleOptionSchema } from '../../jobs/schedule-option.js';
import { RunRefusalsSchema } from '../scanruns/schemas.js';
import { NOTIFICATION_LEVELS } from './types.js';

const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const NullableUuid = (description: string) =>
  Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description });
const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

const TargetText = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'A CIDR (`198.18.0.0/24`), a first–last range (`10.0.0.1-10.0.0.40`), an address or a host name.',
});

export const ScanTargetSchema = Type.Object(
  {
    Range: TargetText,
    Name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    Exclude: Type.Optional(
      Type.Array(TargetText, { maxItems: 256, description: 'Parts of this target to leave out.' }),
    ),
  },
  { additionalProperties: false },
);

export const NotificationSchema = Type.Object(
  {
    EmailAddresses: Type.Array(Type.String({ format: 'email', maxLength: 254 }), { maxItems: 50 }),
    NotificationLevel: Type.Enum(NOTIFICATION_LEVELS, {
      description:
        'When to tell them: Never, ScanEnds, ScanStartsEnds or ScanFails. Kept now; delivered once notifications exist.',
    }),
  },
  { additionalProperties: false },
);

export const DiscoveryScanBody = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 200 }),
    ScanTargets: Type.Array(ScanTargetSchema, { minItems: 1, maxItems: 256 }),
    Exclusions: Type.Optional(
      Type.Array(TargetText, { maxItems: 256, description: 'Left out of every target.' }),
    ),
    TemplateId: Type.Optional(Uuid('A discovery template; "Host Discovery [T1]" when left out.')),
    ScanNodeId: Type.Optional(NullableUuid('The node that runs it; any node serving discovery when null.')),
    Notifications: Type.Optional(Type.Array(NotificationSchema, { maxItems: 20 })),
    ResponsibleUserId: Type.Optional(NullableUuid('The person answerable for the scan.')),
    Schedule: Type.Optional(ScheduleOptionSchema),
  },
  { additionalProperties: false },
);

export const ProgressSchema = Type.Object(
  {
    Done: Type.Integer({ description: 'Addresses probed so far.' }),
    Total: Type.Integer({ description: 'Addresses to probe in all.' }),
    Found: Type.Integer({ description: 'Live hosts found so far.' }),
  },
  { additionalProperties: false },
);

export const RunStateSchema = Type.Enum(
  ['Idle', 'Queued', 'Running', 'Stopping', 'Completed', 'Failed', 'Stopped'],
  {
    description:
      'Idle: never ran. Queued: waiting for a node. Stopping: asked to stop, the node is ending it.',
  },
);

export const RunSummarySchema = Type.Object(
  {
    Id: Uuid(),
    State: RunStateSchema,
    Attempt: Type.Integer({ description: 'Attempts so far: a run whose node fell silent is queued again.' }),
    Progress: ProgressSchema,
    ScanNodeId: NullableUuid('The node running it, once claimed.'),
    StartedAt: NullableDateTime,
    FinishedAt: NullableDateTime,
    Error: Type.Union([Type.String(), Type.Null()], { description: 'Why a Failed run failed.' }),
    Refused: RunRefusalsSchema,
    CreatedAt: DateTime,
  },
  { additionalProperties: false },
);

export const DiscoveryScanSchema = Type.Object(
  {
    Id: Uuid(),
    Name: Type.String(),
    ScanTargets: Type.Array(
      Type.Object(
        {
          Range: Type.String(),
          Name: Type.Union([Type.String(), Type.Null()]),
          Exclude: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    Exclusions: Type.Array(Type.String()),
    TemplateId: Uuid(),
    ScanNodeId: NullableUuid('The node that runs it; any node serving discovery when null.'),
    Notifications: Type.Array(NotificationSchema),
    ResponsibleUserId: NullableUuid('The person answerable for the scan.'),
    Schedule: ScheduleOptionSchema,
    NextRunAt: Type.Union([DateTime, Type.Null()], {
      description: 'When the schedule starts the scan next.',
    }),
    ScheduleId: NullableUuid(
      'The id of its schedule, null when it is not scheduled: what a scan group’s monitoring may name as `ScheduleId`.',
    ),
    RunState: RunStateSchema,
    LastRun: Type.Union([RunSummarySchema, Type.Null()]),
    LastCompletedRunId: NullableUuid('The run whose report is the scan’s latest.'),
    ScanLastCompleted: Type.Union([DateTime, Type.Null()], {
      description: 'When the latest completed run ended.',
    }),
    CreatedAt: DateTime,
    UpdatedAt: DateTime,
  },
  { additionalProperties: false },
);

export const DiscoveryScanListSchema = Type.Object(
  {
    Items: Type.Array(DiscoveryScanSchema),
    NextCursor: Type.Union([Type.String(), Type.Null()]),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const DiscoveryScanListQuery = Type.Object(
  {
    PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    Cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const DiscoveryScanIdParams = Type.Object({ Id: Uuid() }, { additionalProperties: false });

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
