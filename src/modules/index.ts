import { type Config, officialSourcesOf, syncUrlsOf } from '../config.js';
import type { DatabaseKind } from '../db/database.js';
import type { ChannelRoutes } from '../http/channels.js';
import { sourceList } from '../intel/sync/sources.js';
import { AppError } from '../problems/app-error.js';
import { Problems } from '../problems/catalogue.js';
import type { Services } from '../services.js';
import { VERSION } from '../version.js';
import { accountRoutes } from './account/routes.js';
import { allowedTargetRoutes } from './allowedtargets/routes.js';
import { apiKeyRoutes } from './apikeys/routes.js';
import { assetRoutes } from './assets/routes.js';
import { auditRoutes } from './audit/routes.js';
import { authenticationRoutes } from './authentication/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { demoRoutes } from './demo/routes.js';
import { discoveryScanRoutes } from './discoveryscans/routes.js';
import { eventRoutes } from './events/routes.js';
import { findingRoutes } from './findings/routes.js';
import { historyRoutes } from './history/routes.js';
import { importRoutes } from './imports/routes.js';
import { installationRoutes } from './installation/routes.js';
import { intelRoutes } from './intel/routes.js';
import { jobRoutes } from './jobs/routes.js';
import { mfaRoutes } from './mfa/routes.js';
import { notificationRoutes } from './notifications/routes.js';
import { radarCompatRoutes } from './radar-compat/routes.js';
import { radarScanRoutes } from './radar-compat/scan-routes.js';
import { radarWebScanRoutes } from './radar-compat/webscan-routes.js';
import { reportRoutes } from './reports/routes.js';
import { scanGroupRoutes } from './scangroups/routes.js';
import { scanNodeRoutes } from './scannodes/routes.js';
import { systemScanScope, webScanScope } from './scanresults/service.js';
import { scanRunRoutes } from './scanruns/routes.js';
import { scanTemplateRoutes } from './scantemplates/routes.js';
import { sessionRoutes } from './sessions/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { softwareRoutes } from './software/routes.js';
import { ssoRoutes } from './sso/routes.js';
import { statusRoutes } from './status/routes.js';
import { systemScanRoutes } from './systemscans/routes.js';
import { ticketRoutes } from './tickets/routes.js';
import { userRoutes } from './users/routes.js';
import { verifyRoutes } from './verify/routes.js';
import { vulnerabilityRoutes } from './vulnerabilities/routes.js';
import { webScanRoutes } from './webscans/routes.js';

/** Every module's routes, registered in each channel that serves them. */
export function moduleRoutes(s: Services, config: Config, databaseKind: DatabaseKind): ChannelRoutes[] {
  const loginLimits = {
    accountAtAddress: config.loginThrottleLimit,
    account: config.loginThrottleAccountLimit,
    address: config.loginThrottleAddressLimit,
    windowSeconds: config.loginThrottleWindowSeconds,
  };
  return [
    statusRoutes({ version: VERSION, databaseKind, clock: s.clock, baseUrl: config.baseUrl }),
    authenticationRoutes(),
    accountRoutes(s.users, s.organizations, s.emailNotifications),
    userRoutes(s.users),
    apiKeyRoutes(s.apiKeys),
    assetRoutes(s.assets),
    softwareRoutes(s.software),
    findingRoutes(s.findings, s.tickets),
    historyRoutes(s.history),
    importRoutes(s.imports, { maxBytes: config.importMaxBytes, directory: config.importDir }),
    settingsRoutes(s.settings),
    ticketRoutes(s.tickets),
    vulnerabilityRoutes(s.vulnerabilities),
    intelRoutes(s.intel, s.intelMatcher, {
      syncUrls: syncUrlsOf(config),
      syncHours: config.intelSyncHours,
      sources: sourceList(officialSourcesOf(config)),
      maxUploadBytes: config.intelMaxBytes,
    }),
    jobRoutes(s.jobs),
    scanNodeRoutes(s.scanNodes, s.scanRuns),
    scanRunRoutes(s.scanRuns),
    scanTemplateRoutes(s.scanTemplates),
    discoveryScanRoutes(s.discoveryScans),
    systemScanRoutes(s.systemScans),
    verifyRoutes(s.verify),
    radarScanRoutes(s.discoveryScans, s.scanTemplates, {
      serving: async (ctx, kind) =>
        (await s.scanNodes.list(ctx)).filter((n) => !n.revokedAt && n.kinds.includes(kind)),
    }),
    webScanRoutes(s.webScans),
    radarWebScanRoutes(s.webScans, s.findings),
    scanGroupRoutes(s.scanGroups),
    eventRoutes(),
    allowedTargetRoutes(s.allowedTargets),
    radarCompatRoutes(s.assets, s.findings, s.software, s.vulnerabilities, {
      // A system or web scan of the organisation: its findings are those of its scope.
      scopeOf: async (ctx, scanId) => {
        const missing = (error: unknown) => {
          if (error instanceof AppError && error.problem === Problems.NotFound) return null;
          throw error;
        };
        const system = await s.systemScans.get(ctx, scanId).catch(missing);
        if (system) return systemScanScope(system.id);
        const web = await s.webScans.get(ctx, scanId).catch(missing);
        return web ? webScanScope(web.id) : null;
      },
    }),
    reportRoutes(s.reports),
    demoRoutes(s),
    notificationRoutes(s.notifications),
    dashboardRoutes(s.dashboard),
    sessionRoutes({
      sessions: s.sessions,
      users: s.users,
      organizations: s.organizations,
      baseUrl: config.baseUrl,
      loginLimits,
      secondStep: (user) => s.mfa.secondStepFor(user),
    }),
    mfaRoutes({
      mfa: s.mfa,
      sessions: s.sessions,
      users: s.users,
      organizations: s.organizations,
      baseUrl: config.baseUrl,
      loginLimits,
    }),
    ssoRoutes({ sso: s.sso, sessions: s.sessions, baseUrl: config.baseUrl }),
    auditRoutes(s.auditLog),
    installationRoutes(s.installation, s.users),
  ];
}
