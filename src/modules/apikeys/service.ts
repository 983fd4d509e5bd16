import { timingSafeEqual } from 'node:crypto';
import type { Role } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { InvalidationBus } from '../../lib/invalidation-bus.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalidFields } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import type { ServiceContext } from '../context.js';
import type { EventsService } from '../events/service.js';
import type { ApiKeyPrincipal, Principal } from '../principal.js';
import type { UserAccessChanged } from '../users/service.js';
import type { ApiKeyRepository } from './repository.js';
import {
  ACCESS_KEY_PATTERN,
  hashSecret,
  newAccessKey,
  newSalt,
  newSecretKey,
  SECRET_KEY_LENGTH,
  SECRET_KEY_PATTERN,
  secretMatches,
} from './secrets.js';

export type ApiKeyStatus = 'Active' | 'Expired' | 'Revoked';

export interface ApiKey {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  accessKey: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  status: ApiKeyStatus;
}

export interface NewApiKey {
  userId: string;
  name: string;
  expiresInDays?: number;
}

type AuthRow = NonNullable<Awaited<ReturnType<ApiKeyRepository['findForAuthentication']>>>;
interface CacheEntry {
  row: AuthRow;
  until: number;
  verified?: Buffer;
  /** The principal of the row, made once: every request with this entry is answered with it. */
  principal?: ApiKeyPrincipal;
}

/** Last use of a key, to be written by flushLastUsed. */
interface LastUse {
  organizationId: string;
  id: string;
  at: Date;
}

// A secret that matched SECRET_KEY_PATTERN is SECRET_KEY_LENGTH ASCII characters: it is written
// here to be compared, rather than into a new buffer on every request.
const given = Buffer.alloc(SECRET_KEY_LENGTH);
type ListRow = NonNullable<Awaited<ReturnType<ApiKeyRepository['findById']>>>;

export const MAX_EXPIRY_DAYS = 3650;
const CACHE_MAX_ENTRIES = 10_000;

export class ApiKeyService {
  // A verified secret is kept with its entry so that repeat requests compare bytes instead of
  // computing an HMAC; entries live at most cacheSeconds and go on revoke.
  private readonly cache = new Map<string, CacheEntry>();
  /** Keys being reloaded while their entry, just past its time, still answers. */
  private readonly reloading = new Set<string>();
  /** Counts invalidations: a load that read the key before one must not cache what it read. */
  private generation = 0;
  private readonly lastUsed = new Map<string, LastUse>();

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly audit: AuditService,
    private readonly bus: InvalidationBus,
    private readonly clock: Clock,
    private readonly cacheSeconds: number,
    userAccessChanged: UserAccessChanged,
    private readonly events: EventsService,
  ) {
    bus.subscribe((message) => this.onInvalidate(message));
    // Cached keys carry the role and the active flag: drop them on every instance.
    userAccessChanged.subscribe((_organizationId, userId) => this.invalidateUser(userId));
  }

  private status(row: { revoked_at: Date | null; expires_at: Date | null }): ApiKeyStatus {
    if (row.revoked_at) return 'Revoked';
    if (row.expires_at && row.expires_at.getTime() <= this.clock().getTime()) return 'Expired';
    return 'Active';
  }

  private toApiKey(row: ListRow): ApiKey {
    return {
      id: row.id,
      organizationId: row.organization_id,
      userId: row.user_id,
      name: row.name,
      accessKey: row.access_key,
      createdAt: row.created_at,
      lastUsedAt: this.lastUsed.get(row.id)?.at ?? row.last_used_at,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      status: this.status(row),
    };
  }

  async create(ctx: ServiceContext, input: NewApiKey): Promise<{ key: ApiKey; secretKey: string }> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 100) {
      throw invalidFields(
        [{ field: 'name', message: 'must have 1 to 100 characters' }],
        'An API key name must have 1 to 100 characters.',
      );
    }
    const days = input.expiresInDays;
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS)) {
      throw invalidFields(
        [{ field: 'expiresInDays', message: `must be 1 to ${MAX_EXPIRY_DAYS}` }],
        `Expiry must be a whole number of days from 1 to ${MAX_EXPIRY_DAYS}.`,
      );
    }
    const secretKey = newSecretKey();
    const salt = newSalt();
    const now = this.clock();
    // The key and its event commit together (never its secret: the event names the access key).
    const row = await this.repo.transaction(async (trx) => {
      const inserted = await this.repo.insert(
        {
          organizationId: ctx.organizationId,
          id: uuidv7(),
          userId: input.userId,
          name,
          accessKey: newAccessKey(),
          secretSalt: salt,
          secretHash: hashSecret(salt, secretKey),
          createdAt: now,
          expiresAt: days ? new Date(now.getTime() + days * 86_400_000) : null,
        },
        trx,
      );
      await this.publishKeyEvent(trx, ctx, 'apikey.created', inserted);
      return inserted;
    });
    const key = this.toApiKey(row);
    await this.audit.record(
      ctx,
      'apikey.created',
      { type: 'apikey', id: key.id },
      { name, accessKey: key.accessKey },
    );
    return { key, secretKey };
  }

  async listForUser(ctx: ServiceContext, userId: string): Promise<ApiKey[]> {
    return (await this.repo.listForUser(ctx.organizationId, userId)).map((r) => this.toApiKey(r));
  }

  /** Revokes a key of the organisation; with `ownerId`, only if it belongs to that user. */
  async revoke(ctx: ServiceContext, id: string, ownerId?: string): Promise<ApiKey> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row || (ownerId && row.user_id !== ownerId))
      throw AppError.of(Problems.NotFound, `No API key ${id}.`);
    return this.revokeRow(ctx, row);
  }

  /** For the CLI, which knows the access key but not yet the organisation. */
  async revokeByAccessKey(actor: ServiceContext['actor'], accessKey: string): Promise<ApiKey> {
    const row = await this.repo.findByAccessKey(accessKey);
    if (!row) throw AppError.of(Problems.NotFound, `No API key with access key ${accessKey}.`);
    return this.revokeRow({ organizationId: row.organization_id, actor }, row);
  }

  private async revokeRow(ctx: ServiceContext, row: ListRow): Promise<ApiKey> {
    const revoked =
      (await this.repo.transaction(async (trx) => {
        const changed = await this.repo.revoke(ctx.organizationId, row.id, this.clock(), trx);
        // Only the revocation that happened is an event: revoking a revoked key again is not.
        if (changed) await this.publishKeyEvent(trx, ctx, 'apikey.revoked', changed);
        return changed;
      })) ?? row;
    await this.bus.publish(`apikey:${row.access_key}`);
    if (!row.revoked_at) {
      await this.audit.record(
        ctx,
        'apikey.revoked',
        { type: 'apikey', id: row.id },
        { accessKey: row.access_key },
      );
    }
    return this.toApiKey(revoked);
  }

  private async publishKeyEvent(
    trx: Parameters<EventsService['publish']>[0],
    ctx: ServiceContext,
    type: 'apikey.created' | 'apikey.revoked',
    row: { id: string; name: string; access_key: string; user_id: string },
  ): Promise<void> {
    await this.events.publish(
      trx,
      ctx.organizationId,
      type,
      {
        ApiKey: { Id: row.id, Name: row.name, AccessKey: row.access_key, UserId: row.user_id },
        Actor: { Type: ctx.actor.type, Id: ctx.actor.id },
      },
      { subject: `apikeys/${row.id}` },
    );
  }

  /** Drops cached keys of a user whose role or status changed. */
  async invalidateUser(userId: string): Promise<void> {
    await this.bus.publish(`user:${userId}`);
  }

  private onInvalidate(message: string): void {
    this.generation++;
    const [kind, value] = message.split(':', 2);
    if (kind === 'apikey' && value) this.cache.delete(value);
    if (kind === 'user' && value) {
      for (const [accessKey, entry] of this.cache)
        if (entry.row.user_id === value) this.cache.delete(accessKey);
    }
  }

  /**
   * The cached entry while it is fresh. In the period after that it still answers, while one
   * reload runs beside the request: a busy database (an import merging on the embedded
   * database's one connection) then never holds up a request whose key it verified moments
   * ago. A revoked key or a changed user is dropped at once through the bus, so this lengthens
   * nothing but the safety net for a lost message: 2 × RAMPART_AUTH_CACHE_SECONDS.
   */
  private cached(accessKey: string): CacheEntry | undefined {
    const entry = this.cache.get(accessKey);
    if (!entry) return undefined;
    const now = Date.now();
    if (entry.until > now) return entry;
    if (entry.until + this.cacheSeconds * 1000 <= now) return undefined;
    this.reload(accessKey);
    return entry;
  }

  private reload(accessKey: string): void {
    if (this.reloading.has(accessKey)) return;
    this.reloading.add(accessKey);
    this.load(accessKey)
      .then(
        (entry) => {
          // A key gone from the database (deleted) is not answered from its old entry again.
          if (!entry) this.cache.delete(accessKey);
        },
        // The database did not answer: the old entry serves until its period ends.
        () => {},
      )
      .finally(() => this.reloading.delete(accessKey));
  }

  private async load(accessKey: string): Promise<CacheEntry | undefined> {
    const generation = this.generation;
    const row = await this.repo.findForAuthentication(accessKey);
    if (!row) return undefined;
    const entry: CacheEntry = { row, until: Date.now() + this.cacheSeconds * 1000 };
    // Cached unless an invalidation came while the row was read (it may predate a revoke).
    if (this.cacheSeconds > 0 && generation === this.generation) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(accessKey, entry);
    }
    return entry;
  }

  /** `secretKey` matched SECRET_KEY_PATTERN. */
  private verifySecret(entry: CacheEntry, secretKey: string): boolean {
    given.write(secretKey, 'latin1');
    if (entry.verified && timingSafeEqual(entry.verified, given)) return true;
    if (!secretMatches(entry.row.secret_salt, secretKey, entry.row.secret_hash)) return false;
    entry.verified = Buffer.from(given);
    return true;
  }

  /**
   * The principal for a pair of header values, or null. Every failure looks the same to the
   * caller, so that the answer reveals nothing about which part was wrong.
   */
  authenticate(accessKey: unknown, secretKey: unknown): Principal | null | Promise<Principal | null> {
    if (typeof accessKey !== 'string' || typeof secretKey !== 'string') return null;
    if (!ACCESS_KEY_PATTERN.test(accessKey) || !SECRET_KEY_PATTERN.test(secretKey)) return null;
    // The hot path stays synchronous when the key is cached.
    const entry = this.cached(accessKey);
    if (entry) return this.principalFor(entry, secretKey);
    return this.load(accessKey).then((loaded) => (loaded ? this.principalFor(loaded, secretKey) : null));
  }

  private principalFor(entry: CacheEntry, secretKey: string): Principal | null {
    const row = entry.row;
    if (!row.user_active || this.status(row) !== 'Active') return null;
    if (!this.verifySecret(entry, secretKey)) return null;
    const use = this.lastUsed.get(row.id);
    if (use) use.at = this.clock();
    else this.lastUsed.set(row.id, { organizationId: row.organization_id, id: row.id, at: this.clock() });
    // Frozen: one object answers every request of the entry, which no caller may change.
    entry.principal ??= Object.freeze({
      kind: 'apiKey',
      organizationId: row.organization_id,
      userId: row.user_id,
      role: row.role as Role,
      apiKeyId: row.id,
      accessKey: row.access_key,
    });
    return entry.principal;
  }

  /** Writes the last-used times gathered since the previous flush, in one statement. */
  async flushLastUsed(): Promise<number> {
    if (this.lastUsed.size === 0) return 0;
    const entries = [...this.lastUsed.values()];
    this.lastUsed.clear();
    await this.repo.touchLastUsed(entries);
    return entries.length;
  }

  /** The name of each of these keys of the organisation, by id (revoked ones too). */
  async namesOf(organizationId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.repo.namesOf(organizationId, ids);
    return new Map(rows.map((r) => [r.id, r.name]));
  }
}
