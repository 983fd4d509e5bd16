import { ROLES, type Role } from '../db/schema.js';

export type AuthMethod = 'apiKey' | 'session';

/**
 * Who may call a route: anyone, or an authenticated caller whose role is at least `role`,
 * signed in by one of `via` (default: an API key or a web session).
 */
export type Access = { public: true } | { role: Role; via?: readonly AuthMethod[] };

interface PrincipalBase {
  organizationId: string;
  userId: string;
  role: Role;
}

/** A caller authenticated by an API key. */
export interface ApiKeyPrincipal extends PrincipalBase {
  kind: 'apiKey';
  apiKeyId: string;
  accessKey: string;
}

/** A person signed in to the web application. */
export interface SessionPrincipal extends PrincipalBase {
  kind: 'session';
  sessionId: string;
  csrfTokenHash: Buffer;
}

/** The authenticated caller of a request. */
export type Principal = ApiKeyPrincipal | SessionPrincipal;

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function roleAllows(role: Role, required: Role): boolean {
  return roleRank(role) >= roleRank(required);
}

export const DEFAULT_AUTH_METHODS: readonly AuthMethod[] = ['apiKey', 'session'];

export function describeAccess(access: Access): string {
  if ('public' in access) return 'Anonymous: no authentication required.';
  const higher = ROLES.slice(roleRank(access.role) + 1);
  const also = higher.length ? ` (or ${higher.join(', ')})` : '';
  const via = access.via ?? DEFAULT_AUTH_METHODS;
  const how = [via.includes('apiKey') ? 'an API key' : '', via.includes('session') ? 'a web session' : '']
    .filter(Boolean)
    .join(' or ');
  return `Requires ${how} of a user with role ${access.role}${also}.`;
}
