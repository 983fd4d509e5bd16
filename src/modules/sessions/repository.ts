import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { joinableUsers } from '../users/queries.js';

export interface NewSessionRow {
  organizationId: string;
  id: string;
  userId: string;
  tokenHash: Buffer;
  csrfTokenHash: Buffer;
  now: Date;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  signedInWith: 'password' | 'sso';
}

export class SessionRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(s: NewSessionRow): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        organization_id: s.organizationId,
        id: s.id,
        user_id: s.userId,
        token_hash: s.tokenHash,
        csrf_token_hash: s.csrfTokenHash,
        created_at: s.now,
        last_seen_at: s.now,
        idle_expires_at: s.idleExpiresAt,
        absolute_expires_at: s.absoluteExpiresAt,
        ip_address: s.ipAddress,
        user_agent: s.userAgent,
        signed_in_with: s.signedInWith,
      })
      .execute();
  }

  /** A live session by its token's hash, with what authorisation needs about its user. */
  findActiveByTokenHash(tokenHash: Buffer, now: Date) {
    return this.db
      .selectFrom('sessions')
      .innerJoin(joinableUsers('u'), (j) =>
        j.onRef('u.organization_id', '=', 'sessions.organization_id').onRef('u.id', '=', 'sessions.user_id'),
      )
      .select([
        'sessions.organization_id',
        'sessions.id',
        'sessions.user_id',
        'sessions.csrf_token_hash',
        'sessions.last_seen_at',
        'sessions.absolute_expires_at',
        'sessions.signed_in_with',
        'u.role',
        'u.person_id',
        'u.installation_admin',
      ])
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.revoked_at', 'is', null)
      .where('sessions.idle_expires_at', '>', now)
      .where('sessions.absolute_expires_at', '>', now)
      .where('u.active', '=', true)
      .executeTakeFirst();
  }

  async touch(organizationId: string, id: string, now: Date, idleExpiresAt: Date): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_seen_at: now, idle_expires_at: idleExpiresAt })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  }

  async revoke(organizationId: string, id: string, now: Date): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async revokeAllForUser(organizationId: string, userId: string, now: Date, keepId?: string): Promise<void> {
    let query = this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (keepId) query = query.where('id', '!=', keepId);
    await query.execute();
  }

  /**
   * Ends the session of a token, whoever it belongs to (sign-in rotates the old one out); answers
   * the session it ended, if one was still going.
   */
  async revokeByTokenHash(
    tokenHash: Buffer,
    now: Date,
  ): Promise<{ organizationId: string; id: string; userId: string } | undefined> {
    const row = await this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .returning(['organization_id', 'id', 'user_id'])
      .executeTakeFirst();
    return row && { organizationId: row.organization_id, id: row.id, userId: row.user_id };
  }
}
