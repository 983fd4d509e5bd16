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
