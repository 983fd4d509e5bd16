/** Who is acting, in which organisation: the first argument of every service call. */
export interface ServiceContext {
  organizationId: string;
  actor: { type: 'user' | 'apikey' | 'system' | 'cli'; id: string | null };
  /** The user acting (the API key's owner or the signed-in user), when a person acts. */
  userId?: string;
  /** The caller's role, for rules that depend on it beyond the route's own requirement. */
  role?: import('../db/schema.js').Role;
  requestId?: string;
  ipAddress?: string;
}
