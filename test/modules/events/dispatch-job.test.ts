import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../src/modules/events/types.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const data = {
  ApiKey: {
    Id: '01900000-0000-7000-8000-000000000001',
    Name: 'k',
    AccessKey: 'AK',
    UserId: '01900000-0000-7000-8000-000000000002',
  },
  Actor: { Type: 'system' as const, Id: null },
};

async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The background work of a server dispatches what the outbox holds through the events-dispatch
// job: a consumer registered on the service graph gets each committed event, once.
describe.each(DB_KINDS)('the events-dispatch job [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const received: StoredEvent[] = [];

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    t.services.events.onDispatch(async (_trx, batch) => {
      received.push(...batch);
    });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  it('hands committed events to the consumers within seconds, once each', async () => {
    const db = tdb.database.db;
    const ids = await db.transaction().execute((trx) =>
      t.services.events.publishMany(trx, t.org.id, [
        { type: 'apikey.created', data, subject: 'apikeys/1' },
        { type: 'apikey.revoked', data, subject: 'apikeys/1' },
      ]),
    );
    const mine = () => received.filter((e) => ids.includes(e.id));
    await until(() => mine().length >= 2);
    expect(mine().map((e) => e.id)).toEqual(ids);
    await until(async () => !(await t.services.events.hasPending()));
    const job = await t.services.jobs.findByDedupKey('events-dispatch', 'events-dispatch');
    expect(job?.kind).toBe('events-dispatch');
    await new Promise((r) => setTimeout(r, 2500));
    expect(mine()).toHaveLength(2);
    // Every event the app published (the keys the test made among them) went out once.
    expect(new Set(received.map((e) => e.id)).size).toBe(received.length);
  });
});
