import { type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { savedScanRoutes } from '../savedscans/routes.js';
import { ScanIdParams } from '../savedscans/schemas.js';
import { toWebRunReportDto } from './presenters.js';
import { WebRunReportSchema } from './schemas.js';
import type { WebScanService } from './service.js';

/** The saved-scan routes of web scans, and their latest run's report. */
export const webScanRoutes =
  (scans: WebScanService): ChannelRoutes =>
  (app, ctx) => {
    const tags = scans.definition.http.tags;
    savedScanRoutes(scans)(app, ctx);

    route(app, ctx, {
      method: 'GET',
      url: '/webscans/:Id/runs/latest',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getLatestWebScanRun',
        summary: 'The latest run of a web scan: each URL’s checks, header score, notes and software',
        description:
          'With the counts of the import its results became (New, Fixed, Reopened …) once the run completed and they were ingested. 404 when the scan never ran.',
        tags,
        params: ScanIdParams,
        response: { 200: WebRunReportSchema },
      },
      handler: async (request) =>
        toWebRunReportDto(await scans.latestReport(contextOf(request), request.params.Id)),
    });
  };
