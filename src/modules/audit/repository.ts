import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { uuidv7 } from '../../lib/uuidv7.js';

export interface AuditInsert {
  organizationId: string;
  actorType: 'user' | 'apikey' | 'system' | 'cli';
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  ipAddress: string | null;
  requestId: string | null;
  occurredAt: Date;
}

export class AuditRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(e: AuditInsert): Promise<void> {
    await this.db
      .insertInto('audit_events')
      .values({
        organization_id: e.organizationId,
        id: uuidv7(),
        occurred_at: e.occurredAt,
        actor_type: e.actorType,
        actor_id: e.actorId,
        action: e.action,
        target_type: e.targetType,
        target_id: e.targetId,
        details: JSON.stringify(e.details),
        ip_address: e.ipAddress,
        request_id: e.requestId,
      })
      .execute();
  }

  listRecent(organizationId: string, limit: number) {
    return this.db
      .selectFrom('audit_events')
      .select([
        'id',
        'occurred_at',
        'actor_type',
        'actor_id',
        'action',
        'target_type',
        'target_id',
        'details',
      ])
      .where('organization_id', '=', organizationId)
      .orderBy('occurred_at', 'desc')
      .limit(limit)
      .execute();
  }
}
