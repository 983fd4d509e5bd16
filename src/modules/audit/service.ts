import type { Clock } from '../../lib/clock.js';
import type { ServiceContext } from '../context.js';
import { EXPORT_DOWNLOADED, REPORT_DOWNLOADED } from './actions.js';
import type { AuditRepository } from './repository.js';

/**
 * Records who did what, for every change to users, keys and organisations. Entries are only ever
 * added: the table refuses updates, and deletes except the retention purge (purgeBefore).
 */
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

  /** A list was downloaded as CSV: which one, and the filter it was narrowed to. */
  exportDownloaded(ctx: ServiceContext, list: string, filter: object): Promise<void> {
    return this.record(ctx, EXPORT_DOWNLOADED, null, { list, filter: recordedFilter(filter) });
  }

  /** A report's file was downloaded (the reports module calls this when it serves one). */
  reportDownloaded(
    ctx: ServiceContext,
    reportId: string,
    details: { format: string; [key: string]: unknown },
  ): Promise<void> {
    return this.record(ctx, REPORT_DOWNLOADED, { type: 'report', id: reportId }, details);
  }

  listRecent(organizationId: string, limit = 100) {
    return this.repo.listRecent(organizationId, limit);
  }

  /** Removes the organisation's entries older than `before` (the retention job); how many went. */
  purgeBefore(organizationId: string, before: Date): Promise<number> {
    return this.repo.purgeBefore(organizationId, before);
  }
}

/** At most this many values of a list are kept in an entry's filter; the rest are counted. */
const LIST_KEPT = 100;

/**
 * A filter as recorded: the fields that were given, a long list (ids picked one by one) cut to
 * its first values and its length, so that an entry stays small whatever the request held.
 */
export function recordedFilter(filter: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filter)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) =>
        Array.isArray(v) && v.length > LIST_KEPT
          ? [k, { first: v.slice(0, LIST_KEPT), count: v.length }]
          : [k, v],
      ),
  );
}
