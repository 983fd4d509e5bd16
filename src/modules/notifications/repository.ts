import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type {
  DB,
  DeliveryState,
  NotificationAttemptsTable,
  NotificationDeliveriesTable,
  NotificationEndpointsTable,
  NotificationRulesTable,
} from '../../db/schema.js';

type Db = Kysely<DB> | Transaction<DB>;
export type EndpointRow = Selectable<NotificationEndpointsTable>;
export type RuleRow = Selectable<NotificationRulesTable>;
export type DeliveryRow = Selectable<NotificationDeliveriesTable>;
export type AttemptRow = Selectable<NotificationAttemptsTable>;

/** Work still to do: waiting for its first attempt, retried after a failure, or held by a sender. */
const OPEN_STATES: DeliveryState[] = ['Pending', 'Failed', 'Delivering'];

export interface NewEndpointRow {
  organizationId: string;
  id: string;
  name: string;
  kind: NotificationEndpointsTable['kind'];
  url: string;
  secret: string | null;
  enabled: boolean;
  ratePerMinute: number;
  createdBy: string | null;
  now: Date;
}

export interface NewRuleRow {
  organizationId: string;
  id: string;
  name: string;
  eventTypes: string[];
  minSeverity: NotificationRulesTable['min_severity'];
  kevOnly: boolean;
  riskAbove: number | null;
  tag: string | null;
  scanGroupId: string | null;
  assetId: string | null;
  scanId?: string | null;
  managedBy?: { kind: 'DiscoveryScan' | 'ScanGroup'; id: string; name: string } | null;
  endpointIds: string[];
  enabled: boolean;
  createdBy: string | null;
  now: Date;
}

export interface NewDeliveryRow {
  organizationId: string;
  id: string;
  endpointId: string;
  ruleId: string | null;
  eventId: string;
  eventType: string;
  event: unknown;
  now: Date;
}

/** The endpoint columns every reader gets; the secret only through secretOf and claimNext. */
const ENDPOINT_COLUMNS = [
  'organization_id',
  'id',
  'name',
  'kind',
  'url',
  'enabled',
  'disabled_reason',
  'disabled_at',
  'consecutive_failures',
  'failing_since',
  'rate_per_minute',
  'created_by',
  'created_at',
  'updated_at',
] as const;
export type EndpointView = Pick<EndpointRow, (typeof ENDPOINT_COLUMNS)[number]> & { has_secret: boolean };

const DELIVERY_COLUMNS = [
  'organization_id',
  'id',
  'endpoint_id',
  'rule_id',
  'event_id',
  'event_type',
  'state',
  'attempts',
  'next_attempt_at',
  'lease_until',
  'last_status',
  'last_duration_ms',
  'last_error',
  'created_at',
  'updated_at',
  'delivered_at',
] as const;
export type DeliveryView = Pick<DeliveryRow, (typeof DELIVERY_COLUMNS)[number]>;

export class NotificationRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  // ---- endpoints --------------------------------------------------------------------------------

  private endpoints(db: Db = this.db) {
    return db
      .selectFrom('notification_endpoints')
      .select(ENDPOINT_COLUMNS)
      .select(sql<boolean>`secret is not null`.as('has_secret'));
  }

  /** Inserts the endpoint, or returns undefined when the organisation has one of that name. */
  async insertEndpoint(row: NewEndpointRow): Promise<EndpointView | undefined> {
    const inserted = await this.db
      .insertInto('notification_endpoints')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        name: row.name,
        kind: row.kind,
        url: row.url,
        secret: row.secret,
        enabled: row.enabled,
        rate_per_minute: row.ratePerMinute,
        created_by: row.createdBy,
        created_at: row.now,
        updated_at: row.now,
      })
      .onConflict((c) => c.columns(['organization_id', 'name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted ? this.getEndpoint(row.organizationId, inserted.id) : undefined;
  }

  listEndpoints(organizationId: string): Promise<EndpointView[]> {
    return this.endpoints()
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  countEndpoints(organizationId: string): Promise<number> {
    return this.db
      .selectFrom('notification_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  getEndpoint(organizationId: string, id: string, db: Db = this.db): Promise<EndpointView | undefined> {
    return this.endpoints(db)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Of `ids`, those the organisation has. */
  async existingEndpointIds(organizationId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('notification_endpoints')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /** The enabled endpoints among `ids`, in any of `organizationIds` (the dispatch's look-up). */
  enabledEndpoints(trx: Db, keys: { organizationId: string; id: string }[]) {
    if (keys.length === 0) return Promise.resolve([]);
    return trx
      .selectFrom('notification_endpoints')
      .select(['organization_id', 'id', 'kind'])
      .where('enabled', '=', true)
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('organization_id', 'id'),
          'in',
          keys.map((k) => tuple(k.organizationId, k.id)),
        ),
      )
      .execute();
  }

  async updateEndpoint(
    organizationId: string,
    id: string,
    changes: Partial<{ name: string; url: string; rate_per_minute: number; enabled: boolean }>,
    now: Date,
  ): Promise<EndpointView | undefined | 'name-taken'> {
    try {
      const updated = await this.db
        .updateTable('notification_endpoints')
        .set({ ...changes, updated_at: now })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returning('id')
        .executeTakeFirst();
      return updated ? this.getEndpoint(organizationId, id) : undefined;
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return 'name-taken';
      throw error;
    }
  }

  /** Enables an endpoint again: its failures are forgotten. */
  async enableEndpoint(organizationId: string, id: string, now: Date): Promise<EndpointView | undefined> {
    const updated = await this.db
      .updateTable('notification_endpoints')
      .set({
        enabled: true,
        disabled_reason: null,
        disabled_at: null,
        consecutive_failures: 0,
        failing_since: null,
        updated_at: now,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    return updated ? this.getEndpoint(organizationId, id) : undefined;
  }

  async deleteEndpoint(organizationId: string, id: string): Promise<boolean> {
    const deleted = await this.db
      .deleteFrom('notification_endpoints')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  // ---- rules ------------------------------------------------------------------------------------

  async insertRule(row: NewRuleRow): Promise<RuleRow | undefined> {
    return this.db
      .insertInto('notification_rules')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        name: row.name,
        event_types: row.eventTypes,
        min_severity: row.minSeverity,
        kev_only: row.kevOnly,
        risk_above: row.riskAbove,
        tag: row.tag,
        scan_group_id: row.scanGroupId,
        asset_id: row.assetId,
        scan_id: row.scanId ?? null,
        managed_by: row.managedBy
          ? JSON.stringify({ Kind: row.managedBy.kind, Id: row.managedBy.id, Name: row.managedBy.name })
          : null,
        endpoint_ids: row.endpointIds,
        enabled: row.enabled,
        created_by: row.createdBy,
        created_at: row.now,
        updated_at: row.now,
      })
      .onConflict((c) => c.columns(['organization_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  listRules(organizationId: string): Promise<RuleRow[]> {
    return this.db
      .selectFrom('notification_rules')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  countRules(organizationId: string): Promise<number> {
    return this.db
      .selectFrom('notification_rules')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  getRule(organizationId: string, id: string): Promise<RuleRow | undefined> {
    return this.db
      .selectFrom('notification_rules')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The names of the organisation's rules that send to an endpoint. */
  async rulesUsing(organizationId: string, endpointId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('notification_rules')
      .select('name')
      .where('organization_id', '=', organizationId)
      .where(sql<boolean>`${endpointId}::uuid = any(endpoint_ids)`)
      .orderBy('name')
      .execute();
    return rows.map((r) => r.name);
  }

  async updateRule(
    organizationId: string,
    id: string,
    changes: Partial<Omit<NewRuleRow, 'organizationId' | 'id' | 'createdBy' | 'now'>>,
    now: Date,
  ): Promise<RuleRow | undefined | 'name-taken'> {
    const set: Record<string, unknown> = { updated_at: now };
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.eventTypes !== undefined) set.event_types = changes.eventTypes;
    if (changes.minSeverity !== undefined) set.min_severity = changes.minSeverity;
    if (changes.kevOnly !== undefined) set.kev_only = changes.kevOnly;
    if (changes.riskAbove !== undefined) set.risk_above = changes.riskAbove;
    if (changes.tag !== undefined) set.tag = changes.tag;
    if (changes.scanGroupId !== undefined) set.scan_group_id = changes.scanGroupId;
    if (changes.assetId !== undefined) set.asset_id = changes.assetId;
    if (changes.scanId !== undefined) set.scan_id = changes.scanId;
    if (changes.managedBy)
      set.managed_by = JSON.stringify({
        Kind: changes.managedBy.kind,
        Id: changes.managedBy.id,
        Name: changes.managedBy.name,
      });
    if (changes.endpointIds !== undefined) set.endpoint_ids = changes.endpointIds;
    if (changes.enabled !== undefined) set.enabled = changes.enabled;
    try {
      return await this.db
        .updateTable('notification_rules')
        .set(set)
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return 'name-taken';
      throw error;
    }
  }

  async deleteRule(organizationId: string, id: string): Promise<boolean> {
    const deleted = await this.db
      .deleteFrom('notification_rules')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  /** The enabled rules of these organisations that name any of these event types. */
  rulesFor(trx: Db, organizationIds: string[], eventTypes: string[]): Promise<RuleRow[]> {
    if (organizationIds.length === 0 || eventTypes.length === 0) return Promise.resolve([]);
    return trx
      .selectFrom('notification_rules')
      .selectAll()
      .where('organization_id', 'in', organizationIds)
      .where('enabled', '=', true)
      .where(sql<boolean>`event_types && ${sql.val(eventTypes)}::text[]`)
      .execute();
  }

  // ---- deliveries -------------------------------------------------------------------------------

  /** Inserts the deliveries not made yet (one per endpoint and event); returns the new ones. */
  async insertDeliveries(
    trx: Db | null,
    rows: NewDeliveryRow[],
  ): Promise<{ organization_id: string; endpoint_id: string }[]> {
    const db = trx ?? this.db;
    const inserted: { organization_id: string; endpoint_id: string }[] = [];
    // A few hundred rows a statement keeps the parameters well under PostgreSQL's limit.
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const done = await db
        .insertInto('notification_deliveries')
        .values(
          chunk.map((r) => ({
            organization_id: r.organizationId,
            id: r.id,
            endpoint_id: r.endpointId,
            rule_id: r.ruleId,
            event_id: r.eventId,
            event_type: r.eventType,
            event: JSON.stringify(r.event),
            state: 'Pending' as const,
            attempts: 0,
            next_attempt_at: r.now,
            created_at: r.now,
            updated_at: r.now,
          })),
        )
        .onConflict((c) => c.columns(['organization_id', 'endpoint_id', 'event_id']).doNothing())
        .returning(['organization_id', 'endpoint_id'])
        .execute();
      inserted.push(...done);
    }
    return inserted;
  }

  getDelivery(organizationId: string, id: string): Promise<(DeliveryView & { event: unknown }) | undefined> {
    return this.db
      .selectFrom('notification_deliveries')
      .select(DELIVERY_COLUMNS)
      .select('event')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  attemptsOf(organizationId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('notification_attempts')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('at')
      .orderBy('attempt')
      .execute();
  }

  /** An endpoint's deliveries, newest first, after the (createdAt, id) of the previous page's last. */
  listDeliveries(
    organizationId: string,
    endpointId: string,
    limit: number,
    filter: { state?: DeliveryState; after?: { createdAt: string; id: string } },
  ): Promise<DeliveryView[]> {
    let q = this.db
      .selectFrom('notification_deliveries')
      .select(DELIVERY_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('endpoint_id', '=', endpointId);
    if (filter.state) q = q.where('state', '=', filter.state);
    const after = filter.after;
    if (after)
      q = q.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '<', tuple(new Date(after.createdAt), after.id)),
      );
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async countDeliveries(organizationId: string, endpointId: string, state?: DeliveryState): Promise<number> {
    let q = this.db
      .selectFrom('notification_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .where('endpoint_id', '=', endpointId);
    if (state) q = q.where('state', '=', state);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /**
   * Claims the oldest due delivery of an endpoint for one attempt: the endpoint's row is locked
   * meanwhile, so that two senders never hold deliveries of one endpoint at once (the order of
   * an endpoint's deliveries, its rate limit and a hanging receiver stay one sender's business).
   * `canSend` decides (in the same transaction) whether the rate limit lets one more go now.
   */
  claimNext(
    organizationId: string,
    endpointId: string,
    now: Date,
    leaseUntil: Date,
    canSend: (trx: Transaction<DB>, endpoint: EndpointRow) => Promise<Date | null>,
  ): Promise<
    | { kind: 'claimed'; endpoint: EndpointRow; delivery: DeliveryRow }
    | { kind: 'busy' }
    | { kind: 'disabled' }
    | { kind: 'idle' }
    | { kind: 'limited'; until: Date }
  > {
    return this.transaction(async (trx) => {
      const endpoint = await trx
        .selectFrom('notification_endpoints')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', endpointId)
        .forUpdate()
        .executeTakeFirst();
      if (!endpoint?.enabled) return { kind: 'disabled' as const };
      const held = await trx
        .selectFrom('notification_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .where('state', '=', 'Delivering')
        .where('lease_until', '>', now)
        .executeTakeFirst();
      if (held) return { kind: 'busy' as const };
      const due = await trx
        .selectFrom('notification_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .where('organization_id', '=', organizationId)
        .where((eb) =>
          eb.or([
            eb.and([eb('state', 'in', ['Pending', 'Failed']), eb('next_attempt_at', '<=', now)]),
            eb.and([eb('state', '=', 'Delivering'), eb('lease_until', '<=', now)]),
          ]),
        )
        .orderBy('seq')
        .limit(1)
        .executeTakeFirst();
      if (!due) return { kind: 'idle' as const };
      const wait = await canSend(trx, endpoint);
      if (wait) return { kind: 'limited' as const, until: wait };
      const delivery = await trx
        .updateTable('notification_deliveries')
        .set((eb) => ({
          state: 'Delivering',
          attempts: eb('attempts', '+', 1),
          lease_until: leaseUntil,
          updated_at: now,
        }))
        .where('organization_id', '=', organizationId)
        .where('id', '=', due.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { kind: 'claimed' as const, endpoint, delivery };
    });
  }

  /** How many attempts an endpoint made since `since`, and the oldest of them. */
  async attemptsSince(
    trx: Db,
    endpointId: string,
    since: Date,
  ): Promise<{ count: number; oldest: Date | null }> {
    const row = await trx
      .selectFrom('notification_attempts')
      .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('at').as('oldest')])
      .where('endpoint_id', '=', endpointId)
      .where('at', '>', since)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), oldest: row.oldest ? new Date(row.oldest as Date) : null };
  }

  /** When the endpoint's next open delivery is due (a held one: when its lease ends); null when none is open. */
  async nextDue(organizationId: string, endpointId: string): Promise<Date | null> {
    const row = await this.db
      .selectFrom('notification_deliveries')
      .select(
        sql<Date | null>`min(case when state = 'Delivering' then lease_until else next_attempt_at end)`.as(
          'at',
        ),
      )
      .where('organization_id', '=', organizationId)
      .where('endpoint_id', '=', endpointId)
      .where('state', 'in', OPEN_STATES)
      .executeTakeFirst();
    return row?.at ? new Date(row.at) : null;
  }

  /** Enabled endpoints with a delivery due by `now`: the sweep makes sure a job serves each. */
  endpointsWithDueWork(now: Date, limit: number) {
    return this.db
      .selectFrom('notification_deliveries as d')
      .innerJoin('notification_endpoints as e', (j) =>
        j.onRef('e.organization_id', '=', 'd.organization_id').onRef('e.id', '=', 'd.endpoint_id'),
      )
      .select(['d.organization_id', 'd.endpoint_id'])
      .distinct()
      .where('e.enabled', '=', true)
      .where((eb) =>
        eb.or([
          eb.and([eb('d.state', 'in', ['Pending', 'Failed']), eb('d.next_attempt_at', '<=', now)]),
          eb.and([eb('d.state', '=', 'Delivering'), eb('d.lease_until', '<=', now)]),
        ]),
      )
      .limit(limit)
      .execute();
  }

  /**
   * Records an attempt and its outcome on the delivery and the endpoint, in one transaction:
   * `then` (in it) decides whether the endpoint is disabled by the failures it now has.
   */
  recordAttempt(
    input: {
      organizationId: string;
      attemptId: string;
      delivery: DeliveryRow;
      at: Date;
      status: number | null;
      durationMs: number;
      error: string | null;
      state: DeliveryState;
      nextAttemptAt: Date;
    },
    then: (trx: Transaction<DB>, endpoint: EndpointRow) => Promise<void>,
  ): Promise<void> {
    const { organizationId, delivery, at } = input;
    const ok = input.state === 'Succeeded';
    return this.transaction(async (trx) => {
      await trx
        .insertInto('notification_attempts')
        .values({
          organization_id: organizationId,
          id: input.attemptId,
          delivery_id: delivery.id,
          endpoint_id: delivery.endpoint_id,
          attempt: delivery.attempts,
          at,
          status: input.status,
          duration_ms: input.durationMs,
          error: input.error,
        })
        .execute();
      await trx
        .updateTable('notification_deliveries')
        .set({
          state: input.state,
          next_attempt_at: input.nextAttemptAt,
          lease_until: null,
          last_status: input.status,
          last_duration_ms: input.durationMs,
          last_error: input.error,
          updated_at: at,
          ...(ok ? { delivered_at: at } : {}),
        })
        .where('organization_id', '=', organizationId)
        .where('id', '=', delivery.id)
        .execute();
      const endpoint = await trx
        .updateTable('notification_endpoints')
        .set((eb) =>
          ok
            ? { consecutive_failures: 0, failing_since: null }
            : {
                consecutive_failures: eb('consecutive_failures', '+', 1),
                failing_since: eb.fn.coalesce('failing_since', sql<Date>`${at}::timestamptz`),
              },
        )
        .where('organization_id', '=', organizationId)
        .where('id', '=', delivery.endpoint_id)
        .returningAll()
        .executeTakeFirst();
      if (endpoint) await then(trx, endpoint);
    });
  }

  /** Disables an endpoint and gives up its open deliveries. */
  async disableEndpoint(trx: Db, organizationId: string, endpointId: string, reason: string, at: Date) {
    await trx
      .updateTable('notification_endpoints')
      .set({ enabled: false, disabled_reason: reason, disabled_at: at, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', endpointId)
      .execute();
    await trx
      .updateTable('notification_deliveries')
      .set({
        state: 'Dead',
        lease_until: null,
        last_error: `Given up: the endpoint was disabled (${reason})`.slice(0, 1000),
        updated_at: at,
      })
      .where('organization_id', '=', organizationId)
      .where('endpoint_id', '=', endpointId)
      .where('state', 'in', ['Pending', 'Failed'])
      .execute();
  }

  /** Queues a delivery in one of `states` again from its first attempt; undefined when it is in none (or not there). */
  async redeliver(
    organizationId: string,
    id: string,
    now: Date,
    states: DeliveryState[],
  ): Promise<DeliveryView | undefined> {
    return this.db
      .updateTable('notification_deliveries')
      .set({ state: 'Pending', attempts: 0, next_attempt_at: now, lease_until: null, updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('state', 'in', states)
      .returning(DELIVERY_COLUMNS)
      .executeTakeFirst();
  }
}
