import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildRunner,
  EVENTS_DISPATCH_JOB,
  EVENTS_PURGE_JOB,
  IDEMPOTENCY_PURGE_JOB,
  IMPORT_SWEEP_JOB,
  JOB_PURGE_JOB,
  NOTIFICATION_SWEEP_JOB,
  REPORT_PURGE_JOB,
  RISK_ACCEPTANCE_EXPIRY_JOB,
  SLA_WATCH_JOB,
} from '../../src/background.js';
import {
  catalogueProblems,
  JOB_CATALOGUE,
  JOB_KINDS,
  JobPayloadInvalid,
  payloadProblem,
} from '../../src/jobs/catalogue.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { DISCOVERY_REPORTED_JOB, SCHEDULED_DISCOVERY_JOB } from '../../src/modules/discoveryscans/service.js';
import { EMAIL_DIGEST_JOB, EMAIL_SEND_JOB } from '../../src/modules/emailnotifications/service.js';
import { HISTORY_SNAPSHOT_JOB } from '../../src/modules/history/service.js';
import { IMPORT_JOB } from '../../src/modules/imports/service.js';
import { INTEL_SYNC_JOB } from '../../src/modules/intel/sync.js';
import { DELIVER_JOB } from '../../src/modules/notifications/service.js';
import { REPORT_JOB } from '../../src/modules/reports/schedules.js';
import { SCHEDULED_SYSTEM_JOB, SYSTEM_INGEST_JOB } from '../../src/modules/systemscans/service.js';
import { SCHEDULED_WEB_JOB, WEB_INGEST_JOB } from '../../src/modules/webscans/service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DB_KINDS, newTestDatabase, type TestDatabase } from '../helpers/databases.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** The kinds the code names where it enqueues or schedules jobs (each module's constants). */
const NAMED_KINDS = [
  IMPORT_JOB,
  INTEL_SYNC_JOB,
  RISK_ACCEPTANCE_EXPIRY_JOB,
  IMPORT_SWEEP_JOB,
  JOB_PURGE_JOB,
  SCHEDULED_DISCOVERY_JOB,
  DISCOVERY_REPORTED_JOB,
  SCHEDULED_SYSTEM_JOB,
  SYSTEM_INGEST_JOB,
  SCHEDULED_WEB_JOB,
  WEB_INGEST_JOB,
  EVENTS_DISPATCH_JOB,
  EVENTS_PURGE_JOB,
  EMAIL_SEND_JOB,
  EMAIL_DIGEST_JOB,
  SLA_WATCH_JOB,
  HISTORY_SNAPSHOT_JOB,
  REPORT_JOB,
  REPORT_PURGE_JOB,
  IDEMPOTENCY_PURGE_JOB,
];

describe('the job catalogue checker', () => {
  it('reports a kind without a handler, a handler without a kind and a named kind that is none', () => {
    const broken = {
      'has-both': { payload: Type.Null(), handle: async () => {} },
      'no-handler': { payload: Type.Null() },
      'no-payload': { handle: async () => {} },
      'never-registered': { payload: Type.Null(), handle: async () => {} },
    };
    expect(catalogueProblems(broken, ['has-both', 'no-payload', 'stray'], ['has-both', 'typo'])).toEqual([
      'job kind no-handler has no handler',
      'job kind no-payload has no payload schema',
      'job kind never-registered has a handler no worker registers',
      'a handler is registered for stray, not a kind of job',
      'typo is named as a job kind but is not one',
    ]);
    expect(catalogueProblems(broken, ['has-both', 'never-registered', 'no-payload'])).not.toEqual([]);
    expect(catalogueProblems({ 'has-both': broken['has-both'] }, ['has-both'], ['has-both'])).toEqual([]);
  });
});

describe.each(DB_KINDS)('the job catalogue [%s]', (kind) => {
  let tdb: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    tdb = await newTestDatabase(kind);
    t = await buildTestApp(tdb.database);
  });
  afterAll(async () => {
    await t?.close();
    await tdb?.drop();
  });

  /** The runner of `rampart serve`, with an intelligence sync configured (a URL nobody serves). */
  const serveRunner = (intelSyncUrls?: string): JobRunner =>
    buildRunner({
      services: t.services,
      databaseKind: tdb.database.kind,
      exclusive: tdb.database.exclusive,
      log: quiet,
      config: { lastUsedFlushSeconds: 3600, intelSyncHours: 24, ...(intelSyncUrls ? { intelSyncUrls } : {}) },
    });

  it('has one handler per kind: the server registers every kind, and no other', () => {
    const runner = serveRunner('http://127.0.0.1:9/kev.json');
    const named = [...NAMED_KINDS, ...runner.systemSchedules.map((s) => s.jobKind)];
    expect(catalogueProblems(JOB_CATALOGUE, runner.worker.kinds, named)).toEqual([]);
    expect([...runner.worker.kinds].sort()).toEqual([...JOB_KINDS].sort());
    expect(JOB_KINDS).toHaveLength(23);
  });

  it('leaves the sync jobs to other instances when this one has nothing to sync', () => {
    const runner = serveRunner();
    expect(runner.worker.kinds).not.toContain(INTEL_SYNC_JOB);
    expect(catalogueProblems(JOB_CATALOGUE, runner.worker.kinds)).toEqual([
      `job kind ${INTEL_SYNC_JOB} has a handler no worker registers`,
    ]);
  });

  it('keeps the payloads stored rows carry: the shapes the modules enqueue, and imports without a host', () => {
    const actor = { type: 'user', id: '01900000-0000-7000-8000-000000000001' };
    const imported = {
      importId: 'i',
      organizationId: 'o',
      actor,
      path: '/var/lib/rampart/imports/x',
      format: 'nessus',
      confidence: 1,
      scopeName: null,
    };
    expect(payloadProblem(IMPORT_JOB, imported)).toBeNull();
    expect(payloadProblem(IMPORT_JOB, { ...imported, host: 'a', userId: 'u' })).toBeNull();
    expect(payloadProblem(SCHEDULED_SYSTEM_JOB, { scanId: 's' })).toBeNull();
    expect(payloadProblem(SYSTEM_INGEST_JOB, { runId: 'r' })).toBeNull();
    expect(payloadProblem(DISCOVERY_REPORTED_JOB, { scanId: 's', runId: 'r' })).toBeNull();
    expect(payloadProblem(WEB_INGEST_JOB, { scanId: 's', runId: 'r' })).toBeNull();
    expect(payloadProblem(JOB_PURGE_JOB, null)).toBeNull();
  });

  it('refuses at enqueue a payload that is not its kind’s, and a kind the catalogue lacks', async () => {
    const bad = { runId: 42 } as unknown as { runId: string };
    await expect(t.services.jobs.enqueue(SYSTEM_INGEST_JOB, bad)).rejects.toThrow(JobPayloadInvalid);
    await expect(t.services.jobs.enqueue(SYSTEM_INGEST_JOB, bad)).rejects.toThrow(
      /Invalid payload for a system-scan\.ingest job: \/runId/,
    );
    await expect(
      t.services.jobs.enqueue('system-scan-ingest' as typeof SYSTEM_INGEST_JOB, { runId: 'r' }),
    ).rejects.toThrow(/system-scan-ingest is not a kind of job in the catalogue/);
    expect(
      (await t.services.jobs.list({ kind: SYSTEM_INGEST_JOB, pageSize: 10 })).items.filter(
        (j) => (j.payload as { runId?: unknown }).runId === 42,
      ),
    ).toEqual([]);
  });

  it('fails at claim, at once and with the reason, a stored job whose payload is not its kind’s', async () => {
    const runner = serveRunner();
    const id = await t.services.jobs.enqueueUnchecked(
      WEB_INGEST_JOB,
      { scanId: 's' },
      { organizationId: t.org.id, maxAttempts: 3 },
    );
    await runner.worker.drain();
    await runner.stop();
    const job = await t.services.jobs.get(id);
    expect(job).toMatchObject({ state: 'Failed', attempts: 1 });
    expect(job?.lastError).toMatch(/^Invalid payload for a web-scan\.ingest job: .*runId/);
  });
});
