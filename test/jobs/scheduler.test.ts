import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../../src/db/database.js';
import { JobQueue } from '../../src/jobs/queue.js';
import {
  ruleOfScheduleOption,
  type ScheduleOption,
  scheduleOptionOfRule,
} from '../../src/jobs/schedule-option.js';
import { type Fired, Scheduler } from '../../src/jobs/scheduler.js';
import { AppError } from '../../src/problems/app-error.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

const MINUTE = 60_000;
const T0 = new Date('2026-11-21T12:00:00.000Z');

/** The detail of the AppError `fn` throws (fails when it throws none). */
async function refusal(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).detail;
  }
  throw new Error('nothing was refused');
}

// Issue 14: schedules fire once per occurrence, across any number of instances.
describe.each(DB_KINDS)('scheduler [%s]', (kind) => {
  let tdb: TestDatabase;
  let now: Date;
  const clock = () => new Date(now);
  const at = (iso: string) => {
    now = new Date(iso);
  };
  let queue: JobQueue;
  let scheduler: Scheduler;
  let n = 0;
  let k: string;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    queue = new JobQueue(tdb.database.db, clock);
    scheduler = new Scheduler(tdb.database.db, queue, clock);
  });
  afterAll(() => tdb.drop());
  beforeEach(() => {
    now = new Date(T0);
    k = `scheduled-${++n}`;
  });

  /** The occurrences of this test's schedules fired by a tick, as ISO times. */
  const tick = async (s = scheduler) =>
    (await s.tick()).filter((f) => f.key.startsWith(k)).map((f) => f.occurrence.toISOString());

  it('fires a cron schedule at its times in its time zone, once each', async () => {
    // 09:00 in Berlin on weekdays: 08:00 UTC in winter.
    const schedule = await scheduler.upsert({
      key: `${k}:cron`,
      rule: { type: 'cron', expression: '0 9 * * 1-5', timeZone: 'Europe/Berlin' },
      jobKind: k,
      payload: { scan: 1 },
    });
    expect(schedule).toMatchObject({ enabled: true, organizationId: null, lastRunAt: null });
    expect(schedule.nextRunAt?.toISOString()).toBe('2026-11-23T08:00:00.000Z'); // Saturday → Monday
    expect(await tick()).toEqual([]);
    at('2026-11-23T07:59:59.999Z');
    expect(await tick()).toEqual([]);
    at('2026-11-23T08:00:00.000Z');
    expect(await tick()).toEqual(['2026-11-23T08:00:00.000Z']);
    expect(await tick()).toEqual([]);
    const fired = await scheduler.get(null, `${k}:cron`);
    expect(fired?.nextRunAt?.toISOString()).toBe('2026-11-24T08:00:00.000Z');
    expect(fired?.lastRunAt?.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    const jobs = await queue.list({ kind: k, pageSize: 10 });
    expect(jobs.items).toHaveLength(1);
    expect(jobs.items[0]).toMatchObject({
      payload: { scan: 1 },
      state: 'Queued',
      dedupKey: `schedule:${schedule.id}:2026-11-23T08:00:00.000Z`,
    });
  });

  it('leaves the schedules of a deactivated organisation waiting, and fires them once it is active again', async () => {
    const org = '0190a000-0000-7000-8000-0000000000c1';
    await tdb.database.db
      .insertInto('organizations')
      .values({ id: org, name: `Paused ${k}`, created_at: T0, deactivated_at: null })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    await scheduler.upsert({
      organizationId: org,
      key: `${k}:paused`,
      rule: { type: 'interval', seconds: 600, startAt: new Date('2026-11-21T12:05:00Z') },
      jobKind: k,
    });
    await tdb.database.db
      .updateTable('organizations')
      .set({ deactivated_at: T0 })
      .where('id', '=', org)
      .execute();
    at('2026-11-21T12:05:00Z');
    expect(await tick()).toEqual([]);
    at('2026-11-21T12:25:00Z');
    expect(await tick()).toEqual([]);
    await tdb.database.db
      .updateTable('organizations')
      .set({ deactivated_at: null })
      .where('id', '=', org)
      .execute();
    // Once, not once per missed occurrence.
    expect(await tick()).toEqual(['2026-11-21T12:05:00.000Z']);
    expect(await tick()).toEqual([]);
  });

  it('fires an interval schedule from its start, and a once schedule once, then disables it', async () => {
    await scheduler.upsert({
      key: `${k}:every`,
      rule: { type: 'interval', seconds: 600, startAt: new Date('2026-11-21T12:05:00Z') },
      jobKind: k,
    });
    await scheduler.upsert({
      key: `${k}:once`,
      rule: { type: 'once', at: new Date('2026-11-21T12:07:00Z') },
      jobKind: k,
    });
    expect(await tick()).toEqual([]);
    at('2026-11-21T12:05:00Z');
    expect(await tick()).toEqual(['2026-11-21T12:05:00.000Z']);
    at('2026-11-21T12:10:00Z');
    expect(await tick()).toEqual(['2026-11-21T12:07:00.000Z']);
    at('2026-11-21T12:15:00Z');
    expect(await tick()).toEqual(['2026-11-21T12:15:00.000Z']);
    expect(await scheduler.get(null, `${k}:once`)).toMatchObject({ enabled: false, nextRunAt: null });
    at('2026-11-22T12:00:00Z');
    expect(await tick()).toEqual(['2026-11-21T12:25:00.000Z']);
  });

  it('fires the occurrences missed while nothing ran once, then keeps to its times', async () => {
    await scheduler.upsert({
      key: `${k}:hourly`,
      rule: { type: 'cron', expression: '0 * * * *', timeZone: 'UTC' },
      jobKind: k,
    });
    expect(await tick()).toEqual(['2026-11-21T12:00:00.000Z']);
    at('2026-11-21T13:00:00Z');
    expect(await tick()).toEqual(['2026-11-21T13:00:00.000Z']);
    // Down for a day and a half: 35 hourly occurrences missed, one job for them.
    at('2026-11-23T00:30:00Z');
    expect(await tick()).toEqual(['2026-11-21T14:00:00.000Z']);
    expect(await tick()).toEqual([]);
    expect((await scheduler.get(null, `${k}:hourly`))?.nextRunAt?.toISOString()).toBe(
      '2026-11-23T01:00:00.000Z',
    );
    expect((await queue.list({ kind: k, pageSize: 100 })).totalCount).toBe(3);
  });

  it('keeps the next run when the same schedule is registered again, and moves it when the rule changes', async () => {
    const input = {
      key: `${k}:sync`,
      rule: { type: 'interval' as const, seconds: 24 * 3600 },
      jobKind: k,
    };
    expect((await scheduler.upsert(input)).nextRunAt?.toISOString()).toBe(T0.toISOString());
    expect(await tick()).toEqual([T0.toISOString()]);
    at('2026-11-21T18:00:00Z'); // an instance restarts: the sync is not due again
    const again = await scheduler.upsert(input);
    expect(again.nextRunAt?.toISOString()).toBe('2026-11-22T12:00:00.000Z');
    expect(await tick()).toEqual([]);
    const changed = await scheduler.upsert({ ...input, rule: { type: 'interval', seconds: 3600 } });
    expect(changed.nextRunAt?.toISOString()).toBe('2026-11-21T18:00:00.000Z');
    const off = await scheduler.upsert({ ...input, enabled: false });
    expect(off).toMatchObject({ enabled: false, nextRunAt: null });
    expect(await tick()).toEqual([]);
    expect(await scheduler.remove(null, `${k}:sync`)).toBe(true);
    expect(await scheduler.remove(null, `${k}:sync`)).toBe(false);
    expect(await scheduler.get(null, `${k}:sync`)).toBeUndefined();
  });

  it('keeps one key per organisation apart from the same key of the system', async () => {
    const org = await tdb.database.db
      .insertInto('organizations')
      .values({ id: crypto.randomUUID(), name: `Org ${k}`, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const rule = { type: 'once' as const, at: T0 };
    const mine = await scheduler.upsert({ organizationId: org.id, key: k, rule, jobKind: k, payload: 'org' });
    const system = await scheduler.upsert({ key: k, rule, jobKind: k, payload: 'system' });
    expect(mine.id).not.toBe(system.id);
    expect(await tick()).toHaveLength(2);
    const jobs = (await queue.list({ kind: k, pageSize: 10 })).items;
    expect(jobs.map((j) => [j.organizationId, j.payload]).sort()).toEqual([
      [null, 'system'],
      [org.id, 'org'],
    ]);
  });

  it('fires each occurrence once when two schedulers tick at the same moments', async () => {
    const count = 12;
    for (let i = 0; i < count; i++)
      await scheduler.upsert({ key: `${k}:${i}`, rule: { type: 'interval', seconds: 60 }, jobKind: k });
    let other: Database | undefined;
    try {
      // On PostgreSQL the second instance ticks through a connection pool of its own.
      other = tdb.url ? await openPostgres(tdb.url, 3) : undefined;
      const second = other ? new Scheduler(other.db, new JobQueue(other.db, clock), clock) : scheduler;
      const fired: Fired[] = [];
      for (let round = 0; round < 5; round++) {
        const ticks = await Promise.all([scheduler.tick(), second.tick(), scheduler.tick(), second.tick()]);
        fired.push(...ticks.flat().filter((f) => f.key.startsWith(k)));
        now = new Date(now.getTime() + MINUTE);
      }
      // Each of the 12 schedules fired at each of the 5 minutes, by one of the four ticks.
      expect(fired).toHaveLength(count * 5);
      expect(new Set(fired.map((f) => `${f.key}@${f.occurrence.toISOString()}`)).size).toBe(count * 5);
      expect(new Set(fired.map((f) => f.jobId)).size).toBe(count * 5);
      expect((await queue.list({ kind: k, pageSize: 100 })).totalCount).toBe(count * 5);
    } finally {
      await other?.close();
    }
  });

  it('refuses a bad cron expression, time zone, interval or key, naming the field', async () => {
    const upsert = (rule: unknown, key = `${k}:bad`) =>
      refusal(() => scheduler.upsert({ key, rule: rule as never, jobKind: k }));
    expect(await upsert({ type: 'cron', expression: '61 * * * *', timeZone: 'UTC' })).toMatch(
      /^\/Rule\/Cron: '61 \* \* \* \*' is not a valid cron expression/,
    );
    expect(await upsert({ type: 'cron', expression: '0 9 * * * *', timeZone: 'UTC' })).toMatch(
      /\/Rule\/Cron: A cron expression has five fields .* has 6/,
    );
    expect(await upsert({ type: 'cron', expression: '0 9 * * *', timeZone: 'Mars/Olympus' })).toMatch(
      /\/Rule\/TimeZone: 'Mars\/Olympus' is not a known IANA time zone/,
    );
    expect(await upsert({ type: 'interval', seconds: 5 })).toMatch(/\/Rule\/Interval: .* from 60 .* not 5/);
    expect(await upsert({ type: 'interval', seconds: 90.5 })).toMatch(/\/Rule\/Interval/);
    expect(await upsert({ type: 'once', at: new Date('nope') })).toMatch(/\/Rule\/StartTime/);
    expect(await upsert({ type: 'weekly' })).toMatch(/\/Rule\/Type/);
    expect(await upsert({ type: 'once', at: T0 }, ' ')).toMatch(/\/Key: A schedule needs a key/);
    expect(await scheduler.get(null, `${k}:bad`)).toBeUndefined();
  });
});

describe('ScheduleOption', () => {
  const start = '2026-11-21T08:30:00.000Z'; // a Saturday, 09:30 in Berlin

  it('turns each mode into a rule and back into the same option', () => {
    const options = [
      { SchedulingMode: 'Once', StartTime: start },
      { SchedulingMode: 'Hourly', StartTime: start, Interval: 6 },
      { SchedulingMode: 'Daily', StartTime: start, TimeZone: 'Europe/Berlin' },
      { SchedulingMode: 'Weekly', StartTime: start, DaysOfWeek: ['Monday', 'Thursday'], TimeZone: 'UTC' },
      { SchedulingMode: 'Monthly', StartTime: start, DayOfMonth: 15, TimeZone: 'UTC' },
      { SchedulingMode: 'Cron', Cron: '30 2 * * 1-5', TimeZone: 'America/New_York' },
    ] satisfies ScheduleOption[];
    for (const option of options) expect(scheduleOptionOfRule(ruleOfScheduleOption(option))).toEqual(option);
    expect(ruleOfScheduleOption({ SchedulingMode: 'None', StartTime: start })).toBeNull();
    expect(scheduleOptionOfRule(null)).toEqual({ SchedulingMode: 'None' });
  });

  it('reads the time of day and the defaults in the time zone', () => {
    expect(
      ruleOfScheduleOption({ SchedulingMode: 'Daily', StartTime: start, TimeZone: 'Europe/Berlin' }),
    ).toMatchObject({
      type: 'cron',
      expression: '30 9 * * *',
      timeZone: 'Europe/Berlin',
    });
    // Saturday 08:30 UTC is already Sunday in Auckland (21:30).
    expect(
      ruleOfScheduleOption({ SchedulingMode: 'Weekly', StartTime: start, TimeZone: 'Pacific/Auckland' }),
    ).toMatchObject({
      expression: '30 21 * * 6',
    });
    expect(ruleOfScheduleOption({ SchedulingMode: 'Monthly', StartTime: start })).toMatchObject({
      expression: '30 8 21 * *',
      timeZone: 'UTC',
    });
  });

  it('refuses an option that lacks what its mode needs or carries what it cannot use', async () => {
    const refused = (option: object) => refusal(() => ruleOfScheduleOption(option as never));
    expect(await refused({ SchedulingMode: 'Daily' })).toMatch(
      /\/Schedule\/StartTime: A Daily schedule needs its StartTime/,
    );
    expect(await refused({ SchedulingMode: 'Cron' })).toMatch(/\/Schedule\/Cron: A Cron schedule needs/);
    expect(await refused({ SchedulingMode: 'Cron', Cron: 'every day' })).toMatch(/\/Schedule\/Cron:/);
    expect(await refused({ SchedulingMode: 'Daily', StartTime: start, Interval: 2 })).toMatch(
      /\/Schedule\/Interval: Only Hourly/,
    );
    expect(await refused({ SchedulingMode: 'Daily', StartTime: start, DayOfMonth: 2 })).toMatch(
      /\/Schedule\/DayOfMonth/,
    );
    expect(await refused({ SchedulingMode: 'Monthly', StartTime: start, DaysOfWeek: ['Monday'] })).toMatch(
      /\/Schedule\/DaysOfWeek/,
    );
    expect(await refused({ SchedulingMode: 'Daily', StartTime: start, TimeZone: 'Nowhere/Land' })).toMatch(
      /\/Schedule\/TimeZone: 'Nowhere\/Land' is not a known IANA time zone/,
    );
    expect(await refused({ SchedulingMode: 'Once', StartTime: 'tomorrow' })).toMatch(/\/Schedule\/StartTime/);
  });
});
