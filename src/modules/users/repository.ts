import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB, NewUserRow, PeopleTable, Role } from '../../db/schema.js';

/** Every column a User has, under its domain name: rows need no mapping. */
const COLUMNS = [
  'id',
  'organization_id as organizationId',
  'person_id as personId',
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

  insert(row: NewUserRow, db: Kysely<DB> | Transaction<DB> = this.db) {
    return db.insertInto('users').values(row).returning(COLUMNS).executeTakeFirstOrThrow();
  }

  findById(organizationId: string, id: string) {
    return this.db
      .selectFrom('users')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The membership of this email in the organisation. */
  findByEmail(organizationId: string, email: string) {
    return this.db
      .selectFrom('users')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId)
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .executeTakeFirst();
  }

  /** Every membership of a person, in every organisation, oldest first. */
  membershipsOf(personId: string) {
    return this.db
      .selectFrom('users')
      .select(COLUMNS)
      .where('person_id', '=', personId)
      .orderBy('id')
      .execute();
  }

  /** The person of an email: sign-in has no organisation yet. */
  findPersonByEmail(email: string) {
    return this.db
      .selectFrom('people')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .executeTakeFirst();
  }

  findPerson(id: string) {
    return this.db.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insertPerson(row: Insertable<PeopleTable>, db: Kysely<DB> | Transaction<DB> = this.db) {
    return db.insertInto('people').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async updatePerson(
    id: string,
    at: Date,
    changes: { password_hash?: string | null; installation_admin?: boolean; last_organization_id?: string },
  ): Promise<void> {
    await this.db
      .updateTable('people')
      .set({ ...changes, updated_at: at })
      .where('id', '=', id)
      .execute();
  }

  listInstallationAdmins() {
    return this.db
      .selectFrom('people')
      .selectAll()
      .where('installation_admin', '=', true)
      .orderBy('id')
      .execute();
  }

  /** How many memberships each organisation has (the installation's list of organisations). */
  async countsByOrganization(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('users')
      .select(['organization_id', (eb) => eb.fn.countAll<string>().as('n')])
      .groupBy('organization_id')
      .execute();
    return new Map(rows.map((r) => [r.organization_id, Number(r.n)]));
  }

  update(
    organizationId: string,
    id: string,
    at: Date,
    changes: Partial<Pick<NewUserRow, 'name' | 'role' | 'active'>>,
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
