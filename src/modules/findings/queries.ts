import { expressionBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The columns that say where on its asset a finding is. */
export const LOCATION_COLUMNS = [
  'location_kind',
  'port',
  'protocol',
  'url',
  'parameter',
  'file_path',
  'line',
  'package_name',
  'package_version',
] as const;

/**
 * The finding columns other modules may read, as a relation to join under an alias of their
 * choice, for queries that count or list findings with their own rows in one statement (software
 * counts a package's open findings, tickets list and follow their findings, the asset list shows
 * each asset's open findings and top risk). PostgreSQL pulls the
 * subquery up into the join, so the plan is that of a plain join.
 */
export function joinableFindings<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('findings')
    .select([
      'organization_id',
      'id',
      'asset_id',
      'title',
      'state',
      'effective_severity',
      'risk_score',
      ...LOCATION_COLUMNS,
    ])
    .as(alias);
}

/** A new entry of a history (finding_events, ticket_events), but for the column naming its subject. */
export interface HistoryEntryWrite {
  id: string;
  at: Date;
  actorType: string;
  actorId: string | null;
  kind: string;
  fromState?: string | null;
  toState?: string | null;
  details?: Record<string, unknown>;
}

/** The row of a history entry, but for the column naming its subject. */
export const historyEntryValues = (organizationId: string, e: HistoryEntryWrite) => ({
  organization_id: organizationId,
  id: e.id,
  occurred_at: e.at,
  actor_type: e.actorType,
  actor_id: e.actorId,
  kind: e.kind,
  from_state: e.fromState ?? null,
  to_state: e.toState ?? null,
  details: JSON.stringify(e.details ?? {}),
});

/** A history entry's columns as HistoryEvent names them. */
export const HISTORY_COLUMNS = [
  'id',
  'occurred_at as occurredAt',
  'actor_type as actorType',
  'actor_id as actorId',
  'kind',
  'from_state as fromState',
  'to_state as toState',
  'details',
] as const;

/**
 * What the history (src/modules/history) reads of each finding to count it by day: its state and
 * figures now, and when it was first seen. Only its queries join it.
 */
export function historyFindings<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('findings')
    .select([
      'organization_id',
      'id',
      'asset_id',
      'vulnerability_id',
      'effective_severity',
      'state',
      'confidence',
      'risk_score',
      'due_at',
      'first_seen_at',
      'scope_name',
    ])
    .as(alias);
}

/**
 * The findings' changes of state (created, state_changed), with the state before and after: the
 * history replays them to know each finding's state at the end of any day.
 */
export function findingStateChanges<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('finding_events')
    .select(['organization_id', 'id', 'finding_id', 'occurred_at', 'kind', 'from_state', 'to_state'])
    .where('kind', 'in', ['created', 'state_changed'])
    .as(alias);
}
