import { expressionBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * The web scan columns other modules may read, as a relation to join under an alias of their
 * choice: the scan group of the scan whose scope a finding is in (the findings' events name it).
 */
export function joinableWebScans<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('web_scans')
    .select(['organization_id', 'id', 'scan_group_id'])
    .as(alias);
}
