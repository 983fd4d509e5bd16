import type { Static } from 'typebox';
import { isoOrNull } from '../../http/dto.js';
import type { CreateRuleSchema, UpdateEndpointSchema, UpdateRuleSchema } from './schemas.js';
import type {
  Delivery,
  DeliveryAttempt,
  DeliveryDetail,
  DeliveryWithAttempts,
  EndpointChanges,
  NewRule,
  NotificationEndpoint,
  NotificationRule,
  RuleChanges,
} from './types.js';

// How notification endpoints, rules and deliveries look on the wire. A webhook's signing secret
// is shown once, in the answer that creates the endpoint.

export const toEndpointDto = (e: NotificationEndpoint) => ({
  Id: e.id,
  Name: e.name,
  Kind: e.kind,
  Url: e.url,
  Enabled: e.enabled,
  DisabledReason: e.disabledReason,
  DisabledAt: isoOrNull(e.disabledAt),
  ConsecutiveFailures: e.consecutiveFailures,
  FailingSince: isoOrNull(e.failingSince),
  RatePerMinute: e.ratePerMinute,
  Signed: e.hasSecret,
  CreatedAt: e.createdAt.toISOString(),
  UpdatedAt: e.updatedAt.toISOString(),
});

export const toCreatedEndpointDto = (e: NotificationEndpoint, secret: string | null) => ({
  ...toEndpointDto(e),
  Secret: secret,
});

export const toRuleDto = (r: NotificationRule) => ({
  Id: r.id,
  Name: r.name,
  EventTypes: r.eventTypes,
  MinSeverity: r.minSeverity,
  KevOnly: r.kevOnly,
  RiskAbove: r.riskAbove,
  Tag: r.tag,
  ScanGroupId: r.scanGroupId,
  AssetId: r.assetId,
  ScanId: r.scanId,
  ManagedBy: r.managedBy ? { Kind: r.managedBy.kind, Id: r.managedBy.id, Name: r.managedBy.name } : null,
  EndpointIds: r.endpointIds,
  Enabled: r.enabled,
  CreatedAt: r.createdAt.toISOString(),
  UpdatedAt: r.updatedAt.toISOString(),
});

const toAttemptDto = (a: DeliveryAttempt) => ({
  Attempt: a.attempt,
  At: a.at.toISOString(),
  StatusCode: a.status,
  DurationMs: a.durationMs,
  Error: a.error,
});

const finished = (d: Delivery) => d.state === 'Succeeded' || d.state === 'Dead';

export const toDeliveryDto = (d: Delivery & { attemptLog?: DeliveryAttempt[] }) => ({
  Id: d.id,
  EndpointId: d.endpointId,
  RuleId: d.ruleId,
  EventId: d.eventId,
  EventType: d.eventType,
  State: d.state,
  Attempts: d.attempts,
  NextAttemptAt: finished(d) ? null : d.nextAttemptAt.toISOString(),
  LastStatusCode: d.lastStatus,
  LastDurationMs: d.lastDurationMs,
  LastError: d.lastError,
  CreatedAt: d.createdAt.toISOString(),
  DeliveredAt: isoOrNull(d.deliveredAt),
  AttemptLog: (d.attemptLog ?? []).map(toAttemptDto),
});

export const toDeliveryListItemDto = (d: DeliveryWithAttempts) => toDeliveryDto(d);

export const toDeliveryDetailDto = (d: DeliveryDetail) => ({ ...toDeliveryDto(d), Event: d.event });

const filtersFromBody = (b: Static<typeof UpdateRuleSchema>) => ({
  ...(b.MinSeverity !== undefined ? { minSeverity: b.MinSeverity } : {}),
  ...(b.KevOnly !== undefined ? { kevOnly: b.KevOnly } : {}),
  ...(b.RiskAbove !== undefined ? { riskAbove: b.RiskAbove } : {}),
  ...(b.Tag !== undefined ? { tag: b.Tag } : {}),
  ...(b.ScanGroupId !== undefined ? { scanGroupId: b.ScanGroupId } : {}),
  ...(b.AssetId !== undefined ? { assetId: b.AssetId } : {}),
  ...(b.Enabled !== undefined ? { enabled: b.Enabled } : {}),
});

export const newRuleFromBody = (b: Static<typeof CreateRuleSchema>): NewRule => ({
  name: b.Name,
  eventTypes: b.EventTypes,
  endpointIds: b.EndpointIds,
  ...filtersFromBody(b),
});

export const ruleChangesFromBody = (b: Static<typeof UpdateRuleSchema>): RuleChanges => ({
  ...(b.Name !== undefined ? { name: b.Name } : {}),
  ...(b.EventTypes !== undefined ? { eventTypes: b.EventTypes } : {}),
  ...(b.EndpointIds !== undefined ? { endpointIds: b.EndpointIds } : {}),
  ...filtersFromBody(b),
});

export const endpointChangesFromBody = (b: Static<typeof UpdateEndpointSchema>): EndpointChanges => ({
  ...(b.Name !== undefined ? { name: b.Name } : {}),
  ...(b.Url !== undefined ? { url: b.Url } : {}),
  ...(b.RatePerMinute !== undefined ? { ratePerMinute: b.RatePerMinute } : {}),
  ...(b.Enabled !== undefined ? { enabled: b.Enabled } : {}),
});
