import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildRunner, IMPORT_SWEEP_JOB, RISK_ACCEPTANCE_EXPIRY_JOB } from '../../src/background.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { JobDeferred } from '../../src/jobs/worker.js';
import { LocalInvalidationBus } from '../../src/lib/invalidation-bus.js';
import { IMPORT_JOB, type ImportJob, importJobKey } from '../../src/modules/imports/service.js';
import { spoolReport } from '../../src/modules/imports/upload.js';
import { buildServices } from '../../src/services.js';
import { buildTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { estate, nessusReport } from '../modules/imports/nessus-report.js';

// Issue 14: one runner per process ties the worker, the scheduler and the local tasks together.
describe.each(DB_KINDS)('job runner [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-runner-'));

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database, { background: true, env: { RAMPART_IMPORT_DIR: dir } });
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const options = () => ({
    services: t.services,
    databaseKind: tdb.database.kind,
    exclusive: tdb.database.exclusive,
    log: { info: () => {}, warn: () => {}, error: () => {} },
    config: { lastUsedFlushSeconds: 3600, intelSyncHours: 24 },
  });

  it('starts a job this process enqueues at once, not at the next poll', async () => {
    let ran = 0;
    // Polls once an hour: only the nudge can start the job while the test waits.
    const runner = new JobRunner(t.services.jobs, t.services.scheduler, {
      worker: { pollMs: 3_600_000 },
    }).register('runner-nudge', async () => {
      ran += 1;
    });
    await runner.start({ schedules: false });
    try {
      const id = await t.services.jobs.enqueueUnchecked('runner-nudge', {});
      await vi.waitFor(async () => expect((await t.services.jobs.get(id))?.state).toBe('Completed'), {
        timeout: 10_000,
      });
      expect(ran).toBe(1);
    } finally {
      await runner.stop();
    }
  });

  it('keeps running when a local task throws before it returns, or a claim fails: neither ends the process', async () => {
    const errors: string[] = [];
    let calls = 0;
    // A queue whose claims fail, as a database that went away does.
    const failing = Object.create(t.services.jobs, {
      claim: { value: async () => Promise.reject(new Error('the database went away')) },
    });
    const runner = new JobRunner(failing, t.services.scheduler, {
      worker: { pollMs: 20, onError: (error) => errors.push((error as Error).message) },
      onError: (error, what) => errors.push(`${what}: ${(error as Error).message}`),
    })
      .register('runner-claim-fails', async () => {})
      .local({
        name: 'throws at once',
        everyMs: 20,
        run: () => {
          calls += 1;
          throw new Error('thrown before a promise');
        },
      });
    await runner.start({ schedules: false });
    try {
      await vi.waitFor(() => expect(calls).toBeGreaterThan(2), { timeout: 10_000 });
      await vi.waitFor(
        () => expect(errors.filter((e) => e === 'the database went away').length).toBeGreaterThan(2),
        { timeout: 10_000 },
      );
      expect(errors).toContain('throws at once: thrown before a promise');
    } finally {
      await runner.stop().catch(() => {});
    }
  });

  it('registers the system schedules at start, and runs local tasks a last time at stop', async () => {
    const runner = buildRunner(options());
    let flushed = 0;
    runner.local({
      name: 'count',
      everyMs: 3_600_000,
      run: async () => {
        flushed += 1;
      },
    });
    await runner.start();
    await runner.stop();
    expect(flushed).toBe(1);
    for (const key of [RISK_ACCEPTANCE_EXPIRY_JOB, IMPORT_SWEEP_JOB])
      expect(await t.services.scheduler.get(null, key)).toMatchObject({ enabled: true, jobKind: key });
    // No sync URLs: no sync schedule.
    expect(await t.services.scheduler.get(null, 'intel-sync')).toBeUndefined();
    // The expiry ran as a job when it was first due (at start), by one of the instances' workers.
    await vi.waitFor(
      async () =>
        expect(
          (await t.services.jobs.list({ kind: RISK_ACCEPTANCE_EXPIRY_JOB, state: 'Completed', pageSize: 10 }))
            .totalCount,
        ).toBe(1),
      { timeout: 10_000 },
    );
  });

  it('ends an import whose job was given up as Failed and removes its file, and leaves one whose job runs alone', async () => {
    // A database of its own with no runner: nothing runs the import's job but the test.
    const own = await newTestDatabase(kind);
    try {
      let now = new Date('2026-11-21T12:00:00Z');
      const services = buildServices(
        own.database,
        () => new Date(now),
        new LocalInvalidationBus(),
        testConfig(),
      );
      const { organization } = await services.organizations.ensureFirst();
      const ctx = { organizationId: organization.id, actor: { type: 'system' as const, id: null } };
      const file = path.join(dir, 'given-up.nessus');
      fs.writeFileSync(file, nessusReport(estate(1, 1)));
      const report = await spoolReport(fs.createReadStream(file), path.join(dir, 'uploads'), 1 << 20);
      const submitted = await services.imports.submit(ctx, { report, fileName: 'given-up.nessus' });
      expect(submitted.state).toBe('Queued');
      // An instance whose disk lacks the report (RAMPART_IMPORT_DIR not shared) leaves it to the one that has it.
      const queued = await services.jobs.findByDedupKey(IMPORT_JOB, importJobKey(submitted.id));
      const payload = queued!.payload as ImportJob;
      expect(payload).toMatchObject({ importId: submitted.id, path: report.path, host: os.hostname() });
      await expect(
        services.imports.runJob(
          { ...payload, host: 'another-host', path: `${report.path}.elsewhere` },
          false,
        ),
      ).rejects.toBeInstanceOf(JobDeferred);
      expect((await services.imports.get(ctx, submitted.id)).state).toBe('Queued');
      // Each attempt's process dies: its worker claims the job and is never heard of again.
      for (let attempt = 1; attempt <= 3; attempt++) {
        expect(await services.jobs.claim(`dead-${attempt}`, [IMPORT_JOB], 60_000, 1)).toHaveLength(1);
        expect(await services.imports.failAbandoned()).toBe(0); // its job may still end it
        now = new Date(now.getTime() + 61_000);
      }
      expect(await services.jobs.claim('next', [IMPORT_JOB], 60_000, 1)).toEqual([]);
      expect(await services.jobs.findByDedupKey(IMPORT_JOB, importJobKey(submitted.id))).toMatchObject({
        state: 'Failed',
        attempts: 3,
      });
      expect(fs.existsSync(report.path)).toBe(true);
      expect(await services.imports.failAbandoned()).toBe(1);
      const ended = await services.imports.get(ctx, submitted.id);
      expect(ended).toMatchObject({ state: 'Failed' });
      expect(ended.error).toMatch(/interrupted 3 times/);
      expect(fs.existsSync(report.path)).toBe(false);
      expect(await services.imports.failAbandoned()).toBe(0);
    } finally {
      await own.drop();
    }
  });
});
