import { keysetPage } from '../../lib/cursor.js';
import { invalid } from '../../problems/app-error.js';
import type { ServiceContext } from '../context.js';
import { cursorKey } from '../paging.js';
import type { AuditEntry, AuditFilter, AuditRepository } from './repository.js';
import type { AuditService } from './service.js';

/** An entry with the name of who acted (a user's name and email, an API key's name). */
export interface AuditLogEntry extends AuditEntry {
  actorName: string | null;
}

/** Who the log's actors are, through the services that own users and keys. */
export interface AuditActors {
  users: {
    namesOf(
      organizationId: string,
      ids: readonly string[],
    ): Promise<Map<string, { name: string; email: string }>>;
  };
  apiKeys: { namesOf(organizationId: string, ids: readonly string[]): Promise<Map<string, string>> };
}

const NAMES_BATCH = 500;

/**
 * Reading the audit log: filtered, newest first, in keyset pages or as one stream, each entry
 * naming its actor. Apart from AuditService because it reads users and keys, whose services
 * record into the log themselves.
 */
export class AuditLogService {
  constructor(
    private readonly repo: AuditRepository,
    private readonly audit: AuditService,
    private readonly actors: AuditActors,
  ) {}

  async list(ctx: ServiceContext, filter: AuditFilter, pageSize: number, cursor?: string) {
    checkFilter(filter);
    const key = cursor ? cursorKey(cursor, ['Time', 'Id']) : undefined;
    if (key && Number.isNaN(Date.parse(key.Time)))
      throw invalid('cursor', 'pass the NextCursor of a previous page');
    const after = key && { occurredAt: key.Time, id: key.Id };
    const [rows, totalCount] = await Promise.all([
      this.repo.listPage(ctx.organizationId, filter, pageSize + 1, after),
      this.repo.count(ctx.organizationId, filter),
    ]);
    const page = keysetPage(rows, pageSize, (e) => ({ Time: e.occurredAt.toISOString(), Id: e.id }));
    return { ...page, items: await this.named(ctx.organizationId, page.items), totalCount };
  }

  /**
   * Every entry that matches, newest first, named in batches as they stream (CSV export). The
   * download is itself recorded, before the first row is read.
   */
  async stream(ctx: ServiceContext, filter: AuditFilter): Promise<AsyncIterable<AuditLogEntry>> {
    checkFilter(filter);
    await this.audit.exportDownloaded(ctx, 'auditlog', filter);
    return this.namedStream(ctx.organizationId, this.repo.stream(ctx.organizationId, filter));
  }

  private async *namedStream(organizationId: string, rows: AsyncIterable<AuditEntry>) {
    let batch: AuditEntry[] = [];
    for await (const row of rows) {
      batch.push(row);
      if (batch.length >= NAMES_BATCH) {
        yield* await this.named(organizationId, batch);
        batch = [];
      }
    }
    if (batch.length > 0) yield* await this.named(organizationId, batch);
  }

  private async named(organizationId: string, entries: AuditEntry[]): Promise<AuditLogEntry[]> {
    const ids = (type: AuditEntry['actorType']) => [
      ...new Set(entries.filter((e) => e.actorType === type && e.actorId).map((e) => e.actorId as string)),
    ];
    const [users, keys] = await Promise.all([
      this.actors.users.namesOf(organizationId, ids('user')),
      this.actors.apiKeys.namesOf(organizationId, ids('apikey')),
    ]);
    return entries.map((e) => ({ ...e, actorName: actorName(e, users, keys) }));
  }
}

function actorName(
  e: AuditEntry,
  users: Map<string, { name: string; email: string }>,
  keys: Map<string, string>,
): string | null {
  if (e.actorType === 'system') return 'System';
  if (e.actorType === 'cli') return 'Command line';
  if (!e.actorId) return null;
  if (e.actorType === 'apikey') return keys.get(e.actorId) ?? null;
  const user = users.get(e.actorId);
  return user ? `${user.name} <${user.email}>` : null;
}

function checkFilter(f: AuditFilter): void {
  if (f.from && f.to && f.from.getTime() > f.to.getTime()) throw invalid('from', 'must not be after To');
}
