import { Type } from 'typebox';
import { SCAN_KINDS } from '../../scanning/types.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
const NODE_ID = '0193a5c4-7f10-7c3e-9d41-2b6f1a0e5c77';

export const ScanKindSchema = Type.Enum(SCAN_KINDS, { description: 'A kind of scan.' });

export const ScanNodeSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid', examples: [NODE_ID] }),
    Name: Type.String({ examples: ['dmz-scanner-1'] }),
    Kinds: Type.Array(ScanKindSchema, {
      description: 'The scan kinds it serves.',
      examples: [['Discovery']],
    }),
    Version: Type.String({ description: 'The Rampart version the node runs.', examples: ['0.14.0'] }),
    Capacity: Type.Integer({ description: 'Runs it executes at once.', examples: [2] }),
    State: Type.Enum(['Online', 'Offline'], {
      description: 'Online while its last heartbeat is under 60 seconds old.',
    }),
    LastHeartbeatAt: NullableDateTime,
    Local: Type.Boolean({
      description: 'The node built into the server (RAMPART_LOCAL_SCAN_NODE): it serves every organisation.',
    }),
    CreatedAt: DateTime,
    RevokedAt: Type.Union([DateTime, Type.Null()], { description: 'Set once the node’s key was revoked.' }),
  },
  { additionalProperties: false },
);

export const ScanNodeListSchema = Type.Object(
  {
    Items: Type.Array(ScanNodeSchema),
    NextCursor: Type.Null({ description: 'An organisation has few nodes: always one page.' }),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const ScanNodeIdParams = Type.Object(
  { Id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const CreateEnrolmentSchema = Type.Object(
  {
    ExpiresInHours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 168,
        default: 24,
        description: 'How long the token may be used (once): 1 to 168 hours, 24 by default.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const EnrolmentSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Token: Type.String({
      description: 'Shown only in this answer. Give it to `rampart scan-node --token`; it works once.',
      examples: ['rse_3q2XbO8h1Zk7m0yVw4Jc9nTLr5sAaPdEuQfGiHjKlMo'],
    }),
    ExpiresAt: DateTime,
    Command: Type.String({
      description: 'The command to run on the node’s machine.',
      examples: ['rampart scan-node --server https://rampart.example.com --token rse_3q2X…'],
    }),
  },
  { additionalProperties: false },
);

const NodeName = Type.String({ minLength: 1, maxLength: 100, examples: ['dmz-scanner-1'] });
const Capacity = Type.Integer({
  minimum: 1,
  maximum: 64,
  description: 'Runs executed at once.',
  examples: [2],
});
const Version = Type.String({ maxLength: 100, examples: ['0.14.0'] });

export const EnrolSchema = Type.Object(
  {
    Token: Type.String({ minLength: 1, maxLength: 200, description: 'The one-time enrolment token.' }),
    Name: Type.Optional(NodeName),
    Kinds: Type.Optional(
      Type.Array(ScanKindSchema, { uniqueItems: true, maxItems: 10, description: 'Default: every kind.' }),
    ),
    Version: Type.Optional(Version),
    Capacity: Type.Optional(Capacity),
  },
  { additionalProperties: false },
);

export const EnrolledSchema = Type.Object(
  {
    NodeId: Type.String({ format: 'uuid', examples: [NODE_ID] }),
    NodeKey: Type.String({
      description:
        'The node’s own key, shown only in this answer: send it as `Authorization: Bearer <key>`. Only its SHA-256 is kept.',
      examples: ['rsn_Jc9nTLr5sAaPdEuQfGiHjKlMo3q2XbO8h1Zk7m0yVw4'],
    }),
    OrganizationId: Type.String({ format: 'uuid' }),
  },
  { additionalProperties: false },
);

export const HeartbeatSchema = Type.Object(
  {
    Kinds: Type.Optional(Type.Array(ScanKindSchema, { uniqueItems: true, maxItems: 10 })),
    Version: Type.Optional(Version),
    Capacity: Type.Optional(Capacity),
    RunIds: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), {
        maxItems: 64,
        description: 'The runs the node is executing: their leases are extended.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const HeartbeatAnswerSchema = Type.Object(
  {
    NodeId: Type.String({ format: 'uuid' }),
    State: Type.Enum(['Online', 'Offline']),
    StopRunIds: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'Runs to stop now (then finish them Stopped).',
    }),
    LostRunIds: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'Runs the node named but no longer holds (queued again or ended): abandon them.',
    }),
    LeaseSeconds: Type.Integer({ description: 'A run whose node is silent this long is queued again.' }),
  },
  { additionalProperties: false },
);
