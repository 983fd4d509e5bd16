import { ROLES, type Role } from '../db/schema.js';

// Who calls and what a role allows are rules of the domain: services authenticate callers and
// check roles, and the HTTP layer (http/access.ts) reuses these without services importing it.

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
  /** The person signed in; userId is their membership of the current organisation. */
  personId: string;
  /** Creates, renames and deactivates organisations (docs/organisations.md). */
  installationAdmin: boolean;
  /** A session of an organisation's single sign-on is bound to it: it cannot switch. */
  signedInWith: 'password' | 'sso';
}

/** The authenticated caller of a request. */
export type Principal = ApiKeyPrincipal | SessionPrincipal;

/** Roles are ordered: each allows what the ones before it allow. */
export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function roleAllows(role: Role, required: Role): boolean {
  return roleRank(role) >= roleRank(required);
}
