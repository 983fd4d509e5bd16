import { expressionBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * The web scans that belong to a scan group, as (organization_id, group_id, scope_name): the scope
 * their findings are reported in (`web-scan:<id>`, as scanresults' webScanScope names it).
 * Findings filter and the history count a group's findings by joining it.
 */
export function webScanGroupScopes<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('web_scans')
    .select([
      'organization_id',
      'scan_group_id as group_id',
      sql<string>`'web-scan:' || id::text`.as('scope_name'),
    ])
    .where('scan_group_id', 'is not', null)
    .as(alias);
}
