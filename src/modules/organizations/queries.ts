import { expressionBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The ids of the active organisations, as a relation to join under an alias of the caller's choice. */
export function activeOrganizations<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('organizations')
    .select('id')
    .where('deactivated_at', 'is', null)
    .as(alias);
}

/** The ids of the deactivated organisations, for `not in` (their schedules wait). */
export function deactivatedOrganizationIds() {
  return expressionBuilder<DB>()
    .selectFrom('organizations')
    .select('id')
    .where('deactivated_at', 'is not', null);
}
