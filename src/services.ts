import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { analyzeGrown } from './db/maintenance.js';
import { defaultRegistry } from './importers/index.js';
import { JobQueue } from './jobs/queue.js';
import { Scheduler } from './jobs/scheduler.js';
import type { Clock } from './lib/clock.js';
import type { InvalidationBus } from './lib/invalidation-bus.js';
import { Listeners } from './lib/listeners.js';
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
import { discoveryScanTable } from './modules/discoveryscans/definition.js';
import {
  type DiscoveryReported,
  DiscoveryScanService,
  SCHEDULED_DISCOVERY_JOB,
} from './modules/discoveryscans/service.js';
import { FindingImportRepository } from './modules/findings/import-repository.js';
import { FindingRepository } from './modules/findings/repository.js';
import { FindingService, type FindingsChanged } from './modules/findings/service.js';
import { ImportRepository } from './modules/imports/repository.js';
import { type ImportFailedUnexpectedly, ImportService } from './modules/imports/service.js';
import { importDirectory } from './modules/imports/upload.js';
import { IntelMatcher } from './modules/intel/matcher.js';
import { IntelRepository } from './modules/intel/repository.js';
import { IntelService } from './modules/intel/service.js';
import { OrganizationRepository } from './modules/organizations/repository.js';
import { OrganizationService } from './modules/organizations/service.js';
import { templateInUse } from './modules/savedscans/repository.js';
import type { ScanStartJob } from './modules/savedscans/schedules.js';
import { scanSchedules } from './modules/savedscans/schedules.js';
import { ScanGroupRepository } from './modules/scangroups/repository.js';
import { ScanGroupService } from './modules/scangroups/service.js';
import { ScanNodeRepository } from './modules/scannodes/repository.js';
import { ScanNodeService } from './modules/scannodes/service.js';
import { ScanResultsService } from './modules/scanresults/service.js';
import { ScanRunRepository } from './modules/scanruns/repository.js';
import { ScanRunService } from './modules/scanruns/service.js';
import { ScanTemplateRepository } from './modules/scantemplates/repository.js';
import { ScanTemplateService } from './modules/scantemplates/service.js';
import { SessionRepository } from './modules/sessions/repository.js';
import { SessionService } from './modules/sessions/service.js';
import { SettingsRepository } from './modules/settings/repository.js';
import { SettingsService } from './modules/settings/service.js';
import { SoftwareImportRepository } from './modules/software/import-repository.js';
import { SoftwareRepository } from './modules/software/repository.js';
import { SoftwareService } from './modules/software/service.js';
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
  organizations: OrganizationService;
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
  /** The one source of time for every value the API returns or a rule compares. */
  clock: Clock;
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
  // Tickets follow their findings' states, changed by findings and imports; tickets read findings.
  const findingsChanged: FindingsChanged = new Listeners();

  const auditRepository = new AuditRepository(db);
  const audit = new AuditService(auditRepository, clock);
  const users = new UserService(new UserRepository(db), audit, clock, userAccessChanged);
  const lifetimes = { idleMinutes: config.sessionIdleMinutes, absoluteHours: config.sessionMaxHours };
  const sessions = new SessionService(
    new SessionRepository(db),
    users,
    audit,
    clock,
    lifetimes,
    userAccessChanged,
  );
  const apiKeys = new ApiKeyService(
    new ApiKeyRepository(db),
    audit,
    bus,
    clock,
    config.authCacheSeconds,
    userAccessChanged,
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
  const settings = new SettingsService(new SettingsRepository(db), audit, clock);
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
    audit,
  );
  const tickets = new TicketService(
    new TicketRepository(db),
    users,
    findings,
    settings,
    clock,
    findingsChanged,
    audit,
  );
  const jobs = new JobQueue(db, clock);
  const scheduler = new Scheduler(db, jobs, clock);
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
  const scanRuns = new ScanRunService(new ScanRunRepository(db), scanNodes, clock);
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
  // Scan groups follow discovery reports (a durable job tells them, after the run's transaction).
  const discoveryReported: DiscoveryReported = new Listeners();
  const discoveryScans = new DiscoveryScanService(db, {
    ...savedScans('discovery-scan', SCHEDULED_DISCOVERY_JOB),
    assets,
    reported: discoveryReported,
  });
  const systemScans = new SystemScanService(db, {
    ...savedScans('system-scan', SCHEDULED_SYSTEM_JOB),
    assets,
    results: scanResults,
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
  );
  discoveryReported.subscribe((report) => scanGroups.discoveryReported(report));
  // Reads users and keys to name the log's actors: built after them, since they record into it.
  const auditLog = new AuditLogService(auditRepository, audit, { users, apiKeys });
  return {
    audit,
    auditLog,
    users,
    sessions,
    assets,
    software,
    settings,
    vulnerabilities,
    findings,
    imports,
    tickets,
    apiKeys,
    organizations,
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
    clock,
  };
}
