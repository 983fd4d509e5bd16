import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../../src/db/schema.js';
import { EVENT_CATALOGUE, EVENT_TYPES } from '../../../src/modules/events/catalogue.js';
import { EventRepository } from '../../../src/modules/events/repository.js';
import { EventPayloadInvalid, EventsService } from '../../../src/modules/events/service.js';
import type { StoredEvent } from '../../../src/modules/events/types.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

const apiKeyData = (name: string) => ({
  ApiKey: {
    Id: '01900000-0000-7000-8000-000000000001',
    Name: name,
    AccessKey: 'AK',
    UserId: '01900000-0000-7000-8000-000000000002',
  },
  Actor: { Type: 'system' as const, Id: null },
});

// The outbox: events written with the caller's executor (so in its transaction), dispatched once
// to every consumer by concurrent dispatchers, never lost to a dispatcher that dies mid-batch.
describe.each(DB_KINDS)('the event outbox [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let db: Kysely<DB>;
  let other: { id: string };

  /** A second process on the same database: its own pool, its own service. */
  let pool2: pg.Pool;
  let db2: Kysely<DB>;

  const service = (on: Kysely<DB>, batchSize = 50) =>
    new EventsService(new EventRepository(on), t.clock.fn, { checkPayloads: true, batchSize });

  const pending = async () =>
    Number(
      (
        await sql<{ n: string }>`select count(*) as n from event_outbox where dispatched_at is null`.execute(
          db,
        )
      ).rows[0]!.n,
    );

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
    db = tdb.database.db;
    other = await t.services.organizations.create('Other organisation');
    pool2 = new pg.Pool({ ...tdb.database.connection, max: 4 });
    db2 = new Kysely<DB>({ dialect: new PostgresDialect({ pool: pool2 }) });
    await sql`create table test_seen (id uuid primary key, consumer text not null)`.execute(db);
  });
  afterAll(async () => {
    await db2?.destroy();
    await t?.close();
    await tdb?.drop();
  });

  it('writes an event with the transaction it is given: a rollback leaves none', async () => {
    const events = service(db);
    await expect(
      db.transaction().execute(async (trx) => {
        await events.publish(trx, t.org.id, 'apikey.created', apiKeyData('rolled back'), {
          subject: 'apikeys/x',
        });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const id = await db.transaction().execute((trx) =>
      events.publish(trx, t.org.id, 'apikey.created', apiKeyData('kept'), {
        subject: 'apikeys/y',
        facets: { tags: ['prod'] },
      }),
    );
    // The test app's own keys published theirs too: this test's subjects only.
    const stored = (await events.listRecent(t.org.id, { types: ['apikey.created'] })).filter((e) =>
      e.subject?.match(/^apikeys\/[xy]$/),
    );
    expect(stored.map((e) => e.id)).toEqual([id]);
    expect(stored[0]).toMatchObject({
      organizationId: t.org.id,
      type: 'apikey.created',
      schemaVersion: 1,
      subject: 'apikeys/y',
      facets: { tags: ['prod'] },
      data: { ApiKey: { Name: 'kept' } },
    });
    expect(stored[0]!.time).toEqual(t.clock.now);
  });

  it('checks payloads where asked: a missing field throws, extra fields pass, unchecked writes anyway', async () => {
    const events = service(db);
    const bad = { ApiKey: { Id: 'x' } } as never;
    await expect(events.publish(db, t.org.id, 'apikey.revoked', bad)).rejects.toBeInstanceOf(
      EventPayloadInvalid,
    );
    const extra = { ...apiKeyData('extra'), Later: 'a field of a later release' };
    await events.publish(db, t.org.id, 'apikey.revoked', extra);
    const unchecked = new EventsService(new EventRepository(db), t.clock.fn, { checkPayloads: false });
    await unchecked.publish(db, t.org.id, 'apikey.revoked', bad);
    const stored = await events.listRecent(t.org.id, { types: ['apikey.revoked'] });
    expect(stored.map((e) => e.data)).toEqual([bad, extra]);
  });

  it("keeps each organisation's events to itself", async () => {
    const events = service(db);
    await events.publishMany(db, other.id, [
      { type: 'user.role_changed', data: roleChanged('a@example.com'), subject: 'users/a' },
      { type: 'user.role_changed', data: roleChanged('b@example.com'), subject: 'users/b' },
    ]);
    const mine = await events.listRecent(t.org.id, { types: ['user.role_changed'] });
    const theirs = await events.listRecent(other.id, { types: ['user.role_changed'] });
    expect(mine).toEqual([]);
    expect(theirs.map((e) => e.subject)).toEqual(['users/b', 'users/a']);
    expect(theirs.every((e) => e.organizationId === other.id)).toBe(true);
    expect(events.envelope(theirs[0]!).source).toBe(`/rampart/organizations/${other.id}`);
  });

  it('publishes a big batch in few statements', async () => {
    const events = service(db);
    const many = Array.from({ length: 2500 }, (_, i) => ({
      type: 'apikey.created' as const,
      data: apiKeyData(`bulk ${i}`),
      subject: `apikeys/${i}`,
    }));
    const ids = await db.transaction().execute((trx) => events.publishMany(trx, other.id, many));
    expect(new Set(ids).size).toBe(2500);
    const n = await sql<{
      n: string;
    }>`select count(*) as n from event_outbox where organization_id = ${other.id} and type = 'apikey.created'`.execute(
      db,
    );
    expect(Number(n.rows[0]!.n)).toBe(2500);
  });

  it('dispatches each event exactly once with two dispatchers in two processes at the same time', async () => {
    const seen: string[] = [];
    const consumer =
      (name: string) =>
      async (trx: Parameters<Parameters<EventsService['onDispatch']>[0]>[0], batch: StoredEvent[]) => {
        for (const e of batch) seen.push(e.id);
        // A consumer's own writes are part of the dispatch: the primary key fails a second delivery.
        await trx
          .insertInto('test_seen' as never)
          .values(batch.map((e) => ({ id: e.id, consumer: name })) as never)
          .execute();
      };
    const a = service(db, 37);
    const b = service(db2, 37);
    a.onDispatch(consumer('a'));
    b.onDispatch(consumer('b'));
    const waiting = await pending();
    expect(waiting).toBeGreaterThan(2500);
    const [na, nb] = await Promise.all([a.dispatchPending(), b.dispatchPending()]);
    expect(na + nb).toBe(waiting);
    expect(na).toBeGreaterThan(0);
    expect(nb).toBeGreaterThan(0);
    expect(seen.length).toBe(waiting);
    expect(new Set(seen).size).toBe(waiting);
    expect(await pending()).toBe(0);
    const byConsumer = await sql<{
      consumer: string;
      n: string;
    }>`select consumer, count(*) as n from test_seen group by consumer order by consumer`.execute(db);
    expect(byConsumer.rows.map((r) => r.consumer)).toEqual(['a', 'b']);
    expect(await a.dispatchPending()).toBe(0);
  });

  it('rolls back a batch whose consumer throws: nothing of it is dispatched, the next try sends it', async () => {
    const events = service(db);
    let fail = true;
    const delivered: string[] = [];
    events.onDispatch(async (trx, batch) => {
      await trx
        .insertInto('test_seen' as never)
        .values(batch.map((e) => ({ id: e.id, consumer: 'retry' })) as never)
        .execute();
      if (fail) throw new Error('receiver down');
      delivered.push(...batch.map((e) => e.id));
    });
    const id = await events.publish(db, t.org.id, 'apikey.created', apiKeyData('retry'));
    await expect(events.dispatchPending()).rejects.toThrow('receiver down');
    expect(await pending()).toBe(1);
    const kept = await sql`select 1 from test_seen where id = ${id}`.execute(db);
    expect(kept.rows).toEqual([]);
    fail = false;
    expect(await events.dispatchPending()).toBe(1);
    expect(delivered).toEqual([id]);
  });

  it('loses nothing to a dispatcher killed between the change and the dispatch', async () => {
    const events = service(db);
    const ids = await db.transaction().execute((trx) =>
      events.publishMany(trx, t.org.id, [
        { type: 'apikey.created', data: apiKeyData('k1') },
        { type: 'apikey.created', data: apiKeyData('k2') },
      ]),
    );
    // Process two claims the batch and dies before its commit: its connection goes, its
    // transaction with it.
    const client = new pg.Client(tdb.database.connection);
    await client.connect();
    await client.query('begin');
    const claimed = await client.query(
      'select id from event_outbox where dispatched_at is null order by seq for update skip locked',
    );
    expect(claimed.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    // While it holds them, another dispatcher skips them rather than sending them twice.
    const meanwhile: string[] = [];
    const other = service(db);
    other.onDispatch(async (_trx, batch) => {
      meanwhile.push(...batch.map((e) => e.id));
    });
    expect(await other.dispatchPending()).toBe(0);
    await client.end();
    // After the kill they are pending still, and the next dispatcher sends them, once.
    expect(await other.dispatchPending()).toBe(2);
    expect(meanwhile.sort()).toEqual([...ids].sort());
    expect(await other.dispatchPending()).toBe(0);
  });

  it('purges dispatched events after the retention, never pending ones', async () => {
    const events = service(db);
    await events.publish(db, t.org.id, 'apikey.created', apiKeyData('old'));
    await events.dispatchPending();
    const stay = await events.publish(db, t.org.id, 'apikey.created', apiKeyData('pending'));
    t.clock.advanceDays(8);
    try {
      expect(await events.purgeDispatched()).toBeGreaterThan(0);
      const left = await sql<{ id: string }>`select id from event_outbox`.execute(db);
      expect(left.rows.map((r) => r.id)).toEqual([stay]);
    } finally {
      t.clock.advanceDays(-8);
    }
  });

  it('lists a schema, version and description for every type of the contract', () => {
    expect(EVENT_TYPES).toHaveLength(23);
    for (const type of EVENT_TYPES) {
      const e = EVENT_CATALOGUE[type];
      expect(e.version).toBe(1);
      expect(e.description.length).toBeGreaterThan(10);
      expect(e.schema).toBeTypeOf('object');
    }
  });
});

function roleChanged(email: string) {
  return {
    User: { Id: '01900000-0000-7000-8000-000000000003', Email: email, Name: email },
    FromRole: 'Analyst',
    ToRole: 'Admin',
    Actor: { Type: 'user' as const, Id: '01900000-0000-7000-8000-000000000004' },
  };
}
