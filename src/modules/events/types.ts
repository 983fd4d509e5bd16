import type { Kysely, Transaction } from 'kysely';
import type { DB, Severity } from '../../db/schema.js';
import type { EventData, EventType } from './catalogue.js';

/** Where an event is written: the caller's transaction (or, outside one, the database). */
export type Executor = Kysely<DB> | Transaction<DB>;

/** What a notification rule filters on, stored with the event (jsonb). */
export interface EventFacets {
  severity?: Severity;
  kev?: boolean;
  riskScore?: number;
  /** The tags of the assets the event is about. */
  tags?: string[];
  scanGroupIds?: string[];
  assetIds?: string[];
}

export interface PublishOptions {
  /** CloudEvents `subject`: what the event is about within the organisation, e.g. `findings/<id>`. */
  subject?: string;
  /** When the change happened; the application clock's now when left out. */
  time?: Date;
  facets?: EventFacets;
}

/** One event of a publishMany batch. */
export type NewEvent = {
  [T in EventType]: { type: T; data: EventData<T> } & PublishOptions;
}[EventType];

/** An event as the outbox keeps it. */
export interface StoredEvent {
  organizationId: string;
  id: string;
  type: EventType;
  /** The payload schema's version (the catalogue's when it was written). */
  schemaVersion: number;
  time: Date;
  subject: string | null;
  data: unknown;
  facets: EventFacets;
}

/** A CloudEvents 1.0 event in the structured JSON format. */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject?: string;
  time: string;
  datacontenttype: 'application/json';
  dataschema: string;
  data: unknown;
}

/** Runs in the dispatch transaction with a batch of events; a throw rolls the batch back. */
export type EventConsumer = (trx: Transaction<DB>, events: StoredEvent[]) => Promise<void>;

/**
 * The rows of a set-based publish: a query (over the publishing module's own relations) that
 * yields one row per event with these columns. `mark_key`, when the publish is once-only, names
 * the occurrence (e.g. `finding.sla_breached:<finding id>:<due date>`): a key already marked in
 * its organisation publishes nothing again.
 */
export interface EventRowsQuery {
  organization_id: string;
  subject: string | null;
  data: unknown;
  facets: unknown;
  mark_key?: string;
}
