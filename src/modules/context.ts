/** Who is acting, in which organisation: the first argument of every service call. */
export interface ServiceContext {
  organizationId: string;
  actor: { type: 'user' | 'apikey' | 'system' | 'cli'; id: string | null };
  requestId?: string;
  ipAddress?: string;
}
