import type { ChannelRoutes } from '../../http/channels.js';
import { savedScanRoutes } from '../savedscans/routes.js';
import { toSystemRunReportDto } from './presenters.js';
import type { SystemScanService } from './service.js';

/** The saved-scan routes of system scans, with their latest run's hosts and what became of them. */
export const systemScanRoutes = (scans: SystemScanService): ChannelRoutes =>
  savedScanRoutes(scans, {
    latestRun: async (ctx, id) => toSystemRunReportDto(await scans.latestReport(ctx, id)),
  });
