import { cloudEventType, dataSchemaUri, type EventType } from './catalogue.js';
import type { CloudEvent, StoredEvent } from './types.js';

/**
 * The CloudEvents `source` of an organisation's events: a URI reference naming the organisation
 * (not the installation's base URL, which may change or differ behind a proxy), so that `source`
 * + `id` is unique across organisations and installations keep it stable.
 */
export const eventSource = (organizationId: string): string => `/rampart/organizations/${organizationId}`;

/**
 * An event in the CloudEvents 1.0 structured JSON format: the outbox row's id, the organisation as
 * source, `rampart.<type>`, its subject, its time (RFC 3339, UTC), and its payload with the URN of
 * the payload's schema version.
 */
export function toCloudEvent(e: StoredEvent): CloudEvent {
  return {
    specversion: '1.0',
    id: e.id,
    source: eventSource(e.organizationId),
    type: cloudEventType(e.type),
    ...(e.subject ? { subject: e.subject } : {}),
    time: e.time.toISOString(),
    datacontenttype: 'application/json',
    dataschema: dataSchemaUriOf(e.type, e.schemaVersion),
    data: e.data,
  };
}

/** The dataschema of a stored event: the version it was written with, not today's. */
function dataSchemaUriOf(type: EventType, version: number): string {
  return dataSchemaUri(type).replace(/:v\d+$/, `:v${version}`);
}
