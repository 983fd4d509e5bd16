import { uuidv7 } from '../lib/uuidv7.js';

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

/** A new entry of a history (a finding's, a ticket's): its id, its time and who acted. */
export const newHistoryEntry = (actor: ServiceContext['actor'], at: Date) => ({
  id: uuidv7(),
  at,
  actorType: actor.type,
  actorId: actor.id,
});

/** The author of what the system does on its own (a rule, a schedule). */
export const SYSTEM: ServiceContext['actor'] = { type: 'system', id: null };
