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
