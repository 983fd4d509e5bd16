import type { ChannelRoutes } from '../../http/channels.js';
import { savedScanRoutes } from '../savedscans/routes.js';
import { toWebRunReportDto } from './presenters.js';
import type { WebScanService } from './service.js';

/** The saved-scan routes of web scans, with their latest run's URLs and what became of them. */
export const webScanRoutes = (scans: WebScanService): ChannelRoutes =>
  savedScanRoutes(scans, {
    latestRun: async (ctx, id) => toWebRunReportDto(await scans.latestReport(ctx, id)),
  });
