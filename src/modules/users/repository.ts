import type { Kysely, Transaction } from 'kysely';
import type { DB, NewUserRow, Role } from '../../db/schema.js';

/** Every column a User has, under its domain name: rows need no mapping. */
const COLUMNS = [
  'id',
  'organization_id as organizationId',
  'email',
  'name',
  'role',
  'active',
  'created_at as createdAt',
] as const;

export class UserRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  insert(row: NewUserRow) {
    return this.db.insertInto('users').values(row).returning(COLUMNS).executeTakeFirstOrThrow();
  }

  findById(organizationId: string, id: string) {
    return this.db
      .selectFrom('users')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Email identifies a user across organisations (sign-in has no organisation yet). */
  findByEmail(email: string) {
    return this.db
      .selectFrom('users')
      .select([...COLUMNS, 'password_hash as passwordHash'])
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .executeTakeFirst();
  }

  update(
    organizationId: string,
    id: string,
    at: Date,
    changes: Partial<Pick<NewUserRow, 'name' | 'role' | 'active' | 'password_hash'>>,
    db: Kysely<DB> | Transaction<DB> = this.db,
  ) {
    return db
      .updateTable('users')
      .set({ ...changes, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
  }

  passwordHashOf(organizationId: string, id: string) {
    return this.db
      .selectFrom('users')
      .select('password_hash')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** One page in id order (ids are time-ordered UUIDv7), after the cursor id. */
  listPage(organizationId: string, limit: number, afterId?: string) {
    let query = this.db
      .selectFrom('users')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .orderBy('id')
      .limit(limit);
    if (afterId) query = query.where('id', '>', afterId);
    return query.execute();
  }

  async count(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countAdmins(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'Admin' satisfies Role)
      .where('active', '=', true)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Names and emails of these users of the organisation (the audit log names its actors). */
  namesOf(organizationId: string, ids: readonly string[]) {
    return this.db
      .selectFrom('users')
      .select(['id', 'name', 'email'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  }
}
