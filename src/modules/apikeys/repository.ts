import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { joinableUsers } from '../users/queries.js';

const LIST_COLUMNS = [
  'api_keys.id',
  'api_keys.organization_id',
  'api_keys.user_id',
  'api_keys.name',
  'api_keys.access_key',
  'api_keys.created_at',
  'api_keys.last_used_at',
  'api_keys.expires_at',
  'api_keys.revoked_at',
] as const;

export interface NewApiKeyRow {
  organizationId: string;
  id: string;
  userId: string;
  name: string;
  accessKey: string;
  secretSalt: Buffer;
  secretHash: Buffer;
  createdAt: Date;
  expiresAt: Date | null;
}

export class ApiKeyRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  insert(k: NewApiKeyRow, db: Kysely<DB> | Transaction<DB> = this.db) {
    return db
      .insertInto('api_keys')
      .values({
        organization_id: k.organizationId,
        id: k.id,
        user_id: k.userId,
        name: k.name,
        access_key: k.accessKey,
        secret_salt: k.secretSalt,
        secret_hash: k.secretHash,
        created_at: k.createdAt,
        expires_at: k.expiresAt,
      })
      .returning(LIST_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /**
   * Everything authentication needs in one indexed lookup. The organisation is not known yet:
   * the access key is what identifies it.
   */
  findForAuthentication(accessKey: string) {
    return this.db
      .selectFrom('api_keys')
      .innerJoin(joinableUsers('u'), (j) =>
        j.onRef('u.organization_id', '=', 'api_keys.organization_id').onRef('u.id', '=', 'api_keys.user_id'),
      )
      .select([
        'api_keys.id',
        'api_keys.organization_id',
        'api_keys.user_id',
        'api_keys.access_key',
        'api_keys.secret_salt',
        'api_keys.secret_hash',
        'api_keys.expires_at',
        'api_keys.revoked_at',
        'u.role',
        'u.active as user_active',
      ])
      .where('api_keys.access_key', '=', accessKey)
      .executeTakeFirst();
  }

  listForUser(organizationId: string, userId: string) {
    return this.db
      .selectFrom('api_keys')
      .select(LIST_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  findByAccessKey(accessKey: string) {
    return this.db
      .selectFrom('api_keys')
      .select(LIST_COLUMNS)
      .where('access_key', '=', accessKey)
      .executeTakeFirst();
  }

  findById(organizationId: string, id: string) {
    return this.db
      .selectFrom('api_keys')
      .select(LIST_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  revoke(organizationId: string, id: string, at: Date, db: Kysely<DB> | Transaction<DB> = this.db) {
    return db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning(LIST_COLUMNS)
      .executeTakeFirst();
  }

  /** One statement for a whole batch of last-used times; never moves a time backwards. */
  async touchLastUsed(entries: { organizationId: string; id: string; at: Date }[]): Promise<void> {
    if (entries.length === 0) return;
    const values = sql.join(
      entries.map((e) => sql`(${e.organizationId}::uuid, ${e.id}::uuid, ${e.at}::timestamptz)`),
    );
    await sql`
      update api_keys set last_used_at = greatest(api_keys.last_used_at, v.at)
      from (values ${values}) as v(organization_id, id, at)
      where api_keys.organization_id = v.organization_id and api_keys.id = v.id`.execute(this.db);
  }

  /** Names of these keys of the organisation, revoked ones too (the audit log names its actors). */
  namesOf(organizationId: string, ids: readonly string[]) {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'name'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  }
}
