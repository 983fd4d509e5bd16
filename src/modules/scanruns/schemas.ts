import { Type } from 'typebox';
import { ScanKindSchema } from '../scannodes/schemas.js';
import { FINISH_STATES, SCAN_RUN_STATES } from './types.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
const NullableUuid = Type.Union([Type.String({ format: 'uuid' }), Type.Null()]);

export const ScanRunStateSchema = Type.Enum(SCAN_RUN_STATES, {
  description:
    'Queued (waiting for a node), Running, Stopping (the node was told to stop), Completed, Failed (with Error), Stopped.',
});

export const ProgressSchema = Type.Object(
  {
    Done: Type.Integer({ minimum: 0, description: 'Addresses done.', examples: [120] }),
    Total: Type.Integer({ minimum: 0, description: 'Addresses in all.', examples: [256] }),
    Found: Type.Integer({ minimum: 0, description: 'Hosts found so far.', examples: [7] }),
  },
  { additionalProperties: false },
);

export const RunRefusalsSchema = Type.Object(
  {
    Count: Type.Integer({ description: 'Addresses the node refused in this attempt.' }),
    Addresses: Type.Array(
      Type.Object(
        {
          Address: Type.String({ description: 'The address, or a target name that did not resolve.' }),
          Rule: Type.String({
            description:
              'Why: Loopback, AlwaysRefused, NotAllowed, Excluded, Unresolved (a name that did not resolve), Syntax, TooLarge.',
          }),
          Message: Type.String(),
        },
        { additionalProperties: false },
      ),
      { description: 'The first 100 of them.' },
    ),
  },
  {
    additionalProperties: false,
    description:
      'Addresses the scan node refused to send anything to (loopback, outside the allowed targets, …) and names that did not resolve. A run that refused every address ends Failed, naming them.',
  },
);

export const ScanRunSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Kind: ScanKindSchema,
    SourceId: Type.String({ format: 'uuid', description: 'The scan this is a run of.' }),
    SourceName: Type.String({ examples: ['Office network'] }),
    NodeId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The node asked for; null for any node serving the kind.',
    }),
    ClaimedBy: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The node running (or that ran) the current attempt.',
    }),
    State: ScanRunStateSchema,
    Attempt: Type.Integer({
      description: 'Claims so far: a run whose node fell silent is queued again, at most twice.',
      examples: [1],
    }),
    Progress: ProgressSchema,
    QueuedAt: DateTime,
    StartedAt: NullableDateTime,
    FinishedAt: NullableDateTime,
    Error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed or stopped.' }),
    Refused: RunRefusalsSchema,
    StopRequested: Type.Boolean(),
    CreatedAt: DateTime,
    History: Type.Array(
      Type.Object(
        {
          At: DateTime,
          State: ScanRunStateSchema,
          Attempt: Type.Integer(),
          NodeId: NullableUuid,
          Message: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { description: 'Every step of the run, oldest first.' },
    ),
  },
  { additionalProperties: false },
);

export const ScanRunListSchema = Type.Object(
  {
    Items: Type.Array(ScanRunSchema),
    NextCursor: Type.Union([Type.String(), Type.Null()]),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const ScanRunListQuery = Type.Object(
  {
    SourceId: Type.Optional(Type.String({ format: 'uuid', description: 'Only the runs of this scan.' })),
    Kind: Type.Optional(ScanKindSchema),
    State: Type.Optional(ScanRunStateSchema),
    PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    Cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const ScanRunIdParams = Type.Object(
  { Id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const ClaimSchema = Type.Object(
  {
    Kinds: Type.Optional(
      Type.Array(ScanKindSchema, {
        uniqueItems: true,
        maxItems: 10,
        description: 'Only these kinds (among those the node serves); default: all it serves.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ClaimedRunSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Kind: ScanKindSchema,
    Attempt: Type.Integer({ minimum: 1, description: 'Batches and the finish name this attempt.' }),
    Spec: Type.Unknown({
      description: 'What to scan and how (for Discovery: targets, exclusions, template, policy).',
    }),
  },
  { additionalProperties: false },
);

export const AttemptParams = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Attempt: Type.Integer({ minimum: 1, maximum: 1000 }),
  },
  { additionalProperties: false },
);

export const BatchParams = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Attempt: Type.Integer({ minimum: 1, maximum: 1000 }),
    Seq: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'Numbered from 1 in each attempt.' }),
  },
  { additionalProperties: false },
);

export const BatchSchema = Type.Object(
  {
    Items: Type.Array(Type.Unknown(), {
      maxItems: 10_000,
      description: 'Results in order (for Discovery: live hosts).',
    }),
    Progress: Type.Optional(ProgressSchema),
  },
  { additionalProperties: false },
);

export const BatchAnswerSchema = Type.Object(
  {
    Applied: Type.Boolean({ description: 'False when this batch was received before (nothing changed).' }),
    StopRequested: Type.Boolean({ description: 'Stop the run now, then finish it Stopped.' }),
  },
  { additionalProperties: false },
);

export const FinishSchema = Type.Object(
  {
    State: Type.Enum(FINISH_STATES),
    Error: Type.Optional(Type.String({ maxLength: 4000, description: 'Why it failed (or stopped).' })),
  },
  { additionalProperties: false },
);
