import { type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { savedScanRoutes } from '../savedscans/routes.js';
import { ScanIdParams } from '../savedscans/schemas.js';
import { toSystemRunReportDto } from './presenters.js';
import { SystemRunReportSchema } from './schemas.js';
import type { SystemScanService } from './service.js';

/** The saved-scan routes of system scans, and their latest run's report. */
export const systemScanRoutes =
  (scans: SystemScanService): ChannelRoutes =>
  (app, ctx) => {
    const tags = scans.definition.http.tags;
    savedScanRoutes(scans)(app, ctx);

    route(app, ctx, {
      method: 'GET',
      url: '/systemscans/:Id/runs/latest',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getLatestSystemScanRun',
        summary: 'The latest run: its hosts, services, checks, budgets, backport decisions and import counts',
        description:
          '`Backports` lists the upstream CVE matches the distribution’s records decided: Fixed ones made no finding. `Import` is null until the run’s findings are stored (a moment after it ends). A scan that never ran answers 404.',
        tags,
        params: ScanIdParams,
        response: { 200: SystemRunReportSchema },
      },
      handler: async (request) =>
        toSystemRunReportDto(await scans.latestReport(contextOf(request), request.params.Id)),
    });
  };
