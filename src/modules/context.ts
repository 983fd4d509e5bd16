/** Who is acting, in which organisation: the first argument of every service call. */
export interface ServiceContext {
  organizationId: string;
  actor: { type: 'user' | 'apikey' | 'system' | 'cli'; id: string | null };
  /** The caller's role, for rules that depend on it beyond the route's own requirement. */
  role?: import('../db/schema.js').Role;
  requestId?: string;
  ipAddress?: string;
}
