import { performance } from 'node:perf_hooks';
import type { Transaction } from 'kysely';
import { type DB, NOTIFICATION_CHANNEL_KINDS, SEVERITIES } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import { JobDeferred } from '../../jobs/worker.js';
import type { Clock } from '../../lib/clock.js';
import { createdAtPage, decodeCreatedAtCursor } from '../../lib/cursor.js';
import { suggestName } from '../../lib/spelling.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid, invalidFields } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import { EVENT_TYPES, isEventType } from '../events/catalogue.js';
import { eventSource } from '../events/envelope.js';
import type { EventsService } from '../events/service.js';
import type { StoredEvent } from '../events/types.js';
import type {
  DeliveryRow,
  DeliveryView,
  EndpointRow,
  EndpointView,
  NotificationRepository,
  RuleRow,
} from './repository.js';
import { facetsOf, passesFilters } from './rules.js';
import { newSigningSecret } from './signature.js';
import type {
  ChannelTarget,
  Delivery,
  DeliveryDetail,
  DeliveryOutcome,
  DeliveryState,
  DeliveryWithAttempts,
  EndpointChanges,
  NewEndpoint,
  NewRule,
  NotificationChannel,
  NotificationEndpoint,
  NotificationEvent,
  NotificationRule,
  RuleChanges,
  RuleOwner,
} from './types.js';

/** The job that delivers an endpoint's due deliveries, one at a time (src/jobs/catalogue.ts). */
export const DELIVER_JOB = 'notification-deliver' as const;

export const MAX_ENDPOINTS = 100;
export const MAX_RULES = 500;
export const MAX_PAGE_SIZE = 500;
const MAX_NAME = 100;

/** What the notifications use of the events module: its dispatch, its envelope and publishing. */
export type EventsPort = Pick<EventsService, 'onDispatch' | 'envelope' | 'publish'>;

export interface NotificationOptions {
  /** The web app's address (RAMPART_BASE_URL): the test event's source. */
  baseUrl: string;
  /** The longest wait for a receiver's answer (default 10 s). */
  timeoutMs?: number;
  /** Attempts of one delivery before it is given up as Dead (default 10). */
  maxAttempts?: number;
  /** The wait after the first failed attempt, doubled after each (default 30 s), and its cap (default 6 h). */
  backoff?: { baseMs: number; maxMs: number };
  /** The bounds of a receiver's Retry-After (default 1 s to 1 h). */
  retryAfterBounds?: { minMs: number; maxMs: number };
  /** An endpoint is disabled after this many failed attempts in a row (default 15) … */
  disableAfterFailures?: number;
  /** … or once it has been failing this long (default 24 h) with at least 3 failures. */
  disableAfterFailingMs?: number;
  /** Attempts of one job before it lets others run (default 50). */
  deliveriesPerRun?: number;
  /** For the jitter of the backoff (default Math.random). */
  random?: () => number;
}

const DEFAULTS = {
  timeoutMs: 10_000,
  maxAttempts: 10,
  backoff: { baseMs: 30_000, maxMs: 6 * 3_600_000 },
  retryAfterBounds: { minMs: 1000, maxMs: 3_600_000 },
  disableAfterFailures: 15,
  disableAfterFailingMs: 24 * 3_600_000,
  deliveriesPerRun: 50,
  random: Math.random,
};

/**
 * The wait before attempt `attempts + 1` after `attempts` failed ones: exponential, capped, with
 * "equal jitter" (between half and all of it), so that the deliveries an outage failed together
 * do not all come back at the same second.
 */
export function retryDelay(
  attempts: number,
  backoff: { baseMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const full = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(Math.max(0, attempts - 1), 30));
  return Math.round(full / 2 + (random() * full) / 2);
}

const notFound = (what: string, id: string) =>
  AppError.of(Problems.NotFound, `No notification ${what} ${id} in your organisation.`);

function toEndpoint(row: EndpointView): NotificationEndpoint {
  return {
    organizationId: row.organization_id,
    id: row.id,
    name: row.name,
    kind: row.kind,
    url: row.url,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at ? new Date(row.disabled_at) : null,
    consecutiveFailures: row.consecutive_failures,
    failingSince: row.failing_since ? new Date(row.failing_since) : null,
    ratePerMinute: row.rate_per_minute,
    hasSecret: row.has_secret,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** A rule a scan owns changes only through that scan (409 naming it otherwise). */
function assertOwner(rule: NotificationRule, owner: RuleOwner | undefined): void {
  const by = rule.managedBy;
  if (!by || (owner && owner.kind === by.kind && owner.id === by.id)) return;
  const what = by.kind === 'DiscoveryScan' ? 'discovery scan' : 'scan group';
  throw AppError.of(
    Problems.Conflict,
    `The rule ${rule.name} belongs to the ${what} ${by.name} (its MessageNotification): change it there.`,
    { managedBy: { Kind: by.kind, Id: by.id, Name: by.name } },
  );
}

function toRule(row: RuleRow): NotificationRule {
  return {
    organizationId: row.organization_id,
    id: row.id,
    name: row.name,
    eventTypes: row.event_types,
    minSeverity: row.min_severity,
    kevOnly: row.kev_only,
    riskAbove: row.risk_above === null ? null : Number(row.risk_above),
    tag: row.tag,
    scanGroupId: row.scan_group_id,
    assetId: row.asset_id,
    scanId: row.scan_id ?? null,
    managedBy: row.managed_by
      ? { kind: row.managed_by.Kind, id: row.managed_by.Id, name: row.managed_by.Name }
      : null,
    endpointIds: row.endpoint_ids,
    enabled: row.enabled,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function toDelivery(row: DeliveryView): Delivery {
  return {
    organizationId: row.organization_id,
    id: row.id,
    endpointId: row.endpoint_id,
    ruleId: row.rule_id,
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: new Date(row.next_attempt_at),
    lastStatus: row.last_status,
    lastDurationMs: row.last_duration_ms,
    lastError: row.last_error,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    deliveredAt: row.delivered_at ? new Date(row.delivered_at) : null,
  };
}

/**
 * Notifications: rules choose which events go to which endpoints; each (event, endpoint) becomes
 * a delivery, made in the transaction that dispatches the event from the outbox, and sent by a
 * job per endpoint through the endpoint's channel, retried with backoff and jitter until it
 * succeeds or is given up. An endpoint that keeps failing is disabled, with an event that says so.
 */
export class NotificationService {
  private readonly channels = new Map<string, NotificationChannel>();
  private readonly options: typeof DEFAULTS & { baseUrl: string };

  constructor(
    private readonly repo: NotificationRepository,
    private readonly deps: {
      events: EventsPort;
      jobs: Pick<JobQueue, 'enqueue' | 'nudge'>;
      audit: AuditService;
      clock: Clock;
    },
    channels: NotificationChannel[],
    options: NotificationOptions,
  ) {
    for (const channel of channels) {
      if (this.channels.has(channel.kind))
        throw new Error(`Two notification channels of kind ${channel.kind}`);
      this.channels.set(channel.kind, channel);
    }
    this.options = { ...DEFAULTS, ...options };
    // Every event leaving the outbox passes the rules, in the dispatch's own transaction.
    deps.events.onDispatch((trx, events) => this.dispatch(trx, events));
  }

  /** The kinds of endpoint this server can deliver to. */
  get kinds(): string[] {
    return NOTIFICATION_CHANNEL_KINDS.filter((k) => this.channels.has(k));
  }

  // ---- endpoints --------------------------------------------------------------------------------

  async listEndpoints(ctx: ServiceContext): Promise<NotificationEndpoint[]> {
    return (await this.repo.listEndpoints(ctx.organizationId)).map(toEndpoint);
  }

  async getEndpoint(ctx: ServiceContext, id: string): Promise<NotificationEndpoint> {
    const row = await this.repo.getEndpoint(ctx.organizationId, id);
    if (!row) throw notFound('endpoint', id);
    return toEndpoint(row);
  }

  /** Creates an endpoint; a webhook's signing secret is in this answer only. */
  async createEndpoint(
    ctx: ServiceContext,
    input: NewEndpoint,
  ): Promise<{ endpoint: NotificationEndpoint; secret: string | null }> {
    const name = this.checkName(input.name);
    const channel = this.channelOf(input.kind);
    const url = await this.checkUrl(channel, input.url);
    if ((await this.repo.countEndpoints(ctx.organizationId)) >= MAX_ENDPOINTS)
      throw AppError.of(
        Problems.Conflict,
        `The organisation already has ${MAX_ENDPOINTS} notification endpoints; remove some first.`,
      );
    const secret = channel.signs ? newSigningSecret() : null;
    const row = await this.repo.insertEndpoint({
      organizationId: ctx.organizationId,
      id: uuidv7(),
      name,
      kind: input.kind,
      url,
      secret,
      enabled: input.enabled ?? true,
      ratePerMinute: input.ratePerMinute ?? 60,
      createdBy: ctx.userId ?? null,
      now: this.deps.clock(),
    });
    if (!row) throw AppError.of(Problems.Conflict, `A notification endpoint named ${name} exists already.`);
    await this.deps.audit.record(
      ctx,
      'notificationendpoint.created',
      { type: 'notificationendpoint', id: row.id },
      {
        name,
        kind: input.kind,
      },
    );
    return { endpoint: toEndpoint(row), secret };
  }

  async updateEndpoint(
    ctx: ServiceContext,
    id: string,
    changes: EndpointChanges,
  ): Promise<NotificationEndpoint> {
    const current = await this.getEndpoint(ctx, id);
    const set: Parameters<NotificationRepository['updateEndpoint']>[2] = {};
    if (changes.name !== undefined) set.name = this.checkName(changes.name);
    if (changes.url !== undefined) set.url = await this.checkUrl(this.channelOf(current.kind), changes.url);
    if (changes.ratePerMinute !== undefined) set.rate_per_minute = changes.ratePerMinute;
    if (changes.enabled === false) set.enabled = false;
    const now = this.deps.clock();
    let row = await this.repo.updateEndpoint(ctx.organizationId, id, set, now);
    if (row === 'name-taken')
      throw AppError.of(Problems.Conflict, `A notification endpoint named ${set.name} exists already.`);
    if (changes.enabled === true && !current.enabled)
      row = await this.repo.enableEndpoint(ctx.organizationId, id, now);
    if (!row) throw notFound('endpoint', id);
    await this.deps.audit.record(
      ctx,
      'notificationendpoint.changed',
      { type: 'notificationendpoint', id },
      {
        changed: Object.keys(changes),
      },
    );
    return toEndpoint(row);
  }

  /** Enables an endpoint (disabled by hand or after failures) with its failure count cleared. */
  async enableEndpoint(ctx: ServiceContext, id: string): Promise<NotificationEndpoint> {
    const row = await this.repo.enableEndpoint(ctx.organizationId, id, this.deps.clock());
    if (!row) throw notFound('endpoint', id);
    await this.deps.audit.record(
      ctx,
      'notificationendpoint.enabled',
      { type: 'notificationendpoint', id },
      {},
    );
    await this.startDelivering(ctx.organizationId, id, false);
    return toEndpoint(row);
  }

  /** Removes an endpoint and its delivery log; 409 while a rule still sends to it. */
  async deleteEndpoint(ctx: ServiceContext, id: string): Promise<void> {
    await this.getEndpoint(ctx, id);
    const rules = await this.repo.rulesUsing(ctx.organizationId, id);
    if (rules.length > 0)
      throw AppError.of(
        Problems.Conflict,
        `Rules send to this endpoint: ${rules.join(', ')}. Remove it from them (or delete them) first.`,
      );
    if (!(await this.repo.deleteEndpoint(ctx.organizationId, id))) throw notFound('endpoint', id);
    await this.deps.audit.record(
      ctx,
      'notificationendpoint.deleted',
      { type: 'notificationendpoint', id },
      {},
    );
  }

  /** Sends a test event to an endpoint now, through the usual delivery (and its log). */
  async testEndpoint(ctx: ServiceContext, id: string): Promise<Delivery> {
    const endpoint = await this.getEndpoint(ctx, id);
    if (!endpoint.enabled)
      throw AppError.of(
        Problems.Conflict,
        `The endpoint ${endpoint.name} is disabled: enable it to test it.`,
      );
    const now = this.deps.clock();
    const eventId = uuidv7();
    const event: NotificationEvent = {
      specversion: '1.0',
      id: eventId,
      source: eventSource(ctx.organizationId),
      type: 'rampart.notification.test',
      subject: endpoint.id,
      time: now.toISOString(),
      datacontenttype: 'application/json',
      data: {
        Endpoint: { Id: endpoint.id, Name: endpoint.name, Kind: endpoint.kind },
        Message: 'A test notification sent from Rampart.',
      },
    };
    const deliveryId = uuidv7();
    await this.repo.insertDeliveries(null, [
      {
        organizationId: ctx.organizationId,
        id: deliveryId,
        endpointId: id,
        ruleId: null,
        eventId,
        eventType: 'notification.test',
        event,
        now,
      },
    ]);
    await this.startDelivering(ctx.organizationId, id, false);
    return (await this.getDelivery(ctx, deliveryId)) as Delivery;
  }

  // ---- rules ------------------------------------------------------------------------------------

  async listRules(ctx: ServiceContext): Promise<NotificationRule[]> {
    return (await this.repo.listRules(ctx.organizationId)).map(toRule);
  }

  async getRule(ctx: ServiceContext, id: string): Promise<NotificationRule> {
    const row = await this.repo.getRule(ctx.organizationId, id);
    if (!row) throw notFound('rule', id);
    return toRule(row);
  }

  async createRule(ctx: ServiceContext, input: NewRule): Promise<NotificationRule> {
    const checked = await this.checkRule(ctx, input);
    if ((await this.repo.countRules(ctx.organizationId)) >= MAX_RULES)
      throw AppError.of(
        Problems.Conflict,
        `The organisation already has ${MAX_RULES} notification rules; remove some first.`,
      );
    const row = await this.repo.insertRule({
      organizationId: ctx.organizationId,
      id: uuidv7(),
      name: checked.name!,
      eventTypes: checked.eventTypes!,
      endpointIds: checked.endpointIds!,
      minSeverity: input.minSeverity ?? null,
      kevOnly: input.kevOnly ?? false,
      riskAbove: input.riskAbove ?? null,
      tag: checked.tag ?? null,
      scanGroupId: input.scanGroupId ?? null,
      assetId: input.assetId ?? null,
      scanId: input.scanId ?? null,
      managedBy: input.managedBy ?? null,
      enabled: input.enabled ?? true,
      createdBy: ctx.userId ?? null,
      now: this.deps.clock(),
    });
    if (!row)
      throw AppError.of(Problems.Conflict, `A notification rule named ${checked.name} exists already.`);
    await this.deps.audit.record(
      ctx,
      'notificationrule.created',
      { type: 'notificationrule', id: row.id },
      {
        name: row.name,
      },
    );
    return toRule(row);
  }

  async updateRule(ctx: ServiceContext, id: string, changes: RuleChanges): Promise<NotificationRule> {
    assertOwner(await this.getRule(ctx, id), changes.managedBy);
    const checked = await this.checkRule(ctx, changes);
    const row = await this.repo.updateRule(
      ctx.organizationId,
      id,
      {
        ...(checked.name !== undefined ? { name: checked.name } : {}),
        ...(checked.eventTypes !== undefined ? { eventTypes: checked.eventTypes } : {}),
        ...(checked.endpointIds !== undefined ? { endpointIds: checked.endpointIds } : {}),
        ...(checked.tag !== undefined ? { tag: checked.tag } : {}),
        ...(changes.minSeverity !== undefined ? { minSeverity: changes.minSeverity } : {}),
        ...(changes.kevOnly !== undefined ? { kevOnly: changes.kevOnly } : {}),
        ...(changes.riskAbove !== undefined ? { riskAbove: changes.riskAbove } : {}),
        ...(changes.scanGroupId !== undefined ? { scanGroupId: changes.scanGroupId } : {}),
        ...(changes.assetId !== undefined ? { assetId: changes.assetId } : {}),
        ...(changes.scanId !== undefined ? { scanId: changes.scanId } : {}),
        ...(changes.managedBy ? { managedBy: changes.managedBy } : {}),
        ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
      },
      this.deps.clock(),
    );
    if (row === 'name-taken')
      throw AppError.of(Problems.Conflict, `A notification rule named ${checked.name} exists already.`);
    if (!row) throw notFound('rule', id);
    await this.deps.audit.record(
      ctx,
      'notificationrule.changed',
      { type: 'notificationrule', id },
      {
        changed: Object.keys(changes),
      },
    );
    return toRule(row);
  }

  /** Removes a rule; one a scan owns only by that scan (`owner`), when it is saved or deleted. */
  async deleteRule(ctx: ServiceContext, id: string, owner?: RuleOwner): Promise<void> {
    assertOwner(await this.getRule(ctx, id), owner);
    if (!(await this.repo.deleteRule(ctx.organizationId, id))) throw notFound('rule', id);
    await this.deps.audit.record(ctx, 'notificationrule.deleted', { type: 'notificationrule', id }, {});
  }

  // ---- deliveries -------------------------------------------------------------------------------

  async listDeliveries(
    ctx: ServiceContext,
    endpointId: string,
    params: { pageSize: number; cursor?: string; state?: DeliveryState },
  ): Promise<{ items: DeliveryWithAttempts[]; nextCursor: string | null; totalCount: number }> {
    const { pageSize, cursor, state } = params;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
      throw invalid('pageSize', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    const after = cursor === undefined ? undefined : decodeCreatedAtCursor(cursor);
    if (cursor !== undefined && !after)
      throw invalid('cursor', 'is not valid; pass the NextCursor of a previous page');
    await this.getEndpoint(ctx, endpointId);
    const rows = await this.repo.listDeliveries(ctx.organizationId, endpointId, pageSize + 1, {
      ...(state ? { state } : {}),
      ...(after ? { after } : {}),
    });
    const page = createdAtPage(rows.map(toDelivery), pageSize);
    const attempts = await this.repo.attemptsOf(
      ctx.organizationId,
      page.items.map((d) => d.id),
    );
    const items = page.items.map((d) => ({
      ...d,
      attemptLog: attempts
        .filter((a) => a.delivery_id === d.id)
        .map((a) => ({
          id: a.id,
          attempt: a.attempt,
          at: new Date(a.at),
          status: a.status,
          durationMs: a.duration_ms,
          error: a.error,
        })),
    }));
    return {
      items,
      nextCursor: page.nextCursor,
      totalCount: await this.repo.countDeliveries(ctx.organizationId, endpointId, state),
    };
  }

  async getDelivery(ctx: ServiceContext, id: string): Promise<DeliveryDetail> {
    const row = await this.repo.getDelivery(ctx.organizationId, id);
    if (!row) throw notFound('delivery', id);
    const attempts = await this.repo.attemptsOf(ctx.organizationId, [id]);
    return {
      ...toDelivery(row),
      event: row.event as NotificationEvent,
      attemptLog: attempts.map((a) => ({
        id: a.id,
        attempt: a.attempt,
        at: new Date(a.at),
        status: a.status,
        durationMs: a.duration_ms,
        error: a.error,
      })),
    };
  }

  /** Sends a finished delivery (Succeeded or Dead) again, or a failed one now rather than at its retry. */
  async redeliver(ctx: ServiceContext, id: string): Promise<Delivery> {
    const current = await this.getDelivery(ctx, id);
    const endpoint = await this.getEndpoint(ctx, current.endpointId);
    if (!endpoint.enabled)
      throw AppError.of(
        Problems.Conflict,
        `The endpoint ${endpoint.name} is disabled: enable it to redeliver.`,
      );
    const now = this.deps.clock();
    const row =
      current.state === 'Failed'
        ? await this.repo.redeliver(ctx.organizationId, id, now, ['Failed'])
        : await this.repo.redeliver(ctx.organizationId, id, now, ['Succeeded', 'Dead']);
    if (!row)
      throw AppError.of(
        Problems.Conflict,
        `Delivery ${id} is ${current.state}: only a Succeeded, Failed or Dead delivery is sent again.`,
      );
    await this.deps.audit.record(
      ctx,
      'notificationdelivery.redelivered',
      { type: 'notificationdelivery', id },
      {
        endpointId: endpoint.id,
        eventId: current.eventId,
      },
    );
    await this.startDelivering(ctx.organizationId, endpoint.id, false);
    return toDelivery(row);
  }

  // ---- the dispatch: events → deliveries ------------------------------------------------------------

  /**
   * The events module's consumer: the rules each event passes become one delivery per endpoint,
   * inserted in the dispatch's transaction (a second dispatch of the same events inserts none),
   * and the endpoints' delivery jobs are queued in it too.
   */
  async dispatch(trx: Transaction<DB>, events: StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    const organizations = [...new Set(events.map((e) => e.organizationId))];
    const types = [...new Set(events.map((e) => e.type))];
    const rules = (await this.repo.rulesFor(trx, organizations, types)).map(toRule);
    if (rules.length === 0) return;
    const keys = new Map<string, { organizationId: string; id: string }>();
    for (const rule of rules)
      for (const id of rule.endpointIds)
        keys.set(`${rule.organizationId}/${id}`, { organizationId: rule.organizationId, id });
    const enabled = new Set(
      (await this.repo.enabledEndpoints(trx, [...keys.values()])).map((e) => `${e.organization_id}/${e.id}`),
    );
    const now = this.deps.clock();
    const rows: Parameters<NotificationRepository['insertDeliveries']>[1] = [];
    for (const event of events) {
      const chosen = new Map<string, string>();
      for (const rule of rules) {
        if (rule.organizationId !== event.organizationId || !rule.eventTypes.includes(event.type)) continue;
        if (!passesFilters(rule, facetsOf(event))) continue;
        for (const endpointId of rule.endpointIds)
          if (enabled.has(`${rule.organizationId}/${endpointId}`) && !chosen.has(endpointId))
            chosen.set(endpointId, rule.id);
      }
      if (chosen.size === 0) continue;
      const envelope = this.deps.events.envelope(event);
      for (const [endpointId, ruleId] of chosen)
        rows.push({
          organizationId: event.organizationId,
          id: uuidv7(),
          endpointId,
          ruleId,
          eventId: event.id,
          eventType: event.type,
          event: envelope,
          now,
        });
    }
    if (rows.length === 0) return;
    const inserted = await this.repo.insertDeliveries(trx, rows);
    const endpoints = new Map(inserted.map((r) => [`${r.organization_id}/${r.endpoint_id}`, r]));
    for (const r of endpoints.values())
      await this.deps.jobs.enqueue(
        DELIVER_JOB,
        { endpointId: r.endpoint_id },
        { organizationId: r.organization_id, dedupKey: `endpoint:${r.endpoint_id}`, maxAttempts: 20 },
        trx,
      );
  }

  // ---- the delivery job ---------------------------------------------------------------------------

  /**
   * The `notification-deliver` job: sends the endpoint's due deliveries; when some are due later
   * (a retry, the rate limit, a held one), the job waits for then (JobDeferred: not an attempt).
   */
  async runDeliveryJob(organizationId: string, endpointId: string, signal: AbortSignal): Promise<void> {
    const next = await this.deliverDue(organizationId, endpointId, signal);
    if (next) {
      const delay = Math.max(0, next.getTime() - this.deps.clock().getTime());
      throw new JobDeferred(
        delay,
        `The next delivery to endpoint ${endpointId} is due at ${next.toISOString()}.`,
      );
    }
  }

  /**
   * Sends an endpoint's due deliveries one after another, oldest first; returns when to look
   * again (null: nothing left). After a failed attempt it stops until that delivery's retry, so
   * that an endpoint that is down or hanging costs one attempt per backoff, not one per event.
   */
  async deliverDue(organizationId: string, endpointId: string, signal?: AbortSignal): Promise<Date | null> {
    for (let sent = 0; sent < this.options.deliveriesPerRun; sent++) {
      if (signal?.aborted) return this.deps.clock();
      const now = this.deps.clock();
      const leaseUntil = new Date(now.getTime() + this.options.timeoutMs + 30_000);
      const claim = await this.repo.claimNext(organizationId, endpointId, now, leaseUntil, (trx, endpoint) =>
        this.rateLimitWait(trx, endpoint, now),
      );
      if (claim.kind === 'disabled') return null;
      if (claim.kind === 'limited') return claim.until;
      // Another sender holds one of the endpoint's deliveries: it sends the rest after it.
      if (claim.kind === 'busy') return null;
      if (claim.kind === 'idle') {
        const next = await this.repo.nextDue(organizationId, endpointId);
        return next && next < now ? now : next;
      }
      const { state, nextAttemptAt } = await this.attempt(claim.endpoint, claim.delivery, signal);
      if (state === 'Failed') return nextAttemptAt;
    }
    return this.deps.clock();
  }

  /** When the endpoint's rate limit lets the next attempt go; null when it may go now. */
  private async rateLimitWait(trx: Transaction<DB>, endpoint: EndpointRow, now: Date): Promise<Date | null> {
    const since = new Date(now.getTime() - 60_000);
    const { count, oldest } = await this.repo.attemptsSince(trx, endpoint.id, since);
    if (count < endpoint.rate_per_minute || !oldest) return null;
    return new Date(oldest.getTime() + 60_001);
  }

  /** One attempt of a claimed delivery, recorded with its outcome; the endpoint disabled when it keeps failing. */
  private async attempt(
    endpoint: EndpointRow,
    delivery: DeliveryRow,
    jobSignal?: AbortSignal,
  ): Promise<{ state: DeliveryState; nextAttemptAt: Date }> {
    const target: ChannelTarget = {
      organizationId: endpoint.organization_id,
      endpointId: endpoint.id,
      endpointName: endpoint.name,
      kind: endpoint.kind,
      url: endpoint.url,
      secret: endpoint.secret,
      deliveryId: delivery.id,
      attempt: delivery.attempts,
    };
    const outcome = await this.send(target, delivery.event as NotificationEvent, jobSignal);
    const now = this.deps.clock();
    const { state, nextAttemptAt } = this.nextStep(delivery.attempts, outcome, now);
    await this.repo.recordAttempt(
      {
        organizationId: endpoint.organization_id,
        attemptId: uuidv7(),
        delivery,
        at: now,
        status: outcome.status ?? null,
        durationMs: Math.max(0, Math.round(outcome.durationMs)),
        error: outcome.ok ? null : (outcome.error ?? 'The delivery failed.').slice(0, 2000),
        state,
        nextAttemptAt,
      },
      async (trx, updated) => {
        if (outcome.ok) return;
        const reason = this.disableReason(updated, now);
        if (!reason) return;
        await this.repo.disableEndpoint(trx, updated.organization_id, updated.id, reason, now);
        await this.deps.events.publish(trx, updated.organization_id, 'notification.endpoint_disabled', {
          Endpoint: { Id: updated.id, Name: updated.name, Kind: updated.kind },
          Reason: reason,
          Failures: updated.consecutive_failures,
        });
      },
    );
    return { state, nextAttemptAt };
  }

  /** Sends through the endpoint's channel within the timeout; a channel that throws failed the attempt. */
  private async send(
    target: ChannelTarget,
    event: NotificationEvent,
    jobSignal?: AbortSignal,
  ): Promise<DeliveryOutcome> {
    const channel = this.channels.get(target.kind);
    if (!channel) return { ok: false, durationMs: 0, error: `This server has no ${target.kind} channel.` };
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = jobSignal ? AbortSignal.any([timeout, jobSignal]) : timeout;
    const started = performance.now();
    try {
      return await channel.deliver(target, [event], signal);
    } catch (error) {
      return {
        ok: false,
        durationMs: performance.now() - started,
        error: `The ${target.kind} channel failed: ${(error as Error).message}`.slice(0, 500),
      };
    }
  }

  /** What an outcome makes of a delivery: Succeeded, Failed with its retry time, or Dead. */
  private nextStep(
    attempts: number,
    outcome: DeliveryOutcome,
    now: Date,
  ): { state: DeliveryState; nextAttemptAt: Date } {
    if (outcome.ok) return { state: 'Succeeded', nextAttemptAt: now };
    if (outcome.permanent || attempts >= this.options.maxAttempts)
      return { state: 'Dead', nextAttemptAt: now };
    const { minMs, maxMs } = this.options.retryAfterBounds;
    const wait =
      outcome.retryAfterMs !== undefined
        ? Math.min(maxMs, Math.max(minMs, outcome.retryAfterMs))
        : retryDelay(attempts, this.options.backoff, this.options.random);
    return { state: 'Failed', nextAttemptAt: new Date(now.getTime() + wait) };
  }

  /** Why an endpoint with these failures is disabled now; null while it is not. */
  private disableReason(endpoint: EndpointRow, now: Date): string | null {
    const failures = endpoint.consecutive_failures;
    if (failures >= this.options.disableAfterFailures) return `${failures} deliveries in a row failed.`;
    const since = endpoint.failing_since ? new Date(endpoint.failing_since) : null;
    if (since && failures >= 3 && now.getTime() - since.getTime() >= this.options.disableAfterFailingMs)
      return `Every delivery failed for ${Math.round((now.getTime() - since.getTime()) / 3_600_000)} hours (${failures} attempts).`;
    return null;
  }

  /** The sweep: every endpoint with due deliveries gets its delivery job (one per endpoint). */
  async sweep(): Promise<number> {
    const due = await this.repo.endpointsWithDueWork(this.deps.clock(), 1000);
    for (const d of due) await this.startDelivering(d.organization_id, d.endpoint_id, true);
    return due.length;
  }

  /**
   * Queues the endpoint's delivery job. The dispatch and the sweep share one job per endpoint; a
   * redelivery or a test by hand gets a job of its own, so that it starts now even while the
   * shared one waits for a retry (the claim still sends one delivery of an endpoint at a time).
   */
  private async startDelivering(organizationId: string, endpointId: string, shared: boolean): Promise<void> {
    await this.deps.jobs.enqueue(
      DELIVER_JOB,
      { endpointId },
      { organizationId, maxAttempts: 20, ...(shared ? { dedupKey: `endpoint:${endpointId}` } : {}) },
    );
  }

  // ---- checks -----------------------------------------------------------------------------------

  private checkName(text: string): string {
    const name = text.trim();
    if (name.length < 1 || name.length > MAX_NAME)
      throw invalid('name', `must have 1 to ${MAX_NAME} characters`);
    return name;
  }

  private channelOf(kind: string): NotificationChannel {
    const channel = this.channels.get(kind);
    if (!channel)
      throw invalid(
        'kind',
        `${kind} is not a kind of endpoint this server delivers to; it delivers to ${this.kinds.join(', ')}`,
      );
    return channel;
  }

  /** The URL as stored, after the channel's guard: 422 naming /Url and the rule when refused. */
  private async checkUrl(channel: NotificationChannel, text: string): Promise<string> {
    const url = text.trim();
    if (url.length < 1 || url.length > 2000) throw invalid('url', 'must have 1 to 2000 characters');
    const refusal = await channel.checkDestination?.(url);
    if (refusal)
      throw new AppError(
        Problems.NotificationDestinationRefused,
        `${refusal.message} (${refusal.rule})`,
        {},
        {},
        [{ field: ['url'], message: `${refusal.rule}: ${refusal.message}` }],
      );
    return url;
  }

  /** A rule's names, event types and endpoints checked: 400 naming each unknown one. */
  private async checkRule(
    ctx: ServiceContext,
    input: RuleChanges,
  ): Promise<{ name?: string; eventTypes?: string[]; endpointIds?: string[]; tag?: string | null }> {
    const out: { name?: string; eventTypes?: string[]; endpointIds?: string[]; tag?: string | null } = {};
    const issues: { field: readonly string[]; message: string }[] = [];
    if (input.name !== undefined) out.name = this.checkName(input.name);
    if (input.eventTypes !== undefined) {
      if (input.eventTypes.length === 0)
        issues.push({ field: ['eventTypes'], message: 'must name at least one event type' });
      input.eventTypes.forEach((type, index) => {
        if (isEventType(type)) return;
        const suggestion = suggestName(type, EVENT_TYPES);
        issues.push({
          field: ['eventTypes', String(index)],
          message: `${type} is not an event type${suggestion ? ` (did you mean ${suggestion}?)` : ''}; the catalogue is in docs/events.md`,
        });
      });
      out.eventTypes = [...new Set(input.eventTypes)];
    }
    if (input.endpointIds !== undefined) {
      if (input.endpointIds.length === 0)
        issues.push({ field: ['endpointIds'], message: 'must name at least one endpoint' });
      const known = await this.repo.existingEndpointIds(ctx.organizationId, [...new Set(input.endpointIds)]);
      input.endpointIds.forEach((id, index) => {
        if (!known.has(id))
          issues.push({
            field: ['endpointIds', String(index)],
            message: `no notification endpoint ${id} in your organisation`,
          });
      });
      out.endpointIds = [...new Set(input.endpointIds)];
    }
    if (
      input.minSeverity !== undefined &&
      input.minSeverity !== null &&
      !SEVERITIES.includes(input.minSeverity)
    )
      issues.push({ field: ['minSeverity'], message: `must be one of ${SEVERITIES.join(', ')}` });
    if (input.tag !== undefined) out.tag = input.tag === null ? null : input.tag.trim() || null;
    if (issues.length > 0) throw invalidFields(issues);
    return out;
  }
}
