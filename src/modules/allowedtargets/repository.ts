import type { Kysely } from 'kysely';
import type { AllowedTargetKind, DB } from '../../db/schema.js';

const COLUMNS = [
  'organization_id',
  'id',
  'kind',
  'target',
  'description',
  'created_by',
  'created_at',
] as const;

export interface NewAllowedTargetRow {
  organizationId: string;
  id: string;
  kind: AllowedTargetKind;
  target: string;
  description: string | null;
  createdBy: string | null;
  createdAt: Date;
}

export class AllowedTargetRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Inserts the entry, or returns undefined when the organisation already has it. */
  insert(row: NewAllowedTargetRow) {
    return this.db
      .insertInto('allowed_targets')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        kind: row.kind,
        target: row.target,
        description: row.description,
        created_by: row.createdBy,
        created_at: row.createdAt,
      })
      .onConflict((c) => c.columns(['organization_id', 'kind', 'target']).doNothing())
      .returning(COLUMNS)
      .executeTakeFirst();
  }

  /** Newest first, after the (createdAt, id) of the previous page's last row. */
  listPage(organizationId: string, limit: number, after?: { createdAt: string; id: string }) {
    let q = this.db
      .selectFrom('allowed_targets')
      .select(COLUMNS)
      .where('organization_id', '=', organizationId);
    if (after)
      q = q.where(({ eb, refTuple, tuple }) =>
        eb(refTuple('created_at', 'id'), '<', tuple(new Date(after.createdAt), after.id)),
      );
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async count(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('allowed_targets')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every entry's kind and text: the policy a scan is checked against. */
  listTargets(organizationId: string) {
    return this.db
      .selectFrom('allowed_targets')
      .select(['kind', 'target'])
      .where('organization_id', '=', organizationId)
      .orderBy('target')
      .execute();
  }

  delete(organizationId: string, id: string) {
    return this.db
      .deleteFrom('allowed_targets')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
  }
}
