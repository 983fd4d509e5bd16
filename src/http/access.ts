import { ROLES, type Role } from '../db/schema.js';

/** Who may call a route: anyone, or an authenticated caller whose role is at least `role`. */
export type Access = { public: true } | { role: Role };

/** The authenticated caller of a request. */
export interface Principal {
  kind: 'apiKey';
  organizationId: string;
  userId: string;
  role: Role;
  apiKeyId: string;
  accessKey: string;
}

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function roleAllows(role: Role, required: Role): boolean {
  return roleRank(role) >= roleRank(required);
}

export function describeAccess(access: Access): string {
  if ('public' in access) return 'Anonymous: no authentication required.';
  const higher = ROLES.slice(roleRank(access.role) + 1);
  const also = higher.length ? ` (or ${higher.join(', ')})` : '';
  return `Requires an API key of a user with role ${access.role}${also}.`;
}
