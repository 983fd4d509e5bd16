import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { Job } from './types.js';

// Every kind of durable job, in one table: the payload it carries (a TypeBox schema, checked when
// the job is enqueued and again when a worker claims it) and the one handler that runs it. The
// kind strings and payload shapes are stored in the jobs and job_schedules tables: changing one
// strands the rows that already name it, so a kind is renamed only with a migration.

const ScanPayload = Type.Object({ scanId: Type.String({ minLength: 1 }) });
const RunPayload = Type.Object({ runId: Type.String({ minLength: 1 }) });
const ScanRunPayload = Type.Object({
  scanId: Type.String({ minLength: 1 }),
  runId: Type.String({ minLength: 1 }),
});
/** System jobs fired by a schedule without a payload: the scheduler stores it as null. */
const NoPayload = Type.Null();

/** What an import's job carries: all it takes to run the import, in any process. */
export const ImportJobPayload = Type.Object({
  importId: Type.String({ minLength: 1 }),
  organizationId: Type.String({ minLength: 1 }),
  actor: Type.Object({
    type: Type.Union([
      Type.Literal('user'),
      Type.Literal('apikey'),
      Type.Literal('system'),
      Type.Literal('cli'),
    ]),
    id: Type.Union([Type.String(), Type.Null()]),
  }),
  userId: Type.Optional(Type.String()),
  /** The stored report (in RAMPART_IMPORT_DIR), kept until the import has ended. */
  path: Type.String({ minLength: 1 }),
  /**
   * The host that stored it: another host without a shared RAMPART_IMPORT_DIR leaves it to that
   * one. Jobs enqueued before several hosts shared a database carry none.
   */
  host: Type.Optional(Type.String()),
  format: Type.String(),
  confidence: Type.Number(),
  scopeName: Type.Union([Type.String(), Type.Null()]),
});
export type ImportJobPayload = Static<typeof ImportJobPayload>;

/**
 * What a report's job carries: the report (run) to make, or, from a report definition's schedule,
 * the definition whose report the job makes (the job's id becomes the report's, so that a retry
 * makes the same report rather than another).
 */
export const ReportJobPayload = Type.Union([
  Type.Object({ reportId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ definitionId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
]);
export type ReportJobPayload = Static<typeof ReportJobPayload>;

/** Finished jobs are kept this long for GET /jobs, then purged. */
const KEEP_FINISHED_JOBS_DAYS = 7;

/**
 * What the handlers call, by the little each uses (the service graph provides it; see
 * src/background.ts). Declared here rather than imported so that the catalogue depends on no
 * module: the modules' services enqueue through it.
 */
export interface JobServices {
  imports: {
    runJob(job: ImportJobPayload, lastAttempt: boolean, signal?: AbortSignal): Promise<void>;
    sweep(): Promise<unknown>;
  };
  findings: { expireRiskAcceptances(): Promise<unknown>; watch(): Promise<unknown> };
  jobs: { purgeFinished(before: Date): Promise<unknown> };
  discoveryScans: {
    startScheduled(organizationId: string, scanId: string): Promise<unknown>;
    announceReport(organizationId: string, scanId: string, runId: string): Promise<void>;
  };
  systemScans: {
    startScheduled(organizationId: string, scanId: string): Promise<unknown>;
    ingestRun(organizationId: string, runId: string): Promise<void>;
  };
  webScans: {
    startScheduled(organizationId: string, scanId: string): Promise<unknown>;
    ingest(organizationId: string, scanId: string, runId: string): Promise<void>;
  };
  events: {
    dispatchPending(signal?: AbortSignal): Promise<unknown>;
    purgeDispatched(): Promise<unknown>;
  };
  notifications: {
    runDeliveryJob(organizationId: string, endpointId: string, signal: AbortSignal): Promise<void>;
    sweep(): Promise<unknown>;
  };
  emailNotifications: {
    sendQueued(
      organizationId: string,
      queueId: string,
      lastAttempt: boolean,
      signal?: AbortSignal,
    ): Promise<void>;
    sendDigests(signal?: AbortSignal): Promise<unknown>;
  };
  history: {
    /** Computes the organisation's missing days and yesterday again, or rebuilds its whole history. */
    runSnapshot(organizationId: string, options: { rebuild: boolean }, signal: AbortSignal): Promise<unknown>;
  };
  reports: {
    generate(
      organizationId: string,
      payload: ReportJobPayload,
      jobId: string,
      signal: AbortSignal,
    ): Promise<void>;
    purge(): Promise<unknown>;
  };
  clock: () => Date;
  organizations: { list(): Promise<{ id: string }[]> };
  settings: { auditRetentionDays(organizationId: string): Promise<number | null> };
  audit: { purgeBefore(organizationId: string, before: Date): Promise<number> };
  idempotency: { purgeExpired(organizationId: string): Promise<number> };
  /**
   * The intelligence sync, under the installation-wide knowledge-base lock. Left out where this
   * process has nothing to sync: it then claims no sync job (another instance may have sources).
   */
  syncIntel?: (signal: AbortSignal) => Promise<void>;
}

/** One kind of job: its payload's schema and the handler that runs it. */
export interface JobKindEntry<S extends TSchema = TSchema> {
  payload: S;
  handle(services: JobServices, payload: Static<S>, job: Job, signal: AbortSignal): Promise<void>;
}

/** Keeps each entry's payload type for its handler (a plain object literal would widen it). */
const entry = <S extends TSchema>(e: JobKindEntry<S>): JobKindEntry<S> => e;

/** An organisation's job: the organisation is the job's column, not part of its payload. */
const inOrganization =
  <P>(run: (services: JobServices, organizationId: string, payload: P) => Promise<unknown>) =>
  async (services: JobServices, payload: P, job: Job): Promise<void> => {
    if (!job.organizationId) throw new JobPayloadInvalid(job.kind, 'the job names no organisation');
    await run(services, job.organizationId, payload);
  };

export const JOB_CATALOGUE = {
  /** Runs an import; its last attempt ends the Import as Failed even when the database was away. */
  import: entry({
    payload: ImportJobPayload,
    handle: (s, payload, job, signal) => s.imports.runJob(payload, job.attempts >= job.maxAttempts, signal),
  }),
  /** Imports whose job was given up end as Failed; staged rows and spooled files left are removed. */
  'import-sweep': entry({
    payload: NoPayload,
    handle: async (s) => {
      await s.imports.sweep();
    },
  }),
  /** Risk acceptances return to Open when their date passes, in every organisation; idempotent. */
  'risk-acceptance-expiry': entry({
    payload: NoPayload,
    handle: async (s) => {
      await s.findings.expireRiskAcceptances();
    },
  }),
  /** Completed and Cancelled jobs older than a week are deleted. */
  'job-purge': entry({
    payload: NoPayload,
    handle: async (s) => {
      await s.jobs.purgeFinished(new Date(s.clock().getTime() - KEEP_FINISHED_JOBS_DAYS * 86_400_000));
    },
  }),
  /** The intelligence sync from the official sources and the configured URLs. */
  'intel-sync': entry({
    payload: NoPayload,
    handle: async (s, _payload, job, signal) => {
      if (!s.syncIntel) throw new Error(`This process has nothing to sync: job ${job.id} waits for another.`);
      await s.syncIntel(signal);
    },
  }),
  /** A discovery scan's schedule: each occurrence starts it (or passes when a run is under way). */
  'discovery-scan.start': entry({
    payload: ScanPayload,
    handle: inOrganization((s, org, p) => s.discoveryScans.startScheduled(org, p.scanId)),
  }),
  /** A discovery run's report, told to those who follow it (scan groups add and remove scans). */
  'discovery-scan.reported': entry({
    payload: ScanRunPayload,
    handle: inOrganization((s, org, p) => s.discoveryScans.announceReport(org, p.scanId, p.runId)),
  }),
  /** A system scan's schedule starts it. */
  'system-scan.start': entry({
    payload: ScanPayload,
    handle: inOrganization((s, org, p) => s.systemScans.startScheduled(org, p.scanId)),
  }),
  /** A finished system run's hosts become services and findings. */
  'system-scan.ingest': entry({
    payload: RunPayload,
    handle: inOrganization((s, org, p) => s.systemScans.ingestRun(org, p.runId)),
  }),
  /** A web scan's schedule starts it. */
  'web-scan.start': entry({
    payload: ScanPayload,
    handle: inOrganization((s, org, p) => s.webScans.startScheduled(org, p.scanId)),
  }),
  /** A completed web run's results become findings. */
  'web-scan.ingest': entry({
    payload: ScanRunPayload,
    handle: inOrganization((s, org, p) => s.webScans.ingest(org, p.scanId, p.runId)),
  }),
  /**
   * Hands the outbox's pending events to the consumers (notifications), a batch a transaction,
   * until none waits; enqueued by every instance's events tick (deduplicated) while events wait.
   * A consumer that throws fails the attempt: the batch stays pending and the job backs off.
   */
  'events-dispatch': entry({
    payload: NoPayload,
    handle: async (s, _payload, _job, signal) => {
      await s.events.dispatchPending(signal);
    },
  }),
  /** Dispatched events older than the retention are deleted; pending ones are kept. */
  'events-purge': entry({
    payload: NoPayload,
    handle: async (s) => {
      await s.events.purgeDispatched();
    },
  }),
  /**
   * Sends a notification endpoint's due deliveries, one at a time; waits (deferred, not failed)
   * for the next retry or the rate limit. One per endpoint for the dispatch (dedup key).
   */
  'notification-deliver': entry({
    payload: Type.Object({ endpointId: Type.String({ minLength: 1 }) }),
    handle: async (s, p, job, signal) => {
      if (!job.organizationId) throw new JobPayloadInvalid(job.kind, 'the job names no organisation');
      await s.notifications.runDeliveryJob(job.organizationId, p.endpointId, signal);
    },
  }),
  /** Every endpoint with deliveries due gets its delivery job (after a kill, a lost wake-up). */
  'notification-sweep': entry({
    payload: NoPayload,
    handle: async (s) => {
      await s.notifications.sweep();
    },
  }),
  /** One queued notification email, sent at once; a failure is recorded on it and tried again. */
  'notification-email': entry({
    payload: Type.Object({ queueId: Type.String({ minLength: 1 }) }),
    handle: async (s, p, job, signal) => {
      if (!job.organizationId) throw new JobPayloadInvalid(job.kind, 'the job names no organisation');
      await s.emailNotifications.sendQueued(
        job.organizationId,
        p.queueId,
        job.attempts >= job.maxAttempts,
        signal,
      );
    },
  }),
  /** The daily digests whose day has ended in their organisation's time zone, one email per user. */
  'notification-digest': entry({
    payload: NoPayload,
    handle: async (s, _payload, _job, signal) => {
      await s.emailNotifications.sendDigests(signal);
    },
  }),
  /**
   * Announces SLA breaches and due dates, risk acceptances about to end and KEV findings not yet
   * announced, in every organisation, each once per occurrence; idempotent.
   */
  'sla-watch': entry({
    payload: NoPayload,
    handle: async (s) => {
      await s.findings.watch();
    },
  }),
  /**
   * An organisation's history (src/modules/history): its schedule fires at 00:10 in its time zone
   * (no payload) and computes the day that ended, and any missed since; `rebuild` recomputes every
   * day from the findings' history (first start, an upgrade). Re-running a day replaces it.
   */
  'history-snapshot': entry({
    payload: Type.Union([
      Type.Null(),
      Type.Object({ rebuild: Type.Boolean() }, { additionalProperties: false }),
    ]),
    handle: async (s, payload, job, signal) => {
      if (!job.organizationId) throw new JobPayloadInvalid(job.kind, 'the job names no organisation');
      await s.history.runSnapshot(job.organizationId, { rebuild: payload?.rebuild === true }, signal);
    },
  }),
  /** Makes a report file (an ad hoc report, or a definition's scheduled one, then mailed). */
  'report-generate': entry({
    payload: ReportJobPayload,
    handle: async (s, payload, job, signal) => {
      if (!job.organizationId) throw new JobPayloadInvalid(job.kind, 'the job names no organisation');
      await s.reports.generate(job.organizationId, payload, job.id, signal);
    },
  }),
  /** Old report files are removed (retention, docs/reports.md). */
  'report-purge': entry({
    payload: NoPayload,
    handle: async (s) => {
      await s.reports.purge();
    },
  }),
  /**
   * Audit entries older than each organisation's retention (AuditRetentionDays, none when null)
   * are deleted: the one delete the audit log's table lets through.
   */
  'audit-purge': entry({
    payload: NoPayload,
    handle: async (s) => {
      const now = s.clock().getTime();
      for (const org of await s.organizations.list()) {
        const days = await s.settings.auditRetentionDays(org.id);
        if (days !== null) await s.audit.purgeBefore(org.id, new Date(now - days * 86_400_000));
      }
    },
  }),
  /**
   * Idempotency keys past their 24 hours are deleted, in every organisation (an expired key is
   * free again whether or not this has run: docs/idempotency.md).
   */
  'idempotency-purge': entry({
    payload: NoPayload,
    handle: async (s) => {
      for (const org of await s.organizations.list()) await s.idempotency.purgeExpired(org.id);
    },
  }),
} satisfies Record<string, JobKindEntry<TSchema>>;

type Catalogue = typeof JOB_CATALOGUE;
export type JobKind = keyof Catalogue;
export type JobPayload<K extends JobKind> = Static<Catalogue[K]['payload']>;

/** Every kind, in the catalogue's order. */
export const JOB_KINDS = Object.keys(JOB_CATALOGUE) as JobKind[];

export function isJobKind(kind: string): kind is JobKind {
  return Object.hasOwn(JOB_CATALOGUE, kind);
}

/**
 * A job whose payload does not match its kind's schema (or whose kind is not in the catalogue):
 * enqueue refuses it, and a worker fails such a job at once, without further attempts, since
 * running it again cannot change the payload.
 */
export class JobPayloadInvalid extends Error {
  constructor(kind: string, reason: string) {
    super(`Invalid payload for a ${kind} job: ${reason}`);
    this.name = 'JobPayloadInvalid';
  }
}

/** Why `payload` is not a `kind` job's payload, as a sentence; null when it is. */
export function payloadProblem(kind: string, payload: unknown): string | null {
  if (!isJobKind(kind)) return `${kind} is not a kind of job in the catalogue (src/jobs/catalogue.ts)`;
  const schema = JOB_CATALOGUE[kind].payload;
  if (Value.Check(schema, payload)) return null;
  const errors = [...Value.Errors(schema, payload)].slice(0, 3);
  return errors.map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
}

/** Throws JobPayloadInvalid unless `payload` is a `kind` job's payload. */
export function assertPayload(kind: string, payload: unknown): void {
  const problem = payloadProblem(kind, payload);
  if (problem) throw new JobPayloadInvalid(kind, problem);
}

/**
 * The catalogue's handler of `kind` for a worker: the claimed job's payload is checked against
 * the kind's schema before the handler sees it.
 */
export function handlerOf(
  kind: JobKind,
  services: JobServices,
): (job: Job, signal: AbortSignal) => Promise<void> {
  const { handle } = JOB_CATALOGUE[kind] as JobKindEntry;
  return (job, signal) => {
    assertPayload(kind, job.payload);
    return handle(services, job.payload, job, signal);
  };
}

/**
 * What is wrong between a catalogue and the kinds a worker has handlers for: a kind without a
 * payload schema or handler, a handler registered for a kind the catalogue lacks, a kind named
 * somewhere (a schedule, a module's constant) that the catalogue lacks. Empty when they agree.
 */
export function catalogueProblems(
  catalogue: Record<string, Partial<JobKindEntry>>,
  registered: readonly string[],
  named: readonly string[] = [],
): string[] {
  const problems: string[] = [];
  for (const [kind, e] of Object.entries(catalogue)) {
    if (!e.payload || typeof e.payload !== 'object') problems.push(`job kind ${kind} has no payload schema`);
    if (typeof e.handle !== 'function') problems.push(`job kind ${kind} has no handler`);
    else if (!registered.includes(kind)) problems.push(`job kind ${kind} has a handler no worker registers`);
  }
  for (const kind of registered)
    if (!Object.hasOwn(catalogue, kind))
      problems.push(`a handler is registered for ${kind}, not a kind of job`);
  for (const kind of named)
    if (!Object.hasOwn(catalogue, kind)) problems.push(`${kind} is named as a job kind but is not one`);
  return problems;
}
