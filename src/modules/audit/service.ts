import type { Clock } from '../../lib/clock.js';
import type { ServiceContext } from '../context.js';
import type { AuditRepository } from './repository.js';

/** Records who did what, for every change to users, keys and organisations. */
export class AuditService {
  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
  ) {}

  async record(
    ctx: ServiceContext,
    action: string,
    target: { type: string; id: string } | null,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await this.repo.insert({
      organizationId: ctx.organizationId,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
      action,
      targetType: target?.type ?? null,
      targetId: target?.id ?? null,
      details,
      ipAddress: ctx.ipAddress ?? null,
      requestId: ctx.requestId ?? null,
      occurredAt: this.clock(),
    });
  }

  listRecent(organizationId: string, limit = 100) {
    return this.repo.listRecent(organizationId, limit);
  }
}
