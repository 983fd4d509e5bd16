import { Type } from 'typebox';
import { DELIVERY_STATES, NOTIFICATION_CHANNEL_KINDS, SEVERITIES } from '../../db/schema.js';
import { PageSchema, pageQueryFields } from '../../http/page.js';
import { EVENT_TYPES } from '../events/catalogue.js';

const Id = Type.String({ format: 'uuid' });
const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Kind = Type.Enum(NOTIFICATION_CHANNEL_KINDS, {
  description:
    'Webhook: the CloudEvent, signed (docs/notifications.md). Slack, Teams: a sentence and a link, to an incoming webhook URL. Email: when the server has a mail channel.',
});
const Severity = Type.Enum(SEVERITIES);
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'An http: or https: URL (Email: the addresses the email channel takes). Refused (422 `notification-destination-refused`): other schemes, link-local and cloud metadata addresses, multicast, reserved and unspecified addresses; loopback and private networks unless the server allows them (RAMPART_NOTIFY_ALLOW_LOOPBACK, RAMPART_NOTIFY_ALLOW_PRIVATE). Host names are resolved and every address checked, when saved and again at each delivery.',
  examples: ['https://hooks.example.com/rampart'],
});
const RatePerMinute = Type.Integer({
  minimum: 1,
  maximum: 6000,
  description:
    'Most deliveries a minute to this endpoint (default 60); more wait their turn, none is dropped.',
});

export const EndpointSchema = Type.Object(
  {
    Id,
    Name,
    Kind,
    Url: Type.String({ description: 'Shown to Admins only: chat webhook URLs are credentials.' }),
    Enabled: Type.Boolean(),
    DisabledReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why it was disabled after repeated failures; null when enabled or disabled by hand.',
    }),
    DisabledAt: NullableTime,
    ConsecutiveFailures: Type.Integer({ minimum: 0 }),
    FailingSince: NullableTime,
    RatePerMinute: Type.Integer(),
    Signed: Type.Boolean({ description: 'Deliveries carry a Rampart-Signature header (webhooks).' }),
    CreatedAt: Time,
    UpdatedAt: Time,
  },
  { additionalProperties: false },
);

export const CreatedEndpointSchema = Type.Object(
  {
    ...EndpointSchema.properties,
    Secret: Type.Union([Type.String(), Type.Null()], {
      description:
        'The webhook signing secret, in this answer only: keep it to verify Rampart-Signature. Null for kinds that are not signed.',
    }),
  },
  { additionalProperties: false },
);

export const EndpointListSchema = Type.Object(
  {
    Items: Type.Array(EndpointSchema),
    NextCursor: Type.Null({ description: 'An organisation has at most 100 endpoints: always one page.' }),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const CreateEndpointSchema = Type.Object(
  {
    Name,
    Kind,
    Url,
    RatePerMinute: Type.Optional(RatePerMinute),
    Enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

export const UpdateEndpointSchema = Type.Object(
  {
    Name: Type.Optional(Name),
    Url: Type.Optional(Url),
    RatePerMinute: Type.Optional(RatePerMinute),
    Enabled: Type.Optional(
      Type.Boolean({
        description: 'true enables it again (its failures forgotten); false disables it by hand.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const EventTypeName = Type.String({
  minLength: 1,
  maxLength: 100,
  description: `An event type of the catalogue (docs/events.md): ${EVENT_TYPES.join(', ')}.`,
  examples: ['finding.created'],
});

const ruleFilterFields = {
  MinSeverity: Type.Optional(
    Type.Union([Severity, Type.Null()], {
      description: 'Only events of this severity or worse (events with a severity: findings).',
    }),
  ),
  KevOnly: Type.Optional(Type.Boolean({ description: 'Only findings of vulnerabilities in CISA KEV.' })),
  RiskAbove: Type.Optional(
    Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: 'Only findings whose risk score is above this.',
    }),
  ),
  Tag: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
      description: 'Only events about assets with this tag.',
    }),
  ),
  ScanGroupId: Type.Optional(
    Type.Union([Id, Type.Null()], {
      description: 'Only events of this scan group (its scans and their findings).',
    }),
  ),
  AssetId: Type.Optional(Type.Union([Id, Type.Null()], { description: 'Only events about this asset.' })),
};

export const RuleSchema = Type.Object(
  {
    Id,
    Name,
    EventTypes: Type.Array(Type.String()),
    MinSeverity: Type.Union([Severity, Type.Null()]),
    KevOnly: Type.Boolean(),
    RiskAbove: Type.Union([Type.Number(), Type.Null()]),
    Tag: Type.Union([Type.String(), Type.Null()]),
    ScanGroupId: Type.Union([Id, Type.Null()]),
    AssetId: Type.Union([Id, Type.Null()]),
    ScanId: Type.Union([Id, Type.Null()], { description: 'Only this scan’s events (rules a scan owns).' }),
    ManagedBy: Type.Union(
      [
        Type.Object(
          {
            Kind: Type.Union([Type.Literal('DiscoveryScan'), Type.Literal('ScanGroup')]),
            Id,
            Name: Type.String(),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      {
        description:
          'The discovery scan or scan group whose MessageNotification made this rule: it changes only with its owner (changing or deleting it here answers 409).',
      },
    ),
    EndpointIds: Type.Array(Id),
    Enabled: Type.Boolean(),
    CreatedAt: Time,
    UpdatedAt: Time,
  },
  { additionalProperties: false },
);

export const RuleListSchema = Type.Object(
  {
    Items: Type.Array(RuleSchema),
    NextCursor: Type.Null({ description: 'An organisation has at most 500 rules: always one page.' }),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const CreateRuleSchema = Type.Object(
  {
    Name,
    EventTypes: Type.Array(EventTypeName, { minItems: 1, maxItems: 100 }),
    EndpointIds: Type.Array(Id, { minItems: 1, maxItems: 50 }),
    ...ruleFilterFields,
    Enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

export const UpdateRuleSchema = Type.Object(
  {
    Name: Type.Optional(Name),
    EventTypes: Type.Optional(Type.Array(EventTypeName, { minItems: 1, maxItems: 100 })),
    EndpointIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 50 })),
    ...ruleFilterFields,
    Enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

const DeliveryState = Type.Enum(DELIVERY_STATES, {
  description:
    'Pending: waiting for its first attempt. Delivering: being sent. Succeeded: the receiver answered 2xx. Failed: the last attempt failed; retried at NextAttemptAt. Dead: given up (attempts exhausted, a refused destination, or the endpoint disabled).',
});

export const AttemptSchema = Type.Object(
  {
    Attempt: Type.Integer({ minimum: 1 }),
    At: Time,
    StatusCode: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The receiver’s answer; null when none came.',
    }),
    DurationMs: Type.Integer({ minimum: 0 }),
    Error: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    Id,
    EndpointId: Id,
    RuleId: Type.Union([Id, Type.Null()], { description: 'Null for a test delivery.' }),
    EventId: Id,
    EventType: Type.String(),
    State: DeliveryState,
    Attempts: Type.Integer({ minimum: 0 }),
    NextAttemptAt: NullableTime,
    LastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
    LastDurationMs: Type.Union([Type.Integer(), Type.Null()]),
    LastError: Type.Union([Type.String(), Type.Null()]),
    CreatedAt: Time,
    DeliveredAt: NullableTime,
    AttemptLog: Type.Array(AttemptSchema),
  },
  { additionalProperties: false },
);

export const DeliveryDetailSchema = Type.Object(
  {
    ...DeliverySchema.properties,
    Event: Type.Unknown({ description: 'The CloudEvent sent (what a webhook receives as its body).' }),
  },
  { additionalProperties: false },
);

export const DeliveryPageSchema = PageSchema(DeliverySchema);

export const DeliveryListQuery = Type.Object(
  { ...pageQueryFields(50), State: Type.Optional(DeliveryState) },
  { additionalProperties: false },
);
