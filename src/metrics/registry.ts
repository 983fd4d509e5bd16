import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

// Rampart's metrics (docs/metrics.md lists each, and a test keeps the two in step), on a registry
// of this process's own (not prom-client's global one): every label takes bounded values only —
// route templates, job and scan kinds, states, formats — never an organisation, a user or a URL.

/** What the metrics read from the database when scraped, each through the service that owns it. */
export interface ScrapeSources {
  jobs: {
    figures(): Promise<{
      states: { kind: string; state: string; count: number }[];
      oldestDueAge: { kind: string; seconds: number }[];
    }>;
  };
  scanRuns: {
    figures(): Promise<{
      states: { kind: string; state: string; count: number }[];
      oldestQueuedAge: { kind: string; seconds: number }[];
    }>;
  };
  scanNodes: {
    figures(): Promise<{
      nodes: { local: boolean; state: string; count: number }[];
      heartbeatAges: { local: boolean; newest: number; oldest: number }[];
    }>;
  };
  events: { backlog(): Promise<{ count: number; oldestAgeSeconds: number }> };
  /** The connection pool (Database.poolFigures); absent where the database does not tell. */
  pool?: () => {
    max: number;
    total: number;
    idle: number;
    waiting: number;
    acquired: number;
    waitSeconds: number;
  };
}

/** Which budget refused a request: the global one, a route's own, or the sign-in limits. */
export type ThrottleBudget = 'global' | 'route' | 'sign-in';

/** Seconds the database reads of a scrape may take before it answers without them. */
const SCRAPE_TIMEOUT_MS = 2_000;

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14400];

/** The change of a finding an import counts (ImportCounts' names), as a label value. */
const FINDING_CHANGES = { New: 'new', Reopened: 'reopened', Fixed: 'fixed', Unchanged: 'unchanged' } as const;

/**
 * The metrics of one Rampart process: counters and histograms the HTTP layer, the job worker and
 * the imports move as things happen, and gauges read from the database when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  private processMetrics = false;
  private refreshing: Promise<void> | undefined;

  private readonly httpRequests = new Counter({
    name: 'rampart_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'rampart_http_request_duration_seconds',
    help: 'Time from the request to its answer, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly throttled = new Counter({
    name: 'rampart_http_throttled_total',
    help: 'Requests refused with 429 by the per-client throttle, by the budget that refused them.',
    labelNames: ['budget'] as const,
    registers: [this.registry],
  });
  private readonly jobRuns = new Counter({
    name: 'rampart_job_runs_total',
    help: 'Job runs of this process that ended, by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'rampart_job_run_duration_seconds',
    help: 'How long job handlers of this process ran, by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private readonly imports = new Counter({
    name: 'rampart_imports_total',
    help: 'Imports (reports and scan results) this process ended, by format and state.',
    labelNames: ['format', 'state'] as const,
    registers: [this.registry],
  });
  private readonly importFindings = new Counter({
    name: 'rampart_import_findings_total',
    help: 'Findings merged by the imports this process completed, by change (new, reopened, fixed, unchanged).',
    labelNames: ['change'] as const,
    registers: [this.registry],
  });
  private readonly jobs = new Gauge({
    name: 'rampart_jobs',
    help: 'Jobs Queued and Running in the database, by kind and state.',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });
  private readonly jobQueueAge = new Gauge({
    name: 'rampart_job_queue_oldest_age_seconds',
    help: 'Age of the oldest due Queued job, by kind (absent when none waits).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly scanRuns = new Gauge({
    name: 'rampart_scan_runs',
    help: 'Scan runs in the database, by kind and state.',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
  });
  private readonly scanQueueAge = new Gauge({
    name: 'rampart_scan_run_queue_oldest_age_seconds',
    help: 'Age of the oldest Queued scan run, by kind (absent when none waits).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly scanNodes = new Gauge({
    name: 'rampart_scan_nodes',
    help: 'Scan nodes not revoked, by state (online: a heartbeat in the last 60 s) and whether local.',
    labelNames: ['state', 'local'] as const,
    registers: [this.registry],
  });
  private readonly heartbeatAge = new Gauge({
    name: 'rampart_scan_node_heartbeat_age_seconds',
    help: 'Age of the newest and of the oldest last heartbeat of the scan nodes not revoked, by whether local.',
    labelNames: ['local', 'which'] as const,
    registers: [this.registry],
  });
  private readonly outboxBacklog = new Gauge({
    name: 'rampart_events_outbox_backlog',
    help: 'Events in the outbox waiting for dispatch.',
    registers: [this.registry],
  });
  private readonly outboxAge = new Gauge({
    name: 'rampart_events_outbox_oldest_age_seconds',
    help: 'Age of the oldest event waiting for dispatch (0 when none waits).',
    registers: [this.registry],
  });
  private readonly databaseUp = new Gauge({
    name: 'rampart_database_up',
    help: "1 when this scrape's database reads answered in time, else 0.",
    registers: [this.registry],
  });

  constructor(
    private readonly sources: ScrapeSources,
    version: string,
  ) {
    new Gauge({
      name: 'rampart_build_info',
      help: 'Always 1; the version of Rampart this process runs.',
      labelNames: ['version'] as const,
      registers: [this.registry],
    }).set({ version }, 1);
    const pool = sources.pool;
    if (pool) {
      new Gauge({
        name: 'rampart_db_pool_connections',
        help: 'Connections of the database pool, by state (idle, in_use), and max (RAMPART_DB_POOL_SIZE).',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          const f = pool();
          this.set({ state: 'idle' }, f.idle);
          this.set({ state: 'in_use' }, f.total - f.idle);
          this.set({ state: 'max' }, f.max);
        },
      });
      new Gauge({
        name: 'rampart_db_pool_waiting',
        help: 'Callers waiting for a connection of the database pool now.',
        registers: [this.registry],
        collect() {
          this.set(pool().waiting);
        },
      });
      new Counter({
        name: 'rampart_db_pool_acquires_total',
        help: 'Connections handed out by the database pool.',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(pool().acquired);
        },
      });
      new Counter({
        name: 'rampart_db_pool_acquire_wait_seconds_total',
        help: 'Seconds callers waited for a connection of the database pool, in all.',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(pool().waitSeconds);
        },
      });
    }
  }

  /** The Content-Type of render()'s text: Prometheus's text exposition format 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Node.js's own metrics (prom-client's defaults: CPU, memory, event-loop delay, GC, handles),
   * started once, when the metrics are served: a command that never serves them starts nothing.
   */
  enableProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
  }

  throttledRequest(budget: ThrottleBudget): void {
    this.throttled.inc({ budget });
  }

  jobFinished(kind: string, outcome: string, seconds: number): void {
    this.jobRuns.inc({ kind, outcome });
    this.jobDuration.observe({ kind, outcome }, seconds);
  }

  importFinished(format: string, state: 'Completed' | 'Failed', counts: Record<string, number>): void {
    this.imports.inc({ format, state: state.toLowerCase() });
    if (state !== 'Completed') return;
    for (const [name, change] of Object.entries(FINDING_CHANGES)) {
      const n = counts[name];
      if (typeof n === 'number' && n > 0) this.importFindings.inc({ change }, n);
    }
  }

  /** The text Prometheus scrapes, with the database's figures read now. */
  async render(): Promise<string> {
    // Scrapes at once share one round of reads.
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
    return this.registry.metrics();
  }

  /** Reads the gauges' figures; a database that fails or is slow leaves them out and says so. */
  private async refresh(): Promise<void> {
    const gauges = [
      this.jobs,
      this.jobQueueAge,
      this.scanRuns,
      this.scanQueueAge,
      this.scanNodes,
      this.heartbeatAge,
      this.outboxBacklog,
      this.outboxAge,
    ];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), SCRAPE_TIMEOUT_MS);
      timer.unref();
    });
    const reads = Promise.all([
      this.sources.jobs.figures(),
      this.sources.scanRuns.figures(),
      this.sources.scanNodes.figures(),
      this.sources.events.backlog(),
    ]);
    reads.catch(() => {});
    try {
      const [jobs, runs, nodes, backlog] = await Promise.race([reads, deadline]);
      for (const gauge of gauges) gauge.reset();
      for (const s of jobs.states) this.jobs.set({ kind: s.kind, state: s.state }, s.count);
      for (const a of jobs.oldestDueAge) this.jobQueueAge.set({ kind: a.kind }, a.seconds);
      for (const s of runs.states) this.scanRuns.set({ kind: s.kind, state: s.state }, s.count);
      for (const a of runs.oldestQueuedAge) this.scanQueueAge.set({ kind: a.kind }, a.seconds);
      for (const n of nodes.nodes)
        this.scanNodes.set({ state: n.state.toLowerCase(), local: String(n.local) }, n.count);
      for (const a of nodes.heartbeatAges) {
        this.heartbeatAge.set({ local: String(a.local), which: 'newest' }, a.newest);
        this.heartbeatAge.set({ local: String(a.local), which: 'oldest' }, a.oldest);
      }
      this.outboxBacklog.set(backlog.count);
      this.outboxAge.set(backlog.oldestAgeSeconds);
      this.databaseUp.set(1);
    } catch {
      // Figures of an earlier scrape would pass for today's: none rather than stale ones.
      for (const gauge of gauges) gauge.reset();
      this.databaseUp.set(0);
    } finally {
      clearTimeout(timer);
    }
  }
}
