import { expressionBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * What authentication needs of a user, as a relation to join under an alias of the caller's
 * choice: a session or an API key and its user are read in one indexed lookup on every request.
 * PostgreSQL pulls the subquery up into the join, so the plan is that of a plain join.
 */
export function joinableUsers<A extends string>(alias: A) {
  return expressionBuilder<DB>()
    .selectFrom('users')
    .select(['organization_id', 'id', 'role', 'active'])
    .as(alias);
}
