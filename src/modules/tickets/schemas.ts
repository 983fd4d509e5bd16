import { Type } from 'typebox';
import { PageSchema, pageQueryFields } from '../../http/page.js';
import { HISTORY_EVENT_FIELDS } from '../findings/schemas.js';

export const TicketStateSchema = Type.Union([
  Type.Literal('Open'),
  Type.Literal('InProgress'),
  Type.Literal('Resolved'),
  Type.Literal('Closed'),
  Type.Literal('Reopened'),
]);
export const PrioritySchema = Type.Union([
  Type.Literal('Critical'),
  Type.Literal('High'),
  Type.Literal('Medium'),
  Type.Literal('Low'),
]);
const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
const Uuid = Type.String({ format: 'uuid' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** Where a linked finding is, as a finding answers it (`Kind` None, Port, Url, File or Package). */
const TicketFindingLocation = Type.Object(
  {
    Kind: Type.String(),
    Port: Nullable(Type.Integer()),
    Protocol: Nullable(Type.String()),
    Url: Nullable(Type.String()),
    Parameter: Nullable(Type.String()),
    File: Nullable(Type.String()),
    Line: Nullable(Type.Integer()),
    Package: Nullable(Type.String()),
    Version: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const TicketSchema = Type.Object(
  {
    Id: Uuid,
    Number: Type.Integer({ description: 'Per-organisation ticket number.' }),
    Title: Type.String(),
    Description: Type.Union([Type.String(), Type.Null()]),
    Priority: PrioritySchema,
    AssigneeId: Type.Union([Uuid, Type.Null()]),
    DueAt: NullableTime,
    State: TicketStateSchema,
    FindingCount: Type.Integer(),
    CreatedById: Type.Union([Uuid, Type.Null()]),
    CreatedAt: Time,
    UpdatedAt: Time,
    ResolvedAt: NullableTime,
    ClosedAt: NullableTime,
  },
  { additionalProperties: false },
);

export const TicketDetailSchema = Type.Object(
  {
    ...TicketSchema.properties,
    Findings: Type.Array(
      Type.Object(
        {
          Id: Uuid,
          Title: Type.String(),
          State: Type.String(),
          Severity: Type.String(),
          AssetId: Uuid,
          AssetName: Type.String(),
          Location: TicketFindingLocation,
        },
        { additionalProperties: false },
      ),
    ),
    Comments: Type.Array(
      Type.Object(
        { Id: Uuid, AuthorId: Type.Union([Uuid, Type.Null()]), Body: Type.String(), CreatedAt: Time },
        { additionalProperties: false },
      ),
    ),
    Events: Type.Array(
      Type.Object(
        {
          Id: Uuid,
          ...HISTORY_EVENT_FIELDS,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TicketListSchema = PageSchema(TicketSchema);

export const TicketListQuery = Type.Object(
  {
    ...pageQueryFields(100),
    State: Type.Optional(Type.Array(TicketStateSchema, { maxItems: 5 })),
    AssigneeId: Type.Optional(Uuid),
    Search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const CreateTicketSchema = Type.Object(
  {
    Title: Type.String({ minLength: 1, maxLength: 500 }),
    Description: Type.Optional(Type.String({ maxLength: 20000 })),
    Priority: Type.Optional(PrioritySchema),
    AssigneeId: Type.Optional(Uuid),
    DueAt: Type.Optional(Time),
    FindingIds: Type.Optional(Type.Array(Uuid, { maxItems: 10000 })),
  },
  { additionalProperties: false },
);

export const UpdateTicketSchema = Type.Object(
  {
    Title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    Description: Type.Optional(Type.Union([Type.String({ maxLength: 20000 }), Type.Null()])),
    Priority: Type.Optional(PrioritySchema),
    AssigneeId: Type.Optional(Type.Union([Uuid, Type.Null()])),
    DueAt: Type.Optional(NullableTime),
    State: Type.Optional(TicketStateSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const CommentSchema = Type.Object(
  { Body: Type.String({ minLength: 1, maxLength: 20000 }) },
  { additionalProperties: false },
);
export const LinkSchema = Type.Object(
  { FindingIds: Type.Array(Uuid, { minItems: 1, maxItems: 10000 }) },
  { additionalProperties: false },
);
export const LinkResultSchema = Type.Object({ Changed: Type.Integer() }, { additionalProperties: false });
