import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { servedDocument } from '../scripts/openapi-document.js';
import { buildApp } from '../src/app.js';
import { compose } from '../src/compose.js';
import { JobRunner } from '../src/jobs/runner.js';
import { JobWorker } from '../src/jobs/worker.js';
import { testConfig } from './helpers/app.js';
import { newTestDatabase, type TestDatabase } from './helpers/databases.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

// The composition root: building the HTTP app starts nothing and connects to nothing; only
// starting the background work (what `rampart serve` does) runs jobs and schedules.
describe('compose', () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await newTestDatabase('embedded');
  });
  afterAll(() => tdb?.drop());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('prints the OpenAPI document (npm run gen:web-types) without starting a job runner or a worker', async () => {
    const runnerStarts = vi.spyOn(JobRunner.prototype, 'start');
    const workerStarts = vi.spyOn(JobWorker.prototype, 'start');
    const workerPolls = vi.spyOn(JobWorker.prototype, 'poll');
    const document = (await servedDocument('latest')) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toContain('/api/latest/imports');
    expect(runnerStarts).not.toHaveBeenCalled();
    expect(workerStarts).not.toHaveBeenCalled();
    expect(workerPolls).not.toHaveBeenCalled();
  });

  it('builds an app that serves but runs no job, until the background work is started', async () => {
    const config = testConfig();
    const composition = await compose(config, { database: tdb.database });
    const runnerStarts = vi.spyOn(JobRunner.prototype, 'start');
    const redisConnects = vi.spyOn(Redis.prototype, 'connect');
    try {
      const { organization } = await composition.services.organizations.ensureFirst();
      // Even with REDIS_URL set (at a port nobody listens on), the app connects to nothing: the
      // throttle's connection is the caller's to give (src/compose.ts, httpApp).
      const { app } = await buildApp(composition.services, {
        config: testConfig({ REDIS_URL: 'redis://127.0.0.1:9' }),
        databaseKind: tdb.database.kind,
        logger: false,
      });
      expect(redisConnects).not.toHaveBeenCalled();
      try {
        expect((await app.inject({ method: 'GET', url: '/api/latest/status' })).statusCode).toBe(200);
        const id = await composition.services.jobs.enqueue('job-purge', null, {
          organizationId: organization.id,
        });
        // Longer than a worker's poll (1 s): a worker would have taken it.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(await composition.services.jobs.get(id)).toMatchObject({ state: 'Queued', attempts: 0 });
        expect(await composition.services.scheduler.get(null, 'job-purge')).toBeUndefined();
        expect(runnerStarts).not.toHaveBeenCalled();

        await composition.startBackground({ log: quiet });
        expect(runnerStarts).toHaveBeenCalledTimes(1);
        await vi.waitFor(
          async () => expect((await composition.services.jobs.get(id))?.state).toBe('Completed'),
          { timeout: 10_000 },
        );
        expect(await composition.services.scheduler.get(null, 'job-purge')).toMatchObject({ enabled: true });
        await expect(composition.startBackground({ log: quiet })).rejects.toThrow(/started already/);
      } finally {
        await app.close();
      }
    } finally {
      await composition.close();
    }
    // The test's database stays open: compose closes only a database it opened.
    await expect(tdb.database.db.selectFrom('jobs').select('id').limit(1).execute()).resolves.toBeDefined();
  });
});
