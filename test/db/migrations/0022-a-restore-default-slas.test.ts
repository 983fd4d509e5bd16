import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// Databases whose first ticket emptied the SLAs get the defaults back; SLAs someone set stay.
describe.each(DB_KINDS)('migration 0022_a_restore_default_slas [%s]', (kind) => {
  let tdb: TestDatabase;
  const at = '2026-11-21T12:00:00Z';
  const emptied = '00000000-0000-7000-8000-000000000001';
  const chosen = '00000000-0000-7000-8000-000000000002';
  const own = '00000000-0000-7000-8000-000000000003';

  beforeAll(async () => {
    tdb = await newTestDatabase(kind, false);
    const db = tdb.database.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const before = await migrator.migrateTo('0021_create_finding_sightings');
    expect(before.error).toBeUndefined();
    for (const [id, name] of [
      [emptied, 'Emptied by its first ticket'],
      [chosen, 'Chose no deadlines'],
      [own, 'Own SLAs'],
    ])
      await sql`insert into organizations (id, name, created_at) values (${id}, ${name}, ${at})`.execute(db);
    // What the first ticket left: the counter, no SLAs.
    await sql`insert into organization_settings (organization_id, next_ticket_number, updated_at)
      values (${emptied}, 4, ${at}), (${chosen}, 2, ${at})`.execute(db);
    await sql`insert into audit_events (organization_id, id, occurred_at, actor_type, action, details)
      values (${chosen}, ${'00000000-0000-7000-8000-00000000000a'}, ${at}, 'system', 'settings.sla_changed', '{}')`.execute(
      db,
    );
    await sql`insert into organization_settings (organization_id, sla_critical_days, sla_high_days, sla_medium_days,
        sla_low_days, sla_info_days, next_ticket_number, updated_at)
      values (${own}, 1, 2, 3, 4, null, 9, ${at})`.execute(db);
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  const row = async (id: string) =>
    (
      await sql<Record<string, number | null>>`
        select sla_critical_days, sla_high_days, sla_medium_days, sla_low_days, sla_info_days, next_ticket_number
        from organization_settings where organization_id = ${id}`.execute(tdb.database.db)
    ).rows[0];

  it('gives a row its first ticket emptied the default SLAs, keeping its ticket counter', async () => {
    expect(await row(emptied)).toEqual({
      sla_critical_days: 7,
      sla_high_days: 30,
      sla_medium_days: 90,
      sla_low_days: 180,
      sla_info_days: null,
      next_ticket_number: 4,
    });
  });

  it('leaves SLAs a person set, empty or not', async () => {
    expect(await row(chosen)).toMatchObject({
      sla_critical_days: null,
      sla_high_days: null,
      next_ticket_number: 2,
    });
    expect(await row(own)).toEqual({
      sla_critical_days: 1,
      sla_high_days: 2,
      sla_medium_days: 3,
      sla_low_days: 4,
      sla_info_days: null,
      next_ticket_number: 9,
    });
  });
});
