import type { DeliveryState, NotificationChannelKind, Severity } from '../../db/schema.js';

export type { DeliveryState, NotificationChannelKind } from '../../db/schema.js';

/**
 * An event as a channel sends it: the CloudEvents 1.0 structured JSON of the events module
 * (EventsService.envelope), or the test event of POST /notifications/endpoints/{Id}/test.
 */
export interface NotificationEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject?: string | null;
  time: string;
  datacontenttype?: string;
  dataschema?: string;
  data: unknown;
}

/** Where one delivery goes: the endpoint as a channel needs it. */
export interface ChannelTarget {
  organizationId: string;
  endpointId: string;
  endpointName: string;
  kind: NotificationChannelKind;
  /** An http(s) URL for Webhook, Slack and Teams; for Email, what the email channel keeps there. */
  url: string;
  /** The webhook signing secret; null for the other kinds. */
  secret: string | null;
  deliveryId: string;
  /** This attempt's number, from 1. */
  attempt: number;
}

/** How an attempt went: ok ends the delivery; otherwise it is retried (or given up). */
export interface DeliveryOutcome {
  ok: boolean;
  /** The receiver's HTTP status (or an SMTP reply code), when it answered. */
  status?: number;
  durationMs: number;
  /** Why it failed, for the delivery log (never a secret). */
  error?: string;
  /** The receiver asked to wait (Retry-After of a 429 or 503), in ms; bounded by the service. */
  retryAfterMs?: number;
  /** Retrying cannot help (a destination the guard refuses): the delivery is given up at once. */
  permanent?: boolean;
}

/**
 * A way to deliver events. The service holds one per kind: Webhook, Slack and Teams are built in,
 * others (Email) are given to its constructor. `deliver` gets one event per call for the built-in
 * kinds; it must honour `signal` (the delivery timeout) and never throw for a receiver's failure.
 */
export interface NotificationChannel {
  kind: NotificationChannelKind;
  deliver(target: ChannelTarget, events: NotificationEvent[], signal: AbortSignal): Promise<DeliveryOutcome>;
  /**
   * Why `url` cannot be this channel's destination (checked when an endpoint is saved), as a
   * rule and a sentence; null when it can.
   */
  checkDestination?(url: string): Promise<{ rule: string; message: string } | null>;
  /** Whether endpoints of this kind get a signing secret (webhooks do). */
  signs?: boolean;
}

export interface NotificationEndpoint {
  organizationId: string;
  id: string;
  name: string;
  kind: NotificationChannelKind;
  url: string;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  consecutiveFailures: number;
  failingSince: Date | null;
  ratePerMinute: number;
  hasSecret: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewEndpoint {
  name: string;
  kind: NotificationChannelKind;
  url: string;
  ratePerMinute?: number;
  enabled?: boolean;
}

export type EndpointChanges = Partial<Pick<NewEndpoint, 'name' | 'url' | 'ratePerMinute' | 'enabled'>>;

/** What a rule asks of an event besides its type; every filter set must hold. */
export interface RuleFilters {
  minSeverity: Severity | null;
  kevOnly: boolean;
  riskAbove: number | null;
  tag: string | null;
  scanGroupId: string | null;
  assetId: string | null;
  /** Only this scan's events: set on the rules scans own (their MessageNotification). */
  scanId: string | null;
}

/** The scan or scan group that owns a rule; only it changes or removes the rule. */
export interface RuleOwner {
  kind: 'DiscoveryScan' | 'ScanGroup';
  id: string;
  name: string;
}

export interface NotificationRule extends RuleFilters {
  organizationId: string;
  id: string;
  name: string;
  managedBy: RuleOwner | null;
  eventTypes: string[];
  endpointIds: string[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewRule extends Partial<RuleFilters> {
  name: string;
  /** Set only by the owner's own sync (src/modules/emailnotifications/scan-rules.ts). */
  managedBy?: RuleOwner;
  eventTypes: string[];
  endpointIds: string[];
  enabled?: boolean;
}

export type RuleChanges = Partial<NewRule>;

export interface Delivery {
  organizationId: string;
  id: string;
  endpointId: string;
  ruleId: string | null;
  eventId: string;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
}

export interface DeliveryAttempt {
  id: string;
  attempt: number;
  at: Date;
  status: number | null;
  durationMs: number;
  error: string | null;
}

export interface DeliveryWithAttempts extends Delivery {
  attemptLog: DeliveryAttempt[];
}

/** A delivery with the event it sends. */
export interface DeliveryDetail extends DeliveryWithAttempts {
  event: NotificationEvent;
}
