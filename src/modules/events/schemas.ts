import { type TSchema, Type } from 'typebox';
import { EVENT_CATALOGUE, EVENT_TYPES, FACETS, schemaComponentName } from './catalogue.js';

/** The CloudEvents 1.0 envelope every event is delivered in (structured JSON mode). */
export const CloudEventSchema = Type.Object(
  {
    specversion: Type.Literal('1.0'),
    id: Type.String({ format: 'uuid', description: 'The event’s id (UUIDv7); with source, unique.' }),
    source: Type.String({
      format: 'uri-reference',
      description: 'The organisation the event happened in: /rampart/organizations/{OrganizationId}.',
    }),
    type: Type.String({ description: 'rampart.<event type>, e.g. rampart.finding.created.' }),
    subject: Type.Optional(
      Type.String({ description: 'What the event is about in the organisation, e.g. findings/{Id}.' }),
    ),
    time: Type.String({ format: 'date-time', description: 'When the change happened (RFC 3339, UTC).' }),
    datacontenttype: Type.Literal('application/json'),
    dataschema: Type.String({
      format: 'uri',
      description:
        'The payload’s schema and version: urn:rampart:events:<type>:v<version>; in the OpenAPI document as Event.<type>.v<version>.',
    }),
    data: Type.Unknown({ description: 'The payload: the schema dataschema names.' }),
  },
  {
    $id: 'CloudEvent',
    title: 'CloudEvent',
    description: 'A Rampart event in the CloudEvents 1.0 structured JSON format (docs/events.md).',
  },
);

/** Each event type's payload schema as a named component (`Event.<type>.v<version>`). */
export function eventPayloadComponents(): TSchema[] {
  return EVENT_TYPES.map((type) => {
    const e = EVENT_CATALOGUE[type];
    return {
      ...e.schema,
      $id: schemaComponentName(type),
      title: schemaComponentName(type),
      description: e.description,
    };
  });
}

export const EventTypeNameSchema = Type.Enum(EVENT_TYPES, {
  description: 'An event type of the catalogue, e.g. finding.created.',
});

export const EventTypesQuery = Type.Object(
  { Type: Type.Optional(EventTypeNameSchema) },
  { additionalProperties: false },
);

export const EventTypeSchema = Type.Object(
  {
    Type: EventTypeNameSchema,
    CloudEventType: Type.String({ description: 'The CloudEvents type attribute: rampart.<Type>.' }),
    Version: Type.Integer({ minimum: 1, description: 'The payload schema’s version.' }),
    Description: Type.String({ description: 'When the event happens.' }),
    Facets: Type.Array(Type.Enum(FACETS), {
      description: 'What notification rules can filter this event on.',
    }),
    DataSchema: Type.String({ description: 'The CloudEvents dataschema URN of this version.' }),
    SchemaComponent: Type.String({
      description: 'The name of the payload schema among the components of this OpenAPI document.',
    }),
    Schema: Type.Record(Type.String(), Type.Unknown(), { description: 'The payload’s JSON Schema.' }),
  },
  { additionalProperties: false },
);

export const EventTypeListSchema = Type.Object(
  { Items: Type.Array(EventTypeSchema) },
  { additionalProperties: false },
);
