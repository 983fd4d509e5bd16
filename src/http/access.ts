import { ROLES, type Role } from '../db/schema.js';
import { roleRank } from '../modules/principal.js';

// The principal types and role rules live with the domain; HTTP code keeps importing them from here.
export type { ApiKeyPrincipal, Principal, SessionPrincipal } from '../modules/principal.js';
export { roleAllows, roleRank } from '../modules/principal.js';

export type AuthMethod = 'apiKey' | 'session';

/**
 * Who may call a route: anyone, an authenticated caller whose role is at least `role`, signed in
 * by one of `via` (default: an API key or a web session), or a scan node by its node key.
 */
export type Access =
  | { public: true }
  | {
      role: Role;
      via?: readonly AuthMethod[];
      /** Only an installation Admin, in a web session (docs/organisations.md). */
      installation?: true;
    }
  | { scanNode: true };

export const DEFAULT_AUTH_METHODS: readonly AuthMethod[] = ['apiKey', 'session'];

export function describeAccess(access: Access): string {
  if ('public' in access) return 'Anonymous: no authentication required.';
  if ('scanNode' in access)
    return 'Requires a scan node key (`Authorization: Bearer <node key>`, from POST /scannodes/enrol); user credentials are not accepted.';
  const higher = ROLES.slice(roleRank(access.role) + 1);
  const also = higher.length ? ` (or ${higher.join(', ')})` : '';
  if (access.installation)
    return `Requires a web session of a user with role ${access.role} or higher who is also an installation Admin (distinct from an organisation’s Admins).`;
  const via = access.via ?? DEFAULT_AUTH_METHODS;
  const how = [via.includes('apiKey') ? 'an API key' : '', via.includes('session') ? 'a web session' : '']
    .filter(Boolean)
    .join(' or ');
  return `Requires ${how} of a user with role ${access.role}${also}.`;
}
