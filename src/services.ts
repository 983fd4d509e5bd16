import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { DatabaseProbe } from './db/health.js';
import { analyzeGrown } from './db/maintenance.js';
import { defaultRegistry } from './importers/index.js';
import { JobQueue } from './jobs/queue.js';
import { Scheduler } from './jobs/scheduler.js';
import type { Clock } from './lib/clock.js';
import type { InvalidationBus } from './lib/invalidation-bus.js';
import { Listeners } from './lib/listeners.js';
import { Mailer } from './mail/mailer.js';
import { mailSettingsOf } from './mail/settings.js';
import { Metrics } from './metrics/registry.js';
import { AllowedTargetRepository } from './modules/allowedtargets/repository.js';
import { AllowedTargetsService } from './modules/allowedtargets/service.js';
import { ApiKeyRepository } from './modules/apikeys/repository.js';
import { ApiKeyService } from './modules/apikeys/service.js';
import { AssetImportRepository } from './modules/assets/import-repository.js';
import { AssetRepository } from './modules/assets/repository.js';
import { AssetService, type RiskContextChanged } from './modules/assets/service.js';
import { AuditLogService } from './modules/audit/log.js';
import { AuditRepository } from './modules/audit/repository.js';
import { AuditService } from './modules/audit/service.js';
import type { ServiceContext } from './modules/context.js';
import { DashboardService } from './modules/dashboard/service.js';
import { discoveryScanTable } from './modules/discoveryscans/definition.js';
import {
  type DiscoveryReported,
  DiscoveryScanService,
  SCHEDULED_DISCOVERY_JOB,
} from './modules/discoveryscans/service.js';
import { emailChannel } from './modules/emailnotifications/channel.js';
import { EmailNotificationRepository } from './modules/emailnotifications/repository.js';
import { ScanNotificationRules } from './modules/emailnotifications/scan-rules.js';
import { type DispatchedEvent, EmailNotificationService } from './modules/emailnotifications/service.js';
import { EventRepository } from './modules/events/repository.js';
import { EventsService } from './modules/events/service.js';
import { FindingFiguresRepository } from './modules/findings/figures-repository.js';
import { FindingFiguresService } from './modules/findings/figures-service.js';
import { FindingImportRepository } from './modules/findings/import-repository.js';
import { filterFromBody } from './modules/findings/presenters.js';
import { FindingRepository } from './modules/findings/repository.js';
import { FindingService, type FindingsChanged } from './modules/findings/service.js';
import { addDays, localDay } from './modules/history/days.js';
import { HistoryRepository } from './modules/history/repository.js';
import { HistoryService } from './modules/history/service.js';
import { IdempotencyRepository } from './modules/idempotency/repository.js';
import { IdempotencyService } from './modules/idempotency/service.js';
import { ImportRepository } from './modules/imports/repository.js';
import {
  type ImportFailedUnexpectedly,
  type ImportFinished,
  ImportService,
} from './modules/imports/service.js';
import { importDirectory } from './modules/imports/upload.js';
import { InstallationService } from './modules/installation/service.js';
import { IntelMatcher } from './modules/intel/matcher.js';
import { IntelRepository } from './modules/intel/repository.js';
import { IntelService } from './modules/intel/service.js';
import { MfaRepository } from './modules/mfa/repository.js';
import { MfaService } from './modules/mfa/service.js';
import { httpChannels } from './modules/notifications/channels.js';
import { NotificationRepository } from './modules/notifications/repository.js';
import { NotificationService } from './modules/notifications/service.js';
import { OrganizationRepository } from './modules/organizations/repository.js';
import { OrganizationService } from './modules/organizations/service.js';
import { executiveCharts } from './modules/reports/charts.js';
import { ReportRepository } from './modules/reports/repository.js';
import { reportSchedules } from './modules/reports/schedules.js';
import { ReportService } from './modules/reports/service.js';
import { templateInUse } from './modules/savedscans/repository.js';
import type { ScanStartJob } from './modules/savedscans/schedules.js';
import { scanSchedules } from './modules/savedscans/schedules.js';
import { ScanGroupRepository } from './modules/scangroups/repository.js';
import { ScanGroupService } from './modules/scangroups/service.js';
import { ScanNodeRepository } from './modules/scannodes/repository.js';
import { ScanNodeService } from './modules/scannodes/service.js';
import { ScanResultsService, systemScanScope, webScanScope } from './modules/scanresults/service.js';
import { ScanRunRepository } from './modules/scanruns/repository.js';
import { ScanRunService } from './modules/scanruns/service.js';
import { ScanTemplateRepository } from './modules/scantemplates/repository.js';
import { ScanTemplateService } from './modules/scantemplates/service.js';
import { SessionRepository } from './modules/sessions/repository.js';
import { SessionService } from './modules/sessions/service.js';
import { SettingsRepository } from './modules/settings/repository.js';
import { SettingsService, type TimeZoneChanged } from './modules/settings/service.js';
import { SoftwareImportRepository } from './modules/software/import-repository.js';
import { SoftwareRepository } from './modules/software/repository.js';
import { SoftwareService } from './modules/software/service.js';
import { SsoRepository } from './modules/sso/repository.js';
import { SsoService } from './modules/sso/service.js';
import { systemScanTable } from './modules/systemscans/definition.js';
import { SCHEDULED_SYSTEM_JOB, SystemScanService } from './modules/systemscans/service.js';
import { TicketRepository } from './modules/tickets/repository.js';
import { TicketService } from './modules/tickets/service.js';
import { UserRepository } from './modules/users/repository.js';
import { type UserAccessChanged, UserService } from './modules/users/service.js';
import { VerifyService } from './modules/verify/service.js';
import { VulnerabilityImportRepository } from './modules/vulnerabilities/import-repository.js';
import { VulnerabilityRepository } from './modules/vulnerabilities/repository.js';
import { VulnerabilityService } from './modules/vulnerabilities/service.js';
import { webScanTable } from './modules/webscans/definition.js';
import { SCHEDULED_WEB_JOB, WebScanService } from './modules/webscans/service.js';
import { setParseLimits } from './parsing/parse-limits.js';
import { compilePolicy } from './scanning/targets/index.js';
import type { ScanKind, ScanTarget, TargetPolicy } from './scanning/types.js';
import { VERSION } from './version.js';

/** The first of these targets the policy refuses, as a sentence; null when it allows them all. */
function firstRefusal(targets: ScanTarget[], exclusions: string[], policy: TargetPolicy): string | null {
  const compiled = compilePolicy(policy);
  for (const t of targets) {
    const refusal = compiled.checkTarget(t.range, [...exclusions, ...(t.exclude ?? [])]);
    if (refusal) return `${t.range}: ${refusal.message} (${refusal.rule})`;
  }
  return null;
}

export interface Services {
  assets: AssetService;
  software: SoftwareService;
  tickets: TicketService;
  findings: FindingService;
  imports: ImportService;
  settings: SettingsService;
  vulnerabilities: VulnerabilityService;
  sessions: SessionService;
  /** Single sign-on with OpenID Connect: providers, the sign-in flow, "SSO only" (src/modules/sso). */
  sso: SsoService;
  /** Second factors of password users: set up, the second step of a sign-in, an Admin's reset. */
  mfa: MfaService;
  organizations: OrganizationService;
  installation: InstallationService;
  users: UserService;
  apiKeys: ApiKeyService;
  audit: AuditService;
  /** Reading the audit log (GET /auditlog): filtered, paged, CSV, each entry naming its actor. */
  auditLog: AuditLogService;
  intel: IntelService;
  intelMatcher: IntelMatcher;
  scanTemplates: ScanTemplateService;
  /** Discovery scans: saved ranges whose runs the scan nodes execute; their reports and assets. */
  discoveryScans: DiscoveryScanService;
  /** Web scans: saved URLs whose runs the scan nodes execute; their results become findings. */
  webScans: WebScanService;
  /** Scan groups: system and web scan settings, and monitoring that follows discovery reports. */
  scanGroups: ScanGroupService;
  /** Findings from Rampart's own system and web scans, merged through the imports module. */
  scanResults: ScanResultsService;
  /** System scans: saved targets whose runs probe ports, services and CVEs; their findings. */
  systemScans: SystemScanService;
  /** Verify: findings of Rampart's scans checked again by narrowed runs of those scans. */
  verify: VerifyService;
  /** The durable job queue (src/jobs): GET /jobs shows it to Admins. */
  jobs: JobQueue;
  /** Scan nodes: enrolment, node keys, heartbeats, the local node. */
  scanNodes: ScanNodeService;
  /** Scan runs: queued by scans, claimed by nodes under a lease, reported in idempotent batches. */
  scanRuns: ScanRunService;
  /** Where the organisation's scans may go: scans check their targets here when saved and started. */
  allowedTargets: AllowedTargetsService;
  /** Schedules that enqueue jobs, fired once per occurrence across instances (src/jobs). */
  scheduler: Scheduler;
  /** Imports that failed for a reason not their report's: the server's log follows them. */
  importFailedUnexpectedly: ImportFailedUnexpectedly;
  /** Events: the outbox every change writes to in its transaction, and its dispatch to consumers. */
  events: EventsService;
  /** Notification rules, endpoints and deliveries (webhooks, Slack, Teams, Email). */
  notifications: NotificationService;
  /** The SMTP server's mailer (RAMPART_SMTP_URL), or one that says email is not configured. */
  mailer: Mailer;
  /** Email to people: their preferences, the queue of their email, daily digests, Admins' notices. */
  emailNotifications: EmailNotificationService;
  /** Daily history of findings per organisation, tag and scan group: trends. */
  history: HistoryService;
  /** Reports: executive and technical, made by jobs, kept in chunks, scheduled and mailed. */
  reports: ReportService;
  /** The one source of time for every value the API returns or a rule compares. */
  clock: Clock;
  /** The dashboard: SLA compliance, ageing, time to remediate, top risks, last scans and imports. */
  dashboard: DashboardService;
  /** This process's metrics (docs/metrics.md): moved by the HTTP layer, the jobs and the imports. */
  metrics: Metrics;
  /** The readiness probe's check of the database (GET /health/ready). */
  health: DatabaseProbe;
  /** Idempotency-Key: each key's slot and the answer its first request got, kept 24 hours. */
  idempotency: IdempotencyService;
}

export type ServicesConfig = Pick<Config, 'authCacheSeconds' | 'sessionIdleMinutes' | 'sessionMaxHours'> &
  Partial<
    Pick<
      Config,
      | 'intelMaxBytes'
      | 'importDir'
      | 'parseMaxDepth'
      | 'parseMaxAttributes'
      | 'parseMaxTextBytes'
      | 'parseMaxElements'
      | 'scanAllowLoopback'
      | 'baseUrl'
      | 'notifyAllowLoopback'
      | 'notifyAllowPrivate'
      | 'ssoAllowLoopback'
      | 'smtpUrl'
      | 'smtpUser'
      | 'smtpPassword'
      | 'mailFrom'
      | 'smtpTlsCa'
      | 'smtpTlsRejectUnauthorized'
    >
  >;

/**
 * The service graph on one database, shared by the HTTP app and the CLI. Every dependency goes
 * to a constructor. Where two services need each other, an event created first breaks the cycle:
 * its followers subscribe in their constructors, in the order they are built here.
 */
export function buildServices(
  database: Database,
  clock: Clock,
  bus: InvalidationBus,
  config: ServicesConfig,
): Services {
  // Every reader of uploaded files takes these limits (process-wide: see parse-limits.ts).
  setParseLimits({
    ...(config.parseMaxDepth ? { maxDepth: config.parseMaxDepth } : {}),
    ...(config.parseMaxAttributes ? { maxAttributes: config.parseMaxAttributes } : {}),
    ...(config.parseMaxTextBytes ? { maxTextBytes: config.parseMaxTextBytes } : {}),
    ...(config.parseMaxElements ? { maxElements: config.parseMaxElements } : {}),
  });
  const db = database.db;
  // Sessions end, then cached API keys are dropped, when a user's access changes.
  const userAccessChanged: UserAccessChanged = new Listeners();
  // Findings re-score when their asset's criticality or exposure changes.
  const assetRiskContextChanged: RiskContextChanged = new Listeners();
  // Imports that failed unexpectedly: the server's log follows them (background.ts).
  const importFailedUnexpectedly: ImportFailedUnexpectedly = new Listeners();
  // Imports that ended: the metrics count them and the findings they merged.
  const importFinished: ImportFinished = new Listeners();
  // Tickets follow their findings' states, changed by findings and imports; tickets read findings.
  const findingsChanged: FindingsChanged = new Listeners();
  // An organisation's daily history schedule follows its time zone.
  const timeZoneChanged: TimeZoneChanged = new Listeners();

  const auditRepository = new AuditRepository(db);
  const audit = new AuditService(auditRepository, clock);
  // Payloads are checked against the catalogue's schemas under the tests and in development only:
  // in production an event is never lost to a check (docs/events.md).
  const events = new EventsService(new EventRepository(db), clock, {
    checkPayloads: !!process.env.VITEST || process.env.NODE_ENV === 'development',
  });
  const users = new UserService(new UserRepository(db), audit, clock, userAccessChanged, events);
  const lifetimes = { idleMinutes: config.sessionIdleMinutes, absoluteHours: config.sessionMaxHours };
  // Single sign-on finds the user; the sessions module starts the session (the routes join them),
  // and refuses password sign-in for an organisation that signs in with single sign-on only.
  const sso = new SsoService(new SsoRepository(db), users, audit, clock, {
    allowLoopback: config.ssoAllowLoopback ?? false,
    baseUrl: config.baseUrl ?? 'http://localhost:8080',
  });
  const sessions = new SessionService(
    new SessionRepository(db),
    users,
    audit,
    clock,
    lifetimes,
    userAccessChanged,
    (organizationId) => sso.passwordSignInRefused(organizationId),
    (organizationId) => organizations.isActive(organizationId),
  );
  const apiKeys = new ApiKeyService(
    new ApiKeyRepository(db),
    audit,
    bus,
    clock,
    config.authCacheSeconds,
    userAccessChanged,
    events,
  );
  const assets = new AssetService(
    new AssetRepository(db),
    new AssetImportRepository(db),
    users,
    audit,
    clock,
    assetRiskContextChanged,
  );
  const software = new SoftwareService(
    new SoftwareRepository(db),
    new SoftwareImportRepository(db),
    assets,
    clock,
    audit,
  );
  const settings = new SettingsService(new SettingsRepository(db), audit, clock, timeZoneChanged);
  // Sessions end through userAccessChanged when an Admin resets a user's factor.
  const mfa = new MfaService(new MfaRepository(db), users, settings, audit, clock, userAccessChanged);
  const vulnerabilities = new VulnerabilityService(
    new VulnerabilityRepository(db),
    new VulnerabilityImportRepository(db),
    clock,
  );
  const findings = new FindingService(
    new FindingRepository(db),
    new FindingImportRepository(db, database.connection),
    assets,
    vulnerabilities,
    settings,
    clock,
    findingsChanged,
    assetRiskContextChanged,
    events,
    audit,
  );
  const tickets = new TicketService(
    new TicketRepository(db),
    users,
    findings,
    settings,
    clock,
    findingsChanged,
    events,
    audit,
  );
  const jobs = new JobQueue(db, clock);
  const scheduler = new Scheduler(db, jobs, clock);
  // Notifications consume the events' dispatch (they register in their constructor) and send
  // through their channels: webhooks, Slack and Teams over HTTP behind the destination guard.
  const baseUrl = config.baseUrl ?? 'http://localhost:8080';
  const notificationChannels = httpChannels({
    policy: {
      allowLoopback: config.notifyAllowLoopback ?? false,
      allowPrivate: config.notifyAllowPrivate ?? false,
    },
    baseUrl,
    timeoutMs: 10_000,
    clock,
  });
  // Email goes through the SMTP server's mailer: notification rules' Email endpoints, people's own
  // preferences (emailNotifications) and the rules scans own through their MessageNotification.
  const mailer = new Mailer(mailSettingsOf(config, (file) => readFileSync(file, 'utf8')));
  const notifications = new NotificationService(
    new NotificationRepository(db),
    { events, jobs, audit, clock },
    [...notificationChannels, emailChannel(mailer, baseUrl)],
    { baseUrl },
  );
  const imports = new ImportService(
    new ImportRepository(db),
    defaultRegistry(),
    { assets, vulnerabilities, findings, software },
    settings,
    audit,
    clock,
    findingsChanged,
    importFailedUnexpectedly,
    jobs,
    importDirectory(config.importDir),
    // The tables an import filled are analysed in its transaction (src/db/maintenance.ts): the
    // requests that waited for the embedded database's one connection, and PostgreSQL's until
    // autovacuum's next round (up to a minute), would be planned on the empty table's statistics.
    async (trx, counts) => {
      await analyzeGrown(trx, {
        findings: counts.New ?? 0,
        vulnerabilities: counts.New ?? 0,
        assets: counts.AssetsCreated ?? 0,
      });
    },
    events,
    importFinished,
  );
  const organizations = new OrganizationService(new OrganizationRepository(db), clock);
  const intel = new IntelService(new IntelRepository(db), vulnerabilities, findings, organizations, clock, {
    maxBytes: config.intelMaxBytes ?? 2 * 1024 ** 3,
    tempDir: importDirectory(config.importDir),
  });
  const intelMatcher = new IntelMatcher(intel);
  const scanResults = new ScanResultsService(
    imports,
    {
      match: (input) => intelMatcher.match(input),
      cve: (cveId) => intel.cve(cveId),
      osvForPackages: (keys) => intel.osvForPackages(keys),
    },
    findings,
  );
  const scanNodes = new ScanNodeService(new ScanNodeRepository(db), audit, clock);
  const scanRuns = new ScanRunService(new ScanRunRepository(db), scanNodes, clock, events);
  const allowedTargets = new AllowedTargetsService(new AllowedTargetRepository(db), audit, clock, {
    allowLoopback: config.scanAllowLoopback ?? false,
  });
  const scanTemplates = new ScanTemplateService(
    new ScanTemplateRepository(db),
    audit,
    clock,
    templateInUse(db, [discoveryScanTable, systemScanTable, webScanTable]),
  );
  const targetRules = {
    policy: (org: string) => allowedTargets.policy(org),
    assertAllowed: (
      ctx: Parameters<AllowedTargetsService['assertAllowed']>[0],
      targets: ScanTarget[],
      exclusions: string[],
    ) => allowedTargets.assertAllowed(ctx, targets, exclusions),
    refusal: firstRefusal,
  };
  const nodeKinds = {
    servesKind: async (ctx: Parameters<ScanNodeService['get']>[0], nodeId: string, kind: ScanKind) => {
      const node = await scanNodes.get(ctx, nodeId).catch(() => null);
      return !!node && !node.revokedAt && node.kinds.includes(kind);
    },
  };
  /** What every kind of saved scan is built with; each kind adds its schedule. */
  const savedScans = (prefix: string, scheduledJob: ScanStartJob) => ({
    runs: scanRuns,
    schedules: scanSchedules(scheduler, prefix, scheduledJob),
    audit,
    clock,
    templates: scanTemplates,
    targets: targetRules,
    nodes: nodeKinds,
    jobs,
  });
  const scanNotificationRules = new ScanNotificationRules(notifications);
  const notificationRules = (...args: Parameters<ScanNotificationRules['sync']>) =>
    scanNotificationRules.sync(...args);
  // Scan groups follow discovery reports (a durable job tells them, after the run's transaction).
  const discoveryReported: DiscoveryReported = new Listeners();
  const discoveryScans = new DiscoveryScanService(db, {
    ...savedScans('discovery-scan', SCHEDULED_DISCOVERY_JOB),
    assets,
    reported: discoveryReported,
    notificationRules,
    events,
  });
  const systemScans = new SystemScanService(db, {
    ...savedScans('system-scan', SCHEDULED_SYSTEM_JOB),
    assets,
    results: scanResults,
    events,
  });
  const webScans = new WebScanService(db, {
    ...savedScans('web-scan', SCHEDULED_WEB_JOB),
    results: scanResults,
  });
  // System and web findings are verified by narrowed runs of the scan that found them.
  const verify = new VerifyService(findings, systemScans, tickets, webScans);
  /** The first template of a kind (a built-in one): what a group's scans take when it names none. */
  const firstTemplate = async (ctx: ServiceContext, kind: 'System' | 'Web', id: string | null) => {
    const template = id ?? (await scanTemplates.list(ctx, kind))[0]?.id;
    if (!template) throw new Error(`No ${kind} template exists.`);
    return template;
  };
  const scanGroups = new ScanGroupService(
    new ScanGroupRepository(db),
    {
      user: async (ctx, id) => {
        const user = await users.get(ctx, id).catch(() => undefined);
        return user ? { id: user.id, name: user.name, email: user.email } : undefined;
      },
      template: (ctx, id) => scanTemplates.find(ctx, id),
      nodeServes: (ctx, id, kind) => nodeKinds.servesKind(ctx, id, kind),
      discoveryScanExists: async (ctx, id) => !!(await discoveryScans.get(ctx, id).catch(() => undefined)),
      scheduleExists: (ctx, id) => scheduler.exists(ctx.organizationId, id),
    },
    {
      create: async (ctx, input) =>
        systemScans.create(ctx, {
          name: input.name,
          targets: [{ range: input.target, name: input.name, exclude: [] }],
          assetId: null,
          exclusions: [],
          templateId: await firstTemplate(ctx, 'System', input.templateId),
          nodeId: input.nodeId,
          schedule: input.schedule,
          scanGroupId: input.groupId,
        }),
      start: async (ctx, id) => {
        await systemScans.start(ctx, id);
      },
      remove: (ctx, id) => systemScans.remove(ctx, id),
      listByGroup: async (ctx, groupId) =>
        (await systemScans.listByGroup(ctx, groupId)).map((s) => ({
          id: s.id,
          name: s.name,
          hostname: s.targets[0]?.range ?? null,
          lastCompletedAt: s.lastCompletedAt,
        })),
    },
    {
      create: (ctx, input) =>
        webScans.create(ctx, {
          name: input.name,
          urls: [input.url],
          templateId: input.templateId,
          nodeId: input.nodeId,
          schedule: input.schedule,
          scanGroupId: input.groupId,
        }),
      start: async (ctx, id) => {
        await webScans.start(ctx, id);
      },
      remove: (ctx, id) => webScans.remove(ctx, id),
      listByGroup: async (ctx, groupId) =>
        (await webScans.listByGroup(ctx, groupId)).map((s) => ({
          id: s.id,
          name: s.name,
          hostname: s.urls[0] ? new URL(s.urls[0]).hostname.replace(/^\[|\]$/g, '') : null,
          lastCompletedAt: s.lastCompletedAt,
        })),
    },
    audit,
    clock,
    notificationRules,
  );
  discoveryReported.subscribe((report) => scanGroups.discoveryReported(report));
  const emailNotifications = new EmailNotificationService(
    new EmailNotificationRepository(db),
    mailer,
    users,
    jobs,
    clock,
    {
      baseUrl,
      // The organisation's time zone from its settings: a digest's day is the organisation's.
      timeZone: (organizationId) => settings.timeZone(organizationId),
    },
  );
  // People's email follows the events leaving the outbox, in the dispatch's transaction.
  events.onDispatch((trx, batch) =>
    emailNotifications.dispatch(
      trx,
      batch.map((e) => ({
        organizationId: e.organizationId,
        id: e.id,
        type: e.type,
        envelope: events.envelope(e) as unknown as DispatchedEvent['envelope'],
      })),
    ),
  );
  const history = new HistoryService(
    new HistoryRepository(db),
    {
      timeZoneOf: (organizationId) => settings.timeZone(organizationId),
      organizationIds: async () => (await organizations.list()).map((o) => o.id),
      checkScanGroup: async (ctx, id) => {
        await scanGroups.get(ctx, id);
      },
    },
    jobs,
    scheduler,
    clock,
    timeZoneChanged,
  );
  const dashboard = new DashboardService(
    {
      figures: new FindingFiguresService(new FindingFiguresRepository(db)),
      sla: (organizationId) => settings.sla(organizationId),
      recentScanRuns: (ctx, q) => scanRuns.recent(ctx, q),
      recentImports: (ctx, q) => imports.recent(ctx, q),
      tagNames: (ctx, limit) => assets.tagNames(ctx, limit),
      // A group's findings are those its system and web scans last reported (their scopes).
      scanGroup: async (ctx, id) => {
        const group = await scanGroups.get(ctx, id);
        const [system, web] = await Promise.all([
          scanGroups.systemScansOf(ctx, id),
          scanGroups.webScansOf(ctx, id),
        ]);
        return {
          id: group.id,
          name: group.name,
          scanIds: [...system, ...web].map((s) => s.id),
          scopeNames: [...system.map((s) => systemScanScope(s.id)), ...web.map((s) => webScanScope(s.id))],
        };
      },
    },
    clock,
  );
  const reports = new ReportService(
    new ReportRepository(db),
    {
      findings,
      filterOf: (body) => filterFromBody(body as Parameters<typeof filterFromBody>[0]),
      scanGroupFilter: (scanGroupId) => ({ scanGroupId }),
      slaDays: async (organizationId) => {
        const { Kev: _kev, ...days } = await settings.sla(organizationId);
        return days;
      },
      scanGroupName: async (ctx, id) => (await scanGroups.get(ctx, id).catch(() => undefined))?.name,
      // The last `days` days up to today in the organisation's time zone, from the history.
      trend: async (ctx, scope, days) => {
        const to = localDay(clock(), await settings.timeZone(ctx.organizationId));
        const t = await history.trend(ctx, scope, { from: addDays(to, -(days - 1)), to });
        return {
          from: t.from,
          to: t.to,
          points: t.days.map((d) => ({
            date: d.date,
            open: d.open,
            new: d.new,
            fixed: d.fixed,
            kevOpen: d.kevOpen,
            mttrDays: {
              Critical: d.mttr.Critical?.meanDays ?? null,
              High: d.mttr.High?.meanDays ?? null,
              Medium: d.mttr.Medium?.meanDays ?? null,
              Low: d.mttr.Low?.meanDays ?? null,
              Info: d.mttr.Info?.meanDays ?? null,
            },
          })),
        };
      },
      charts: executiveCharts,
      enqueue: (payload, options) => jobs.enqueue('report-generate', payload, options),
      schedules: reportSchedules(scheduler),
      audit,
      // Scheduled reports are mailed through the configured SMTP server (src/mail), when there is one.
      ...(mailer.configured
        ? {
            mail: async (message) => {
              await mailer.send(message);
            },
          }
        : {}),
      ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    },
    clock,
  );
  // Reads users and keys to name the log's actors: built after them, since they record into it.
  const auditLog = new AuditLogService(auditRepository, audit, { users, apiKeys });
  // Read when scraped, each figure through the service that owns its table; across organisations
  // and labelled by bounded values only.
  const metrics = new Metrics(
    {
      jobs,
      scanRuns,
      scanNodes,
      events,
      ...(database.poolFigures ? { pool: database.poolFigures } : {}),
    },
    VERSION,
  );
  importFinished.subscribe(async (end) => metrics.importFinished(end.format, end.state, end.counts));
  return {
    reports,
    audit,
    auditLog,
    users,
    sessions,
    sso,
    mfa,
    assets,
    software,
    settings,
    vulnerabilities,
    findings,
    imports,
    tickets,
    apiKeys,
    organizations,
    installation: new InstallationService(organizations, users, audit, history),
    intel,
    intelMatcher,
    jobs,
    scanNodes,
    scanRuns,
    scanTemplates,
    allowedTargets,
    discoveryScans,
    scanResults,
    systemScans,
    webScans,
    scanGroups,
    verify,
    scheduler,
    importFailedUnexpectedly,
    events,
    notifications,
    mailer,
    emailNotifications,
    history,
    clock,
    dashboard,
    metrics,
    health: new DatabaseProbe(db),
    idempotency: new IdempotencyService(new IdempotencyRepository(db), clock),
  };
}
