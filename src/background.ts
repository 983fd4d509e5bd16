import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { type Config, officialSourcesOf, syncUrlsOf } from './config.js';
import type { Database, DatabaseKind } from './db/database.js';
import { maintainTables, tablesNeedUs } from './db/maintenance.js';
import type { DB } from './db/schema.js';
import { handlerOf, JOB_KINDS, type JobKind, type JobServices } from './jobs/catalogue.js';
import { JobRunner } from './jobs/runner.js';
import { INTEL_SYNC_JOB, IntelSync } from './modules/intel/sync.js';
import type { ScanNodeAgent } from './scanning/node/agent.js';
import { createLocalNode } from './scanning/node/local.js';
import type { RunExecutor, ScanKind } from './scanning/types.js';
import type { Services } from './services.js';
import { VERSION } from './version.js';

// What runs beside the requests of a server, in one place: the durable jobs of the catalogue
// (src/jobs/catalogue.ts), the system schedules that enqueue some of them (risk-acceptance
// expiry, the import sweep, the job purge, the intelligence sync) and this process's local tasks,
// on one JobRunner, plus the local scan node. Only `rampart serve` starts it (and the tests that
// need it, explicitly, through src/compose.ts): building the HTTP app starts nothing.

export interface BackgroundOptions {
  services: Services;
  databaseKind: DatabaseKind;
  /** The database itself, for the table maintenance below. */
  db?: Kysely<DB>;
  /**
   * Analyse and vacuum the tables that changed, as autovacuum would (src/db/maintenance.ts);
   * startBackground decides it with tablesNeedUs.
   */
  maintainTables?: boolean;
  /** Runs the intelligence sync under the installation-wide knowledge-base lock (Database.exclusive). */
  exclusive: Database['exclusive'];
  log: Pick<FastifyBaseLogger, 'warn' | 'error' | 'info'>;
  config: Pick<Config, 'lastUsedFlushSeconds' | 'intelSyncUrls' | 'intelSyncHours'> &
    Partial<Pick<Config, 'shutdownTimeoutSeconds'>> &
    Partial<Parameters<typeof officialSourcesOf>[0]>;
  /**
   * Take up at once the work a stopped process left (default true): with the embedded database
   * the leases of Running jobs end now, and unfinished intelligence loads are marked Failed.
   */
  resumeInterrupted?: boolean;
  /** The scan node inside the server and its engines (RAMPART_LOCAL_SCAN_NODE), or none. */
  localScanNode?: { executors: ReadonlyMap<ScanKind, RunExecutor> } | false;
}

export interface Background {
  /**
   * Stops the local scan node, the scheduler and the worker, waits for running jobs and imports,
   * records the last API key use. The services stay usable: their owner closes the database.
   */
  stop(): Promise<void>;
}

/** The system schedules, each named for the kind of job it enqueues (src/jobs/catalogue.ts). */
export const RISK_ACCEPTANCE_EXPIRY_JOB = 'risk-acceptance-expiry' satisfies JobKind;
export const IMPORT_SWEEP_JOB = 'import-sweep' satisfies JobKind;
export const JOB_PURGE_JOB = 'job-purge' satisfies JobKind;
export const EVENTS_DISPATCH_JOB = 'events-dispatch' satisfies JobKind;
export const EVENTS_PURGE_JOB = 'events-purge' satisfies JobKind;
export const SLA_WATCH_JOB = 'sla-watch' satisfies JobKind;
/** How often each instance looks for events waiting for dispatch. */
const EVENTS_TICK_MS = 2_000;
export const NOTIFICATION_SWEEP_JOB = 'notification-sweep' satisfies JobKind;
export const NOTIFICATION_DIGEST_JOB = 'notification-digest' satisfies JobKind;
/** How often every organisation's history schedule and build are checked (new organisations). */
const HISTORY_PREPARE_MS = 600_000;
export const REPORT_PURGE_JOB = 'report-purge' satisfies JobKind;
export const AUDIT_PURGE_JOB = 'audit-purge' satisfies JobKind;
export const IDEMPOTENCY_PURGE_JOB = 'idempotency-purge' satisfies JobKind;
/** How often the activity counters are read for table maintenance (autovacuum's naptime is 60 s). */
const TABLE_MAINTENANCE_MS = 10_000;

/** The intelligence sync of this process, or undefined when it has nothing to sync. */
function intelSyncOf(options: BackgroundOptions): ((signal: AbortSignal) => Promise<void>) | undefined {
  const { services, log, config } = options;
  const urls = syncUrlsOf(config);
  const sources = officialSourcesOf(config);
  if (!sources && urls.length === 0) return undefined;
  const sync = new IntelSync(
    services.intel,
    { urls, sources, clock: services.clock, freshForMs: (config.intelSyncHours * 3_600_000) / 2 },
    (message, details) => log.info(details ?? {}, message),
  );
  return async (signal) => {
    await options.exclusive('knowledge-base', () => sync.run(signal));
  };
}

/**
 * The jobs a server runs, its system schedules and its local tasks, on one runner (not started).
 * Every kind of the job catalogue gets its one handler; `rampart import` builds only the import
 * worker (src/cli/import.ts).
 */
export function buildRunner(options: BackgroundOptions): JobRunner {
  const { services, log, config } = options;
  const runner = new JobRunner(services.jobs, services.scheduler, {
    worker: {
      onError: (error, job) => log.warn({ err: error, jobId: job?.id, kind: job?.kind }, 'job failed'),
      onFinished: (job, outcome, seconds) => services.metrics?.jobFinished(job.kind, outcome, seconds),
      // Half the shutdown's time for running jobs to finish; then they are stopped and requeued,
      // leaving the other half for them to return and for the database to close.
      ...(config.shutdownTimeoutSeconds ? { stopGraceMs: (config.shutdownTimeoutSeconds * 1000) / 2 } : {}),
    },
    onError: (error, what) => log.warn({ err: error }, `${what} failed`),
  });
  // The intelligence sync, every RAMPART_INTEL_SYNC_HOURS: the official sources unless
  // RAMPART_INTEL_SYNC=off, and any configured URLs. The schedule fires once per period across
  // instances. On PostgreSQL it waits for a knowledge-base load under way (the same lock). A run
  // taken up after a stopped one (the job's next attempt) passes over the sources already synced
  // this period and resumes NVD at its committed page. With nothing to sync the schedule is
  // removed and its jobs left to others: this process registers no handler for them.
  const syncIntel = intelSyncOf(options);
  const jobServices: JobServices = { ...services, ...(syncIntel ? { syncIntel } : {}) };
  for (const kind of JOB_KINDS)
    if (kind !== INTEL_SYNC_JOB || syncIntel) runner.register(kind, handlerOf(kind, jobServices));
  if (syncIntel)
    runner.schedule({
      key: INTEL_SYNC_JOB,
      rule: { type: 'interval', seconds: config.intelSyncHours * 3600 },
      jobKind: INTEL_SYNC_JOB,
      maxAttempts: 3,
    });
  else runner.unschedule(INTEL_SYNC_JOB);
  runner.schedule({
    key: RISK_ACCEPTANCE_EXPIRY_JOB,
    rule: { type: 'interval', seconds: 60 },
    jobKind: RISK_ACCEPTANCE_EXPIRY_JOB,
    maxAttempts: 1,
  });
  runner.schedule({
    key: IMPORT_SWEEP_JOB,
    rule: { type: 'interval', seconds: 60 },
    jobKind: IMPORT_SWEEP_JOB,
    maxAttempts: 1,
  });
  runner.schedule({
    key: JOB_PURGE_JOB,
    rule: { type: 'interval', seconds: 3600 },
    jobKind: JOB_PURGE_JOB,
    maxAttempts: 1,
  });
  runner.schedule({
    key: EVENTS_PURGE_JOB,
    rule: { type: 'interval', seconds: 3600 },
    jobKind: EVENTS_PURGE_JOB,
    maxAttempts: 1,
  });
  runner.schedule({
    key: SLA_WATCH_JOB,
    rule: { type: 'interval', seconds: 3600 },
    jobKind: SLA_WATCH_JOB,
    maxAttempts: 1,
  });
  // Events wait in the outbox from their change's commit: every instance looks for them every
  // two seconds (a small partial index) and enqueues one events-dispatch job, deduplicated, so
  // one dispatcher runs at a time across instances, and a failing one keeps its backoff (the
  // queued retry is the unfinished job the dedup key finds). A schedule fires at most once a minute.
  runner.local({
    name: 'events tick',
    everyMs: EVENTS_TICK_MS,
    run: async () => {
      if (await services.events.hasPending())
        await services.jobs.enqueue(EVENTS_DISPATCH_JOB, null, {
          dedupKey: EVENTS_DISPATCH_JOB,
          maxAttempts: 10,
        });
    },
  });
  // Notification deliveries whose job a kill or a lost wake-up left without one are taken up.
  runner.schedule({
    key: NOTIFICATION_SWEEP_JOB,
    rule: { type: 'interval', seconds: 60 },
    jobKind: NOTIFICATION_SWEEP_JOB,
    maxAttempts: 1,
  });
  // Daily digests go out in the first hour after midnight of each organisation's time zone.
  runner.schedule({
    key: NOTIFICATION_DIGEST_JOB,
    rule: { type: 'interval', seconds: 3600 },
    jobKind: NOTIFICATION_DIGEST_JOB,
    maxAttempts: 1,
  });
  // Old report files go (retention, docs/reports.md).
  runner.schedule({
    key: REPORT_PURGE_JOB,
    rule: { type: 'interval', seconds: 3600 },
    jobKind: REPORT_PURGE_JOB,
    maxAttempts: 1,
  });
  runner.schedule({
    key: AUDIT_PURGE_JOB,
    rule: { type: 'interval', seconds: 86_400 },
    jobKind: AUDIT_PURGE_JOB,
    maxAttempts: 3,
  });
  // Idempotency keys past their 24 hours go (docs/idempotency.md).
  runner.schedule({
    key: IDEMPOTENCY_PURGE_JOB,
    rule: { type: 'interval', seconds: 3600 },
    jobKind: IDEMPOTENCY_PURGE_JOB,
    maxAttempts: 1,
  });
  // Scan runs whose node fell silent (no heartbeat for 60 s) are queued again, at most twice,
  // then Failed with the reason. Checked every 15 s by every instance (a schedule fires at most
  // once a minute); the update takes each run once, whichever instance gets to it.
  runner.local({
    name: 'scan run requeue',
    everyMs: 15_000,
    run: () => services.scanRuns.requeueSilent(),
  });
  // Autovacuum's work, where nobody else does it (see tablesNeedUs).
  const db = options.db;
  if (options.maintainTables && db) {
    // One pass at a time: a vacuum of a large table may outlast the interval.
    let pass: Promise<unknown> | undefined;
    runner.local({
      name: 'table maintenance',
      everyMs: TABLE_MAINTENANCE_MS,
      run: () => {
        pass ??= maintainTables(db).finally(() => {
          pass = undefined;
        });
        return pass;
      },
    });
  }
  // API keys' last use is buffered in this process's memory: only this process can flush it, so
  // it is a local task of the runner, not a job another instance might claim.
  runner.local({
    name: 'API key use flush',
    everyMs: config.lastUsedFlushSeconds * 1000,
    run: () => services.apiKeys.flushLastUsed(),
  });
  return runner;
}

export async function startBackground(options: BackgroundOptions): Promise<Background> {
  const { services, log } = options;
  const embedded = options.databaseKind === 'embedded';
  const resume = options.resumeInterrupted !== false;
  services.importFailedUnexpectedly.subscribe(async (error, importId) =>
    log.error({ err: error, importId }, 'import failed unexpectedly'),
  );
  if (resume)
    await services.intel
      .failInterrupted(embedded ? 0 : 24 * 3600)
      .catch((error) => log.warn({ err: error }, 'could not end interrupted intelligence loads'));
  const maintain = options.db ? await tablesNeedUs(options.db) : false;
  if (maintain)
    log.warn('autovacuum is off on this PostgreSQL server: Rampart analyses and vacuums its own tables');
  const runner = buildRunner({ ...options, maintainTables: maintain });
  // Only this process uses the embedded database: the jobs it finds Running were left by a
  // process that stopped, and are taken up now rather than when their leases run out.
  await runner.start({ expireLeases: resume && embedded });
  // Every organisation's daily history schedule (in its time zone) and, on first start or after
  // an upgrade, the rebuild of its history as a job: checked at start and every 10 minutes (new
  // organisations), cheap when nothing changed (an unchanged schedule keeps its next run). Not
  // awaited: start-up waits neither for the check nor for the rebuild, which is a job. Not a
  // local task of the runner, which runs those once more when it stops.
  const prepareHistory = () =>
    services.history.prepare().catch((error) => log.warn({ err: error }, 'could not prepare the history'));
  let preparing = prepareHistory();
  const historyTimer = setInterval(() => {
    preparing = preparing.then(prepareHistory);
  }, HISTORY_PREPARE_MS);
  historyTimer.unref();
  // What processes killed mid-import left (half-uploaded files, staged rows), cleared at start
  // rather than at the sweep's first schedule.
  if (resume)
    await services.imports
      .sweep()
      .then((swept) => {
        if (swept.abandoned + swept.staged + swept.files > 0) log.info(swept, 'import leftovers swept');
      })
      .catch((error) => log.warn({ err: error }, 'could not sweep import leftovers'));
  // The scan node inside the server; a failure to start it leaves the rest of the server serving.
  let localNode: ScanNodeAgent | undefined;
  if (options.localScanNode) {
    localNode = await createLocalNode({
      scanNodes: services.scanNodes,
      scanRuns: services.scanRuns,
      clock: services.clock,
      executors: options.localScanNode.executors,
      version: VERSION,
      releaseHeld: resume && embedded,
      log: (message, details) => log.info({ scanNode: 'local', ...details }, message),
    }).catch((error) => {
      log.warn({ err: error }, 'could not start the local scan node');
      return undefined;
    });
    localNode?.start();
  }
  return {
    stop: async () => {
      clearInterval(historyTimer);
      await preparing;
      await localNode?.stop();
      await runner.stop();
      await services.imports.idle();
    },
  };
}
