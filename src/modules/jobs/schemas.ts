import { Type } from 'typebox';
import { JOB_STATES } from '../../jobs/types.js';

const NullableString = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.Union([Type.String(options), Type.Null()]);

export const JobStateSchema = Type.Enum(JOB_STATES, {
  description:
    'Queued (waiting for its RunAt), Running (a worker holds it), Completed, Failed (given up), Cancelled.',
});

export const JobSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Kind: Type.String({ description: 'What the job does, e.g. an import or an intelligence sync.' }),
    State: JobStateSchema,
    Attempts: Type.Integer({ description: 'Runs so far: the first run is attempt 1.' }),
    MaxAttempts: Type.Integer({ description: 'Attempts before the job is given up (Failed).' }),
    RunAt: Type.String({
      format: 'date-time',
      description: 'Not before this time; a retry’s backoff moves it on.',
    }),
    LockedBy: NullableString({ description: 'The worker running the job, while Running.' }),
    LeaseUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'While Running: when the worker’s hold on the job runs out unless it renews it.',
    }),
    LastError: NullableString({ description: 'Why the last attempt failed; kept when the job is given up.' }),
    CreatedAt: Type.String({ format: 'date-time' }),
    UpdatedAt: Type.String({ format: 'date-time' }),
    FinishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    OrganizationId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The organisation the job works for; null for a system job.',
    }),
  },
  { additionalProperties: false },
);

export const JobListSchema = Type.Object(
  {
    Items: Type.Array(JobSchema),
    NextCursor: Type.Union([Type.String(), Type.Null()]),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const JobListQuery = Type.Object(
  {
    Kind: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Only jobs of this kind.' }),
    ),
    State: Type.Optional(JobStateSchema),
    PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    Cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const JobIdParams = Type.Object(
  { Id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
