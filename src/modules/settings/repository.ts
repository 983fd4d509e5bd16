import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface SlaDays {
  sla_critical_days: number | null;
  sla_high_days: number | null;
  sla_medium_days: number | null;
  sla_low_days: number | null;
  sla_info_days: number | null;
  sla_kev_days: number | null;
}

export class SettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  find(organizationId: string) {
    return this.db
      .selectFrom('organization_settings')
      .select([
        'sla_critical_days',
        'sla_high_days',
        'sla_medium_days',
        'sla_low_days',
        'sla_info_days',
        'sla_kev_days',
        'time_zone',
        'updated_at',
        'audit_retention_days',
        'require_mfa',
      ])
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  /**
   * The next ticket number of an organisation (RAM-1, RAM-2, …), taken under a row lock. The
   * counter shares the settings row: an organisation's first ticket creates that row, with the
   * SLAs it had until then (`sla`, the defaults), never with empty ones; an existing row keeps
   * everything but the counter.
   */
  async nextTicketNumber(
    organizationId: string,
    at: Date,
    sla: SlaDays,
    trx: Transaction<DB>,
  ): Promise<number> {
    const row = await sql<{ number: number }>`
      insert into organization_settings (organization_id, sla_critical_days, sla_high_days, sla_medium_days,
        sla_low_days, sla_info_days, sla_kev_days, next_ticket_number, updated_at)
      values (${organizationId}, ${sla.sla_critical_days}::int, ${sla.sla_high_days}::int, ${sla.sla_medium_days}::int,
        ${sla.sla_low_days}::int, ${sla.sla_info_days}::int, ${sla.sla_kev_days}::int, 2, ${at}::timestamptz)
      on conflict (organization_id) do update set next_ticket_number = organization_settings.next_ticket_number + 1
      returning next_ticket_number - 1 as number`.execute(trx);
    return Number(row.rows[0]!.number);
  }

  async save(organizationId: string, at: Date, sla: SlaDays, timeZone?: string): Promise<void> {
    const zone = timeZone === undefined ? {} : { time_zone: timeZone };
    await this.db
      .insertInto('organization_settings')
      .values({ organization_id: organizationId, ...sla, ...zone, updated_at: at })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet({ ...sla, ...zone, updated_at: at }))
      .execute();
  }

  async timeZone(organizationId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('organization_settings')
      .select('time_zone')
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.time_zone;
  }

  /**
   * Sets how long audit entries are kept. A first settings row gets the SLAs the organisation had
   * until then (`sla`, the defaults), as nextTicketNumber's does.
   */
  async saveAuditRetention(
    organizationId: string,
    at: Date,
    days: number | null,
    sla: SlaDays,
  ): Promise<void> {
    await this.db
      .insertInto('organization_settings')
      .values({ organization_id: organizationId, ...sla, audit_retention_days: days, updated_at: at })
      .onConflict((oc) =>
        oc.column('organization_id').doUpdateSet({ audit_retention_days: days, updated_at: at }),
      )
      .execute();
  }

  /**
   * Sets whether password users must have a second factor. A first settings row gets the SLAs the
   * organisation had until then (`sla`, the defaults), as nextTicketNumber's does.
   */
  async saveRequireMfa(organizationId: string, at: Date, required: boolean, sla: SlaDays): Promise<void> {
    await this.db
      .insertInto('organization_settings')
      .values({ organization_id: organizationId, ...sla, require_mfa: required, updated_at: at })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet({ require_mfa: required, updated_at: at }))
      .execute();
  }
}
