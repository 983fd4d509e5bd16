import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';

const FIRST_ORG_LOCK = 72_910_001;

const COLUMNS = ['id', 'name', 'created_at', 'deactivated_at'] as const;

export class OrganizationRepository {
  constructor(private readonly db: Kysely<DB>) {}

  insert(id: string, name: string, createdAt: Date) {
    return this.db
      .insertInto('organizations')
      .values({ id, name, created_at: createdAt })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** The first organisation, inserted when there is none; safe when several instances start at once. */
  findOrCreateFirst(id: string, name: string, createdAt: Date) {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${FIRST_ORG_LOCK})`.execute(trx);
      const existing = await trx
        .selectFrom('organizations')
        .select(COLUMNS)
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (existing) return { row: existing, created: false };
      const row = await trx
        .insertInto('organizations')
        .values({ id, name, created_at: createdAt })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return { row, created: true };
    });
  }

  findById(id: string) {
    return this.db.selectFrom('organizations').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  findFirst() {
    return this.db.selectFrom('organizations').select(COLUMNS).orderBy('id').limit(1).executeTakeFirst();
  }

  list() {
    return this.db.selectFrom('organizations').select(COLUMNS).orderBy('id').execute();
  }

  update(id: string, changes: { name?: string; deactivated_at?: Date | null }) {
    return this.db
      .updateTable('organizations')
      .set(changes)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
  }

  findByName(name: string) {
    return this.db
      .selectFrom('organizations')
      .select(COLUMNS)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
      .executeTakeFirst();
  }
}
