import { expressionBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * What authentication needs of a user, as a relation to join under an alias of the caller's
 * choice: a session or an API key and its user are read in one indexed lookup on every request.
 * PostgreSQL pulls the subquery up into the join, so the plan is that of a plain join.
 */
export function joinableUsers<A extends string>(alias: A) {
  // A member of a deactivated organisation is not active there: its sessions and keys stop.
  return expressionBuilder<DB>()
    .selectFrom('users')
    .innerJoin('organizations', 'organizations.id', 'users.organization_id')
    .where('organizations.deactivated_at', 'is', null)
    .select(['users.organization_id', 'users.id', 'users.person_id', 'users.role', 'users.active'])
    .as(alias);
}
