import type { ExpressionBuilder, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, SchedulesTable } from '../db/schema.js';
import { deactivatedOrganizationIds } from '../modules/organizations/queries.js';
import { ruleFromJson } from './schedule-rule.js';
import type { Schedule } from './types.js';

type Db = Kysely<DB> | Transaction<DB>;

const toSchedule = (r: Selectable<SchedulesTable>): Schedule => ({
  id: r.id,
  organizationId: r.organization_id,
  key: r.key,
  rule: ruleFromJson(r.rule),
  jobKind: r.job_kind,
  payload: r.payload,
  maxAttempts: r.max_attempts,
  enabled: r.enabled,
  nextRunAt: r.next_run_at === null ? null : new Date(r.next_run_at),
  lastRunAt: r.last_run_at === null ? null : new Date(r.last_run_at),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/** The organisation's rows, or the system's (no organisation) when it is null. */
const ofOrganization = (organizationId: string | null) => (eb: ExpressionBuilder<DB, 'schedules'>) =>
  organizationId === null ? eb('organization_id', 'is', null) : eb('organization_id', '=', organizationId);

export interface ScheduleRow {
  id: string;
  organizationId: string | null;
  key: string;
  rule: string;
  jobKind: string;
  payload: string;
  maxAttempts: number;
  enabled: boolean;
  nextRunAt: Date | null;
  now: Date;
}

/** The SQL of the schedules (table `schedules`); every time comes from the caller's clock. */
export class ScheduleRepository {
  constructor(private readonly db: Kysely<DB>) {}

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async find(organizationId: string | null, key: string, db: Db = this.db): Promise<Schedule | undefined> {
    const row = await db
      .selectFrom('schedules')
      .selectAll()
      .where(ofOrganization(organizationId))
      .where('key', '=', key)
      .executeTakeFirst();
    return row && toSchedule(row);
  }

  /** Whether the organisation (or the system, for null) has the schedule with this id. */
  async hasId(organizationId: string | null, id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('schedules')
      .select('id')
      .where(ofOrganization(organizationId))
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The schedule, locked for this transaction (two instances registering it at once wait in turn). */
  async lock(
    trx: Transaction<DB>,
    organizationId: string | null,
    key: string,
  ): Promise<Schedule | undefined> {
    const row = await trx
      .selectFrom('schedules')
      .selectAll()
      .where(ofOrganization(organizationId))
      .where('key', '=', key)
      .forUpdate()
      .executeTakeFirst();
    return row && toSchedule(row);
  }

  /** Inserts the schedule unless its key is taken (then another instance just made it). */
  async insert(trx: Transaction<DB>, row: ScheduleRow): Promise<boolean> {
    const inserted = await trx
      .insertInto('schedules')
      .values({
        organization_id: row.organizationId,
        id: row.id,
        key: row.key,
        rule: row.rule,
        job_kind: row.jobKind,
        payload: row.payload,
        max_attempts: row.maxAttempts,
        enabled: row.enabled,
        next_run_at: row.nextRunAt,
        created_at: row.now,
        updated_at: row.now,
      })
      .onConflict((oc) => oc.constraint('schedules_key_unique').doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async update(
    trx: Transaction<DB>,
    id: string,
    change: Omit<ScheduleRow, 'id' | 'organizationId' | 'key'>,
  ): Promise<void> {
    await trx
      .updateTable('schedules')
      .set({
        rule: change.rule,
        job_kind: change.jobKind,
        payload: change.payload,
        max_attempts: change.maxAttempts,
        enabled: change.enabled,
        next_run_at: change.nextRunAt,
        updated_at: change.now,
      })
      .where('id', '=', id)
      .execute();
  }

  async remove(organizationId: string | null, key: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('schedules')
      .where(ofOrganization(organizationId))
      .where('key', '=', key)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Due schedules, locked for this transaction; those another instance is firing right now are
   * skipped (it fires them), so every occurrence fires once.
   */
  async claimDue(trx: Transaction<DB>, now: Date, limit: number): Promise<Schedule[]> {
    const rows = await trx
      .selectFrom('schedules')
      .selectAll()
      .where('enabled', '=', true)
      .where('next_run_at', '<=', now)
      // A deactivated organisation's schedules wait (they fire once on reactivation).
      .where((eb) =>
        eb.or([
          eb('organization_id', 'is', null),
          eb('organization_id', 'not in', deactivatedOrganizationIds()),
        ]),
      )
      .orderBy('next_run_at')
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    return rows.map(toSchedule);
  }

  async advance(
    trx: Transaction<DB>,
    id: string,
    change: { nextRunAt: Date | null; lastRunAt: Date; now: Date },
  ): Promise<void> {
    await trx
      .updateTable('schedules')
      .set({
        next_run_at: change.nextRunAt,
        last_run_at: change.lastRunAt,
        enabled: change.nextRunAt !== null,
        updated_at: change.now,
      })
      .where('id', '=', id)
      .execute();
  }
}
