import type { RawBuilder } from 'kysely';
import { Value } from 'typebox/value';
import type { Clock } from '../../lib/clock.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { EVENT_CATALOGUE, type EventData, type EventType } from './catalogue.js';
import { toCloudEvent } from './envelope.js';
import type { EventRepository, OutboxInsert } from './repository.js';
import type {
  CloudEvent,
  EventConsumer,
  EventRowsQuery,
  Executor,
  NewEvent,
  PublishOptions,
  StoredEvent,
} from './types.js';

export interface EventsOptions {
  /**
   * Check each payload against its type's schema when published and throw when it does not match
   * (tests and development). Off in production: an event is never lost to a payload check, and
   * extra fields are allowed everywhere (a version gains fields; see docs/events.md).
   */
  checkPayloads?: boolean;
  /** Events a dispatch transaction takes at most. */
  batchSize?: number;
}

/** Dispatched events are kept this long, then purged (events-purge). */
export const KEEP_DISPATCHED_EVENTS_DAYS = 7;

/** A payload that does not match its event type's schema (only when payloads are checked). */
export class EventPayloadInvalid extends Error {
  constructor(type: string, reason: string) {
    super(`Invalid payload for a ${type} event: ${reason}`);
    this.name = 'EventPayloadInvalid';
  }
}

/**
 * Rampart's events (issue 26, item 4): each change writes its events to the outbox with the
 * executor of its own transaction, so that an event exists exactly when its change committed.
 * The events-dispatch job then hands pending events, in batches locked FOR UPDATE SKIP LOCKED, to
 * every consumer in one transaction that also marks them dispatched: each event reaches the
 * consumers once, even across a kill (a batch whose transaction did not commit is taken again).
 */
export class EventsService {
  private readonly consumers: EventConsumer[] = [];
  private readonly checkPayloads: boolean;
  private readonly batchSize: number;

  constructor(
    private readonly repo: EventRepository,
    private readonly clock: Clock,
    options: EventsOptions = {},
  ) {
    this.checkPayloads = options.checkPayloads ?? false;
    this.batchSize = options.batchSize ?? 200;
  }

  /** Writes one event with `db` (the caller's transaction) and returns its id. */
  async publish<T extends EventType>(
    db: Executor,
    organizationId: string,
    type: T,
    data: EventData<T>,
    opts: PublishOptions = {},
  ): Promise<string> {
    const row = this.row(organizationId, { type, data, ...opts } as NewEvent);
    await this.repo.insert(db, [row]);
    return row.id;
  }

  /** Writes many events with `db` in few statements; returns their ids in order. */
  async publishMany(db: Executor, organizationId: string, events: readonly NewEvent[]): Promise<string[]> {
    const rows = events.map((e) => this.row(organizationId, e));
    await this.repo.insert(db, rows);
    return rows.map((r) => r.id);
  }

  /**
   * Writes one event of `type` for each row of a query (set-based: one statement however many).
   * The query, built by the publishing module over its own relations, yields organization_id,
   * subject, data (jsonb) and facets (jsonb), and mark_key with `once`: an occurrence already
   * published (e.g. a finding's SLA breach for one due date) is not published again. Payloads
   * built in SQL are checked by the publishing module's tests. Returns how many were written.
   */
  publishFromQuery(
    db: Executor,
    type: EventType,
    rows: RawBuilder<EventRowsQuery>,
    options: { once?: boolean; time?: Date } = {},
  ): Promise<number> {
    return this.repo.insertFromQuery(
      db,
      {
        type,
        schemaVersion: EVENT_CATALOGUE[type].version,
        time: options.time ?? this.clock(),
        once: options.once ?? false,
      },
      rows,
    );
  }

  /**
   * Marks occurrences `keys` of the organisation as published, in the caller's transaction;
   * returns those not marked before, so that the caller publishes each occurrence once.
   */
  markOnce(db: Executor, organizationId: string, keys: readonly string[]): Promise<Set<string>> {
    return this.repo.mark(db, organizationId, keys, this.clock());
  }

  /**
   * Adds a consumer of every event, run in the dispatch transaction (notifications register here
   * when the service graph is built). A consumer that throws rolls back its batch: no event of it
   * counts as dispatched, and the job tries again later.
   */
  onDispatch(consumer: EventConsumer): void {
    this.consumers.push(consumer);
  }

  /** The CloudEvents 1.0 JSON of a stored event. */
  envelope(e: StoredEvent): CloudEvent {
    return toCloudEvent(e);
  }

  /**
   * Dispatches one batch of pending events in one transaction; returns its size (0 when nothing
   * waits). Concurrent dispatchers take disjoint batches.
   */
  async dispatchBatch(): Promise<number> {
    return this.repo.transaction(async (trx) => {
      const events = await this.repo.claimPending(trx, this.batchSize);
      if (events.length === 0) return 0;
      for (const consume of this.consumers) await consume(trx, events);
      await this.repo.markDispatched(trx, events, this.clock());
      return events.length;
    });
  }

  /** Dispatches batches until none waits or `signal` aborts; returns how many events went out. */
  async dispatchPending(signal?: AbortSignal): Promise<number> {
    let total = 0;
    while (!signal?.aborted) {
      const n = await this.dispatchBatch();
      total += n;
      if (n < this.batchSize) break;
    }
    return total;
  }

  /** Whether an event waits for dispatch. */
  hasPending(): Promise<boolean> {
    return this.repo.hasPending();
  }

  /**
   * For the metrics: the events of every organisation waiting for dispatch, and the age in seconds
   * of the oldest (0 with none), by the application clock.
   */
  async backlog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const { count, oldestCreatedAt } = await this.repo.backlog();
    const age = oldestCreatedAt ? (this.clock().getTime() - oldestCreatedAt.getTime()) / 1000 : 0;
    return { count, oldestAgeSeconds: Math.max(0, age) };
  }

  /** Deletes dispatched events older than the retention; pending ones are always kept. */
  purgeDispatched(): Promise<number> {
    return this.repo.purgeDispatched(
      new Date(this.clock().getTime() - KEEP_DISPATCHED_EVENTS_DAYS * 86_400_000),
    );
  }

  /** The organisation's latest events, newest first (tests; an events page later). */
  listRecent(
    organizationId: string,
    options: { types?: readonly EventType[]; limit?: number; db?: Executor } = {},
  ): Promise<StoredEvent[]> {
    return this.repo.listRecent(organizationId, { ...options, limit: options.limit ?? 100 });
  }

  private row(organizationId: string, e: NewEvent): OutboxInsert {
    if (this.checkPayloads) assertEventData(e.type, e.data);
    const time = e.time ?? this.clock();
    return {
      organizationId,
      id: uuidv7(this.clock().getTime()),
      type: e.type,
      schemaVersion: EVENT_CATALOGUE[e.type].version,
      subject: e.subject ?? null,
      time,
      data: e.data,
      facets: e.facets ?? {},
      createdAt: this.clock(),
    };
  }
}

/** Throws EventPayloadInvalid unless `data` matches the schema of `type` (extra fields pass). */
export function assertEventData(type: EventType, data: unknown): void {
  const schema = EVENT_CATALOGUE[type]?.schema;
  if (!schema) throw new EventPayloadInvalid(type, 'not an event type of the catalogue');
  if (Value.Check(schema, data)) return;
  const errors = [...Value.Errors(schema, data)].slice(0, 3);
  throw new EventPayloadInvalid(type, errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; '));
}
