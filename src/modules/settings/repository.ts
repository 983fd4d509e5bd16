import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface SlaDays {
  sla_critical_days: number | null;
  sla_high_days: number | null;
  sla_medium_days: number | null;
  sla_low_days: number | null;
  sla_info_days: number | null;
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
        'updated_at',
      ])
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  async save(organizationId: string, at: Date, sla: SlaDays): Promise<void> {
    await this.db
      .insertInto('organization_settings')
      .values({ organization_id: organizationId, ...sla, updated_at: at })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet({ ...sla, updated_at: at }))
      .execute();
  }
}
