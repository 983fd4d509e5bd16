import { type Kysely, sql } from 'kysely';

// An organisation's first ticket used to create its settings row without SLAs, and a row's SLAs
// are read as set (null: no deadline), so the defaults (7, 30, 90, 180 days, none for Info) were
// lost. A row whose SLAs are all empty although nobody ever changed them (no settings.sla_changed
// in the audit log) was made that way: it gets the defaults it had before. Findings that lost
// their due dates get them back when they are next re-scored (an import, an asset or
// intelligence change).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update organization_settings s set sla_critical_days = 7, sla_high_days = 30, sla_medium_days = 90,
      sla_low_days = 180, sla_info_days = null
    where s.sla_critical_days is null and s.sla_high_days is null and s.sla_medium_days is null
      and s.sla_low_days is null and s.sla_info_days is null
      and not exists (
        select 1 from audit_events e
        where e.organization_id = s.organization_id and e.action = 'settings.sla_changed'
      )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only');
}
