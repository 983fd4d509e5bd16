import { Type } from 'typebox';
import { PageSchema, pageQueryFields } from '../../http/page.js';

export const ACTOR_TYPES = ['user', 'apikey', 'system', 'cli'] as const;
const ActorType = Type.Union(
  ACTOR_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'Who acted: `user` (signed in to the web app), `apikey` (an integration), `system` (a schedule or rule), `cli` (the rampart command).',
  },
);
const Name = (description: string) =>
  Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+\\*?$', description });

export const AuditLogQuery = Type.Object(
  {
    Actor: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Literal('system'), Type.Literal('cli')], {
        description:
          "A user's id or an API key's id (the entries' ActorId), or `system` or `cli` for what the system or the command line did.",
      }),
    ),
    ActorType: Type.Optional(ActorType),
    Action: Type.Optional(
      Name(
        'An action (`apikey.revoked`), or every action starting with a prefix when it ends with `.` or `*` (`apikey.`, `session.sign*`).',
      ),
    ),
    TargetType: Type.Optional(Name('The kind of thing acted on (`user`, `apikey`, `system-scan`, …).')),
    TargetId: Type.Optional(Type.String({ format: 'uuid', description: 'The id of the thing acted on.' })),
    From: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time.' })),
    To: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or before this time.' })),
    ...pageQueryFields(100),
  },
  { additionalProperties: false },
);

export const AuditEntrySchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Time: Type.String({ format: 'date-time' }),
    ActorType,
    ActorId: Type.Union([Type.String(), Type.Null()]),
    ActorName: Type.Union([Type.String(), Type.Null()], {
      description:
        'The user\'s name and email ("Ada Admin <ada@example.com>"), the API key\'s name, `System` or `Command line`; null when the actor is no longer known.',
    }),
    Action: Type.String(),
    TargetType: Type.Union([Type.String(), Type.Null()]),
    TargetId: Type.Union([Type.String(), Type.Null()]),
    Details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What the action changed or concerned; never a secret or a password.',
    }),
    IpAddress: Type.Union([Type.String(), Type.Null()]),
    RequestId: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const AuditLogSchema = PageSchema(AuditEntrySchema);
