import { type TSchema, Type } from 'typebox';
import { RunRefusalsSchema } from '../scanruns/schemas.js';
import { NOTIFICATION_LEVELS } from './types.js';

// The schemas every kind of saved scan shares: ids, targets, notifications, runs, lists.

export const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const NullableUuid = (description: string) =>
  Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description });
export const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const TargetText = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'A CIDR (`198.18.0.0/24`), a first–last range (`10.0.0.1-10.0.0.40`), an address or a host name.',
});

/** A target as a body gives it. */
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

/** The targets as a scan answers them. */
export const ScanTargetsDto = Type.Array(
  Type.Object(
    {
      Range: Type.String(),
      Name: Type.Union([Type.String(), Type.Null()]),
      Exclude: Type.Array(Type.String()),
    },
    { additionalProperties: false },
  ),
);

/** Exclusions of every target, as a body gives them. */
export const ExclusionsBody = <T extends TSchema>(target: T) =>
  Type.Optional(Type.Array(target, { maxItems: 256, description: 'Left out of every target.' }));

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

/** The fields that begin the scan object of the kinds that scan targets. */
export const targetScanFields = (nodeDescription: string) => ({
  Id: Uuid(),
  Name: Type.String(),
  ScanTargets: ScanTargetsDto,
  Exclusions: Type.Array(Type.String()),
  TemplateId: Uuid(),
  ScanNodeId: NullableUuid(nodeDescription),
});

/** When the schedule starts a scan next. */
export const NextRunAtSchema = Type.Union([DateTime, Type.Null()], {
  description: 'When the schedule starts the scan next.',
});

/** The fields that end every kind's scan object: its runs, then when it was made and changed. */
export const scanRunFields = (texts: { lastCompletedRunId: string; scanLastCompleted?: string }) => ({
  RunState: RunStateSchema,
  LastRun: Type.Union([RunSummarySchema, Type.Null()]),
  LastCompletedRunId: NullableUuid(texts.lastCompletedRunId),
  ScanLastCompleted: texts.scanLastCompleted
    ? Type.Union([DateTime, Type.Null()], { description: texts.scanLastCompleted })
    : Type.Union([DateTime, Type.Null()]),
  CreatedAt: DateTime,
  UpdatedAt: DateTime,
});

export const ScanIdParams = Type.Object({ Id: Uuid() }, { additionalProperties: false });

const PageSize = Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 }));
const Cursor = Type.Optional(Type.String({ maxLength: 1000 }));

export const ScanListQuery = Type.Object({ PageSize, Cursor }, { additionalProperties: false });

/** The list query of the kinds whose scans a group holds. */
export const GroupedScanListQuery = Type.Object(
  { ScanGroupId: Type.Optional(Uuid('Only the scans of this group.')), PageSize, Cursor },
  { additionalProperties: false },
);

/** A page of a kind's scans. */
export const scanListSchema = (scan: TSchema) =>
  Type.Object(
    {
      Items: Type.Array(scan),
      NextCursor: Type.Union([Type.String(), Type.Null()]),
      TotalCount: Type.Integer(),
    },
    { additionalProperties: false },
  );

/** The import a run's results became, once they did. */
export const RunImportSchema = (counts: TSchema, id: TSchema, description: string) =>
  Type.Union(
    [
      Type.Object({ Id: id, Counts: Type.Record(Type.String(), counts) }, { additionalProperties: false }),
      Type.Null(),
    ],
    { description },
  );
