import { type Static, type TSchema, Type } from 'typebox';
import { SEVERITIES } from '../../db/schema.js';

// Every event Rampart emits, in one table: its name (the CloudEvents type is `rampart.<name>`),
// the version of its payload, the payload's TypeBox schema, one line saying when it happens and
// the facets it carries for notification rules. The names and payload shapes are a published
// contract (docs/events.md, both OpenAPI documents): a field may be added to a version, never
// removed, renamed or retyped; such a change makes a new version (v2) with its own schema.

const Id = Type.String({ format: 'uuid', description: 'A Rampart id (UUIDv7).' });
const Time = Type.String({ format: 'date-time' });
const Severity = Type.Enum(SEVERITIES, { description: 'Critical, High, Medium, Low or Info.' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Actor = Type.Object(
  {
    Type: Type.Union([
      Type.Literal('user'),
      Type.Literal('apikey'),
      Type.Literal('system'),
      Type.Literal('cli'),
    ]),
    Id: Nullable(Type.String()),
  },
  { description: 'Who made the change: a user, an API key, the system (a rule, a schedule) or the CLI.' },
);

/** A finding as events name it: enough to route and show it, never its evidence. */
const FindingRef = Type.Object({
  Id,
  Title: Type.String(),
  Severity,
  State: Type.String({ description: 'Open, Reopened, Fixed, RiskAccepted or FalsePositive.' }),
  RiskScore: Type.Number(),
  Kev: Type.Boolean({ description: 'The vulnerability is in the CISA KEV catalogue.' }),
  DueAt: Nullable(Time),
  Asset: Type.Object({ Id, Name: Type.String() }),
  Vulnerability: Type.Object({ Id, Key: Type.String({ description: 'The CVE or scanner rule id.' }) }),
});

const FindingEvent = Type.Object({ Finding: FindingRef });
const FindingStateChanged = Type.Object({
  Finding: FindingRef,
  FromState: Nullable(Type.String()),
  ToState: Type.String(),
  Reason: Nullable(Type.String()),
  Actor,
});
const FindingReopened = Type.Object({ Finding: FindingRef, FromState: Nullable(Type.String()), Actor });
const FindingSla = Type.Object({ Finding: FindingRef, DueAt: Time });

/** A saved scan's run, named by its scan. */
const ScanRef = Type.Object({
  Kind: Type.String({ description: 'Discovery, System or Web.' }),
  Id,
  Name: Type.String(),
  ScanGroupId: Nullable(Id),
});
const RunRef = Type.Object({ Id, Attempt: Type.Integer(), State: Type.String() });
const ScanEvent = Type.Object({ Scan: ScanRef, Run: RunRef });
const ScanFailed = Type.Object({ Scan: ScanRef, Run: RunRef, Error: Nullable(Type.String()) });
const ScanNewHosts = Type.Object({
  Scan: ScanRef,
  Run: RunRef,
  Count: Type.Integer({ minimum: 0 }),
  Hosts: Type.Array(Type.Object({ Address: Type.String(), Hostname: Nullable(Type.String()) }), {
    maxItems: 100,
    description: 'The first 100 new hosts.',
  }),
});
const ScanNewServices = Type.Object({
  Scan: ScanRef,
  Run: Type.Object({ Id }),
  Count: Type.Integer({ minimum: 0, description: 'How many services were new to their assets.' }),
  Services: Type.Array(
    Type.Object({
      AssetId: Id,
      AssetName: Type.String(),
      Address: Nullable(Type.String({ description: 'The address the run reached the service at.' })),
      Port: Type.Integer(),
      Protocol: Type.String(),
      Name: Nullable(Type.String()),
      Product: Nullable(Type.String()),
      Version: Nullable(Type.String()),
    }),
    { maxItems: 100, description: 'The first 100 new services, by address and port.' },
  ),
});

const ImportRef = Type.Object({
  Id,
  Format: Nullable(Type.String()),
  FileName: Nullable(Type.String()),
  ScopeName: Nullable(Type.String()),
});
const ImportCompleted = Type.Object({
  Import: ImportRef,
  Counts: Type.Record(Type.String(), Type.Integer()),
  WarningCount: Type.Integer({ minimum: 0 }),
});
const ImportFailed = Type.Object({ Import: ImportRef, Error: Nullable(Type.String()) });
const ImportNeedsAttention = Type.Object({
  Import: ImportRef,
  Counts: Type.Record(Type.String(), Type.Integer()),
  Reasons: Type.Array(Type.String(), { description: 'Why: warnings, unconfirmed findings.' }),
  Warnings: Type.Array(Type.String(), { maxItems: 10, description: 'The first 10 warnings.' }),
});

const TicketRef = Type.Object({
  Id,
  Number: Type.Integer(),
  Title: Type.String(),
  State: Type.String(),
  Priority: Type.String(),
  AssigneeUserId: Nullable(Id),
});
const TicketEvent = Type.Object({ Ticket: TicketRef, Actor });
const TicketAssigned = Type.Object({ Ticket: TicketRef, FromAssigneeUserId: Nullable(Id), Actor });
const TicketChanged = Type.Object({
  Ticket: TicketRef,
  Changed: Type.Array(Type.String(), { description: 'The names of the fields that changed.' }),
  Actor,
});
const TicketResolvedByVerify = Type.Object({ Ticket: TicketRef, FindingIds: Type.Array(Id) });

const RiskAcceptanceExpiring = Type.Object({ Finding: FindingRef, AcceptedUntil: Time });
const ApiKeyEvent = Type.Object({
  ApiKey: Type.Object({ Id, Name: Type.String(), AccessKey: Type.String(), UserId: Id }),
  Actor,
});
const UserRoleChanged = Type.Object({
  User: Type.Object({ Id, Email: Type.String(), Name: Type.String() }),
  FromRole: Type.String(),
  ToRole: Type.String(),
  Actor,
});
const EndpointDisabled = Type.Object({
  Endpoint: Type.Object({ Id, Name: Type.String(), Kind: Type.String() }),
  Reason: Type.String(),
  Failures: Type.Integer({ minimum: 0 }),
});

/** The facets a notification rule filters on; the catalogue says which each event carries. */
export const FACETS = ['severity', 'kev', 'riskScore', 'tags', 'scanGroupIds', 'assetIds'] as const;
export type Facet = (typeof FACETS)[number];
const FINDING_FACETS: Facet[] = ['severity', 'kev', 'riskScore', 'tags', 'assetIds', 'scanGroupIds'];

export interface EventTypeEntry<S extends TSchema = TSchema> {
  version: 1;
  description: string;
  facets: readonly Facet[];
  schema: S;
}
const entry = <S extends TSchema>(e: EventTypeEntry<S>): EventTypeEntry<S> => e;

export const EVENT_CATALOGUE = {
  'finding.created': entry({
    version: 1,
    description: 'A finding was recorded for the first time (created through the API, an import or a scan).',
    facets: FINDING_FACETS,
    schema: FindingEvent,
  }),
  'finding.state_changed': entry({
    version: 1,
    description:
      'A finding changed state (by hand, in bulk, by a re-import or scan, or when a risk acceptance expired).',
    facets: FINDING_FACETS,
    schema: FindingStateChanged,
  }),
  'finding.reopened': entry({
    version: 1,
    description: 'A Fixed finding was reported again and became Reopened.',
    facets: FINDING_FACETS,
    schema: FindingReopened,
  }),
  'finding.sla_breached': entry({
    version: 1,
    description: 'An open finding passed its due date (once per finding and due date).',
    facets: FINDING_FACETS,
    schema: FindingSla,
  }),
  'finding.sla_due_soon': entry({
    version: 1,
    description: 'An open finding is due within 7 days (once per finding and due date).',
    facets: FINDING_FACETS,
    schema: FindingSla,
  }),
  'finding.kev_found': entry({
    version: 1,
    description:
      'An open finding is of a vulnerability in the CISA KEV catalogue: created or reopened so, or its vulnerability was added to KEV.',
    facets: FINDING_FACETS,
    schema: FindingEvent,
  }),
  'scan.started': entry({
    version: 1,
    description: 'A scan node started a run of a saved scan.',
    facets: ['scanGroupIds'],
    schema: ScanEvent,
  }),
  'scan.completed': entry({
    version: 1,
    description: 'A run of a saved scan completed (or was stopped and kept what it found).',
    facets: ['scanGroupIds'],
    schema: ScanEvent,
  }),
  'scan.failed': entry({
    version: 1,
    description: 'A run of a saved scan failed.',
    facets: ['scanGroupIds'],
    schema: ScanFailed,
  }),
  'scan.new_hosts_found': entry({
    version: 1,
    description: 'A discovery run reported hosts it had not seen before.',
    facets: ['scanGroupIds'],
    schema: ScanNewHosts,
  }),
  'scan.new_services_found': entry({
    version: 1,
    description:
      'A system run’s results added services (a port and protocol) to assets that did not have them before.',
    facets: ['scanGroupIds', 'assetIds'],
    schema: ScanNewServices,
  }),
  'import.completed': entry({
    version: 1,
    description: 'An import (a report, or a system or web scan’s results) was merged.',
    facets: [],
    schema: ImportCompleted,
  }),
  'import.failed': entry({
    version: 1,
    description: 'An import failed; nothing of it was merged.',
    facets: [],
    schema: ImportFailed,
  }),
  'import.needs_attention': entry({
    version: 1,
    description:
      'An import completed with warnings or with findings marked Unconfirmed (sent besides import.completed).',
    facets: [],
    schema: ImportNeedsAttention,
  }),
  'ticket.created': entry({
    version: 1,
    description: 'A ticket was created.',
    facets: [],
    schema: TicketEvent,
  }),
  'ticket.assigned': entry({
    version: 1,
    description: 'A ticket’s assignee changed.',
    facets: [],
    schema: TicketAssigned,
  }),
  'ticket.changed': entry({
    version: 1,
    description: 'A ticket’s title, description, priority, due date or state changed.',
    facets: [],
    schema: TicketChanged,
  }),
  'ticket.resolved_by_verify': entry({
    version: 1,
    description: 'A verification run found all of a ticket’s findings fixed, and the ticket was resolved.',
    facets: [],
    schema: TicketResolvedByVerify,
  }),
  'risk_acceptance.expiring': entry({
    version: 1,
    description: 'A risk acceptance ends within 7 days (once per acceptance and end date).',
    facets: FINDING_FACETS,
    schema: RiskAcceptanceExpiring,
  }),
  'apikey.created': entry({
    version: 1,
    description: 'An API key was created (its secret is never part of an event).',
    facets: [],
    schema: ApiKeyEvent,
  }),
  'apikey.revoked': entry({
    version: 1,
    description: 'An API key was revoked.',
    facets: [],
    schema: ApiKeyEvent,
  }),
  'user.role_changed': entry({
    version: 1,
    description: 'A user’s role changed.',
    facets: [],
    schema: UserRoleChanged,
  }),
  'notification.endpoint_disabled': entry({
    version: 1,
    description: 'A notification endpoint was disabled after repeated failed deliveries.',
    facets: [],
    schema: EndpointDisabled,
  }),
} satisfies Record<string, EventTypeEntry>;

type Catalogue = typeof EVENT_CATALOGUE;
export type EventType = keyof Catalogue;
/** The payload (`data`) of an event of `type`. */
export type EventData<T extends EventType> = Static<Catalogue[T]['schema']>;

/** Every event type, in the catalogue's order. */
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, type);
}

/** The CloudEvents `type` attribute of an event type. */
export const cloudEventType = (type: EventType): string => `rampart.${type}`;

/**
 * The stable URI naming an event type's payload schema (CloudEvents `dataschema`): a URN rather
 * than a URL, since the base URL is each installation's own; the OpenAPI component with the same
 * schema is `Event.<type>.v<version>` (see schemaComponentName).
 */
export const dataSchemaUri = (type: EventType): string =>
  `urn:rampart:events:${type}:v${EVENT_CATALOGUE[type].version}`;

/** The OpenAPI component name of an event type's payload schema. */
export const schemaComponentName = (type: EventType): string =>
  `Event.${type}.v${EVENT_CATALOGUE[type].version}`;
