import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Severity } from '../../../src/db/schema.js';
import type { ServiceContext } from '../../../src/modules/context.js';
import { addDays, daysBetween } from '../../../src/modules/history/days.js';
import { HISTORY_VERSION } from '../../../src/modules/history/service.js';
import type { HistoryScope } from '../../../src/modules/history/types.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../../helpers/databases.js';

// The rebuild from the findings' history gives the same days as the daily job computing them one
// at a time; the daily job catches up missed days and replaces the day it computes again; every
// organisation gets its schedule and, on first start or after an upgrade, a rebuild as a job.
const DAY = 86_400_000;
const START = new Date('2026-09-25T08:00:00Z');

describe.each(DB_KINDS)('history rebuild and the daily job [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  let ctx: ServiceContext;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true });
    ctx = { organizationId: t.org.id, actor: { type: 'system', id: null } };
    const admin = { ...ctx, role: 'Admin' as const };
    t.clock.now = START;
    const assets: string[] = [];
    for (const [i, tags] of [['edge', 'prod'], ['prod'], ['lab']].entries()) {
      const { asset } = await t.services.assets.observe(ctx, {
        kind: 'Host',
        fqdn: `host-${i}.example`,
        tags,
        source: 'Test',
        seenAt: START,
      });
      assets.push(asset.id);
    }
    // 40 findings over 50 days, some fixed, reopened, accepted or false positives on the way.
    const severities: Severity[] = ['Critical', 'High', 'Medium', 'Low', 'Info'];
    for (let i = 0; i < 40; i++) {
      const seen = new Date(START.getTime() + i * DAY + (i % 7) * 3_600_000);
      t.clock.now = seen;
      const { finding } = await t.services.findings.record(ctx, {
        assetId: assets[i % 3]!,
        vulnerability: {
          source: 'Test',
          title: `Weakness ${i}`,
          severity: severities[i % 5]!,
          kev: i % 6 === 0,
        },
        location: { kind: 'None' },
        source: 'Test',
        seenAt: seen,
      });
      if (i % 3 === 0) {
        t.clock.now = new Date(seen.getTime() + (2 + (i % 9)) * DAY);
        await t.services.findings.changeState(admin, finding.id, { state: 'Fixed' });
        if (i % 2 === 0) {
          t.clock.now = new Date(t.clock.now.getTime() + 3 * DAY);
          await t.services.findings.changeState(admin, finding.id, { state: 'Reopened' });
        }
      } else if (i % 5 === 1) {
        t.clock.now = new Date(seen.getTime() + DAY);
        await t.services.findings.changeState(admin, finding.id, {
          state: 'RiskAccepted',
          justification: 'Compensating control',
          until: new Date(t.clock.now.getTime() + 90 * DAY),
        });
      } else if (i % 7 === 2) {
        t.clock.now = new Date(seen.getTime() + 2 * DAY);
        await t.services.findings.changeState(admin, finding.id, {
          state: 'FalsePositive',
          justification: 'Not applicable',
        });
      }
    }
    t.clock.now = new Date('2026-11-21T12:00:00Z');
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  const scopes: HistoryScope[] = [
    { kind: 'Organization' },
    { kind: 'Tag', tag: 'prod' },
    { kind: 'Tag', tag: 'edge' },
    { kind: 'Tag', tag: 'lab' },
  ];
  const everything = async (from: string, to: string) =>
    Promise.all(scopes.map(async (s) => (await t.services.history.trend(ctx, s, { from, to })).days));

  it('rebuilds every day since the first finding, as the daily job computes them one by one', async () => {
    await t.services.history.runSnapshot(t.org.id, { rebuild: true });
    const build = await t.services.history.build(t.org.id);
    const first = '2026-09-25';
    const last = '2026-11-20';
    const total = daysBetween(first, last) + 1;
    expect(build).toEqual({
      state: 'Completed',
      daysDone: total,
      daysTotal: total,
      firstDay: first,
      lastDay: last,
    });
    const rebuilt = await everything(first, last);
    expect(rebuilt[0]).toHaveLength(total);
    // The rebuild went in chunks; a few figures show it is the history, not a copy of today.
    const org = rebuilt[0]!;
    expect(org[0]!.new).toBeGreaterThan(0);
    expect(org.reduce((n, d) => n + d.new, 0)).toBe(40);
    expect(org.reduce((n, d) => n + d.fixed, 0)).toBe(14);
    expect(org.reduce((n, d) => n + d.reopened, 0)).toBe(7);
    expect(org.some((d) => d.mttr.Critical !== null)).toBe(true);

    for (let day = first; day <= last; day = addDays(day, 1))
      await t.services.history.computeDays(t.org.id, day, day);
    expect(await everything(first, last)).toEqual(rebuilt);
  });

  it('computes the day that ended, catches up missed days, and replaces a day computed again', async () => {
    t.clock.now = new Date('2026-11-22T00:10:00Z');
    await t.services.history.runSnapshot(t.org.id, { rebuild: false });
    let days = (await t.services.history.trend(ctx, { kind: 'Organization' }, { from: '2026-11-19' })).days;
    expect(days.map((d) => d.date)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21']);
    await t.services.history.runSnapshot(t.org.id, { rebuild: false });
    days = (await t.services.history.trend(ctx, { kind: 'Organization' }, { from: '2026-11-19' })).days;
    expect(days.map((d) => d.date)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21']);
    // No instance ran for three days.
    t.clock.now = new Date('2026-11-25T06:00:00Z');
    await t.services.history.runSnapshot(t.org.id, { rebuild: false });
    days = (await t.services.history.trend(ctx, { kind: 'Organization' }, { from: '2026-11-19' })).days;
    expect(days.map((d) => d.date)).toEqual([
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
    ]);
    expect((await t.services.history.build(t.org.id))?.lastDay).toBe('2026-11-24');
    t.clock.now = new Date('2026-11-21T12:00:00Z');
  });

  it('schedules every organisation at 00:10 in its time zone and rebuilds a new or upgraded history as a job', async () => {
    const fresh = await t.services.organizations.create('Fresh');
    const freshCtx: ServiceContext = { organizationId: fresh.id, actor: { type: 'system', id: null } };
    t.clock.now = new Date('2026-10-01T10:00:00Z');
    const { asset } = await t.services.assets.observe(freshCtx, {
      kind: 'Host',
      fqdn: 'fresh.example',
      source: 'Test',
      seenAt: t.clock.now,
    });
    await t.services.findings.record(freshCtx, {
      assetId: asset.id,
      vulnerability: { source: 'Test', title: 'Old weakness', severity: 'High' },
      location: { kind: 'None' },
      source: 'Test',
      seenAt: t.clock.now,
    });
    t.clock.now = new Date('2026-11-21T12:00:00Z');
    await t.services.history.prepare();
    await t.services.history.prepare();
    const schedule = await t.services.scheduler.get(fresh.id, 'history-snapshot');
    expect(schedule).toMatchObject({
      jobKind: 'history-snapshot',
      rule: { type: 'cron', expression: '10 0 * * *', timeZone: 'UTC' },
      enabled: true,
    });
    expect(schedule?.nextRunAt?.toISOString()).toBe('2026-11-22T00:10:00.000Z');
    // The rebuild runs as a job, once, whoever asked twice.
    await expect
      .poll(async () => (await t.services.history.build(fresh.id))?.state, { timeout: 30_000, interval: 100 })
      .toBe('Completed');
    const job = await t.services.jobs.findByDedupKey(
      'history-snapshot',
      `history-rebuild:${fresh.id}:${HISTORY_VERSION}`,
    );
    expect(job?.state).toBe('Completed');
    const days = (
      await t.services.history.trend(
        freshCtx,
        { kind: 'Organization' },
        { from: '2026-09-30', to: '2026-11-20' },
      )
    ).days;
    expect(days[0]).toMatchObject({ date: '2026-10-01', new: 1, open: { High: 1 } });
    expect(days.at(-1)).toMatchObject({ date: '2026-11-20', new: 0, open: { High: 1 } });

    // An upgrade that counts differently: the stored version differs, the history is rebuilt.
    await tdb.database.db
      .updateTable('finding_history_builds')
      .set({ version: HISTORY_VERSION - 1 })
      .where('organization_id', '=', fresh.id)
      .execute();
    await t.services.history.prepare();
    await expect
      .poll(async () => (await t.services.history.build(fresh.id))?.state, { timeout: 30_000, interval: 100 })
      .toBe('Completed');
    const rebuilt = await tdb.database.db
      .selectFrom('finding_history_builds')
      .select('version')
      .where('organization_id', '=', fresh.id)
      .executeTakeFirstOrThrow();
    expect(rebuilt.version).toBe(HISTORY_VERSION);
  });
});
