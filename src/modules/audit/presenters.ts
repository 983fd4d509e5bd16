import type { Static } from 'typebox';
import type { CsvColumn } from '../../http/csv.js';
import type { AuditLogEntry } from './log.js';
import type { AuditFilter } from './repository.js';
import type { AuditLogQuery } from './schemas.js';

export const toAuditEntryDto = (e: AuditLogEntry) => ({
  Id: e.id,
  Time: e.occurredAt.toISOString(),
  ActorType: e.actorType,
  ActorId: e.actorId,
  ActorName: e.actorName,
  Action: e.action,
  TargetType: e.targetType,
  TargetId: e.targetId,
  Details: e.details,
  IpAddress: e.ipAddress,
  RequestId: e.requestId,
});

export const AUDIT_CSV: readonly CsvColumn<AuditLogEntry>[] = [
  { header: 'Time', value: (e) => e.occurredAt.toISOString() },
  { header: 'ActorType', value: (e) => e.actorType },
  { header: 'ActorId', value: (e) => e.actorId },
  { header: 'ActorName', value: (e) => e.actorName },
  { header: 'Action', value: (e) => e.action },
  { header: 'TargetType', value: (e) => e.targetType },
  { header: 'TargetId', value: (e) => e.targetId },
  { header: 'Details', value: (e) => JSON.stringify(e.details) },
  { header: 'IpAddress', value: (e) => e.ipAddress },
  { header: 'RequestId', value: (e) => e.requestId },
  { header: 'Id', value: (e) => e.id },
];

/** The log's filter from the query string. */
export function auditFilterFrom(q: Static<typeof AuditLogQuery>): AuditFilter {
  const prefix = q.Action !== undefined && /[.*]$/.test(q.Action);
  return {
    ...(q.Actor === 'system' || q.Actor === 'cli'
      ? { actorIs: q.Actor }
      : q.Actor
        ? { actorId: q.Actor }
        : {}),
    ...(q.ActorType ? { actorType: q.ActorType } : {}),
    ...(q.Action !== undefined
      ? { action: prefix ? q.Action.replace(/\*$/, '') : q.Action, actionPrefix: prefix }
      : {}),
    ...(q.TargetType ? { targetType: q.TargetType } : {}),
    ...(q.TargetId ? { targetId: q.TargetId } : {}),
    ...(q.From ? { from: new Date(q.From) } : {}),
    ...(q.To ? { to: new Date(q.To) } : {}),
  };
}
