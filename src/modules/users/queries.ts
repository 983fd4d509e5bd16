import { expressionBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';
import { activeOrganizations } from '../organizations/queries.js';

/**
 * What authentication needs of a user, as a relation to join under an alias of the caller's
 * choice: a session or an API key and its user are read in one indexed lookup on every request.
 * PostgreSQL pulls the subquery up into the join, so the plan is that of a plain join.
 */
export function joinableUsers<A extends string>(alias: A) {
  // A member of a deactivated organisation is not active there: its sessions and keys stop. The
  // person says whether they run the installation.
  return expressionBuilder<DB>()
    .selectFrom('users')
    .innerJoin(activeOrganizations('o'), 'o.id', 'users.organization_id')
    .innerJoin('people', 'people.id', 'users.person_id')
    .select([
      'users.organization_id',
      'users.id',
      'users.person_id',
      'users.role',
      'users.active',
      'people.installation_admin',
    ])
    .as(alias);
}
