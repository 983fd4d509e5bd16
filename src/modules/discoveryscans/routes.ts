import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { invalid } from '../../problems/app-error.js';
import { savedScanRoutes } from '../savedscans/routes.js';
import { toReportHostDto } from './presenters.js';
import { ReportParams, ReportQuery, ReportSchema } from './schemas.js';
import type { DiscoveryScanService } from './service.js';

/** The saved-scan routes of discovery scans, and their runs' reports. */
export const discoveryScanRoutes =
  (scans: DiscoveryScanService): ChannelRoutes =>
  (app, ctx) => {
    const tags = scans.definition.http.tags;
    savedScanRoutes(scans)(app, ctx);

    route(app, ctx, {
      method: 'GET',
      url: '/discoveryscans/:Id/reports/:RunId/hosts',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listDiscoveryReportHosts',
        summary: 'The hosts a run found, by address, new and gone marked',
        description:
          '`latest` is the latest completed run. While a run is under way its hosts show as Found; when it completes each becomes New or Seen, and the hosts the previous completed run found and this one did not are listed as Gone.',
        tags,
        params: ReportParams,
        querystring: ReportQuery,
        response: { 200: ReportSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const limit = q.PageSize ?? 100;
        const offset = q.Cursor ? offsetOf(q.Cursor) : 0;
        const report = await scans.report(contextOf(request), request.params.Id, request.params.RunId, {
          status: q.Status,
          offset,
          limit,
        });
        const next = offset + report.items.length;
        return {
          RunId: report.runId,
          Counts: {
            New: report.counts.New,
            Seen: report.counts.Seen,
            Gone: report.counts.Gone,
            Found: report.counts.Found,
          },
          Items: report.items.map(toReportHostDto),
          NextCursor: next < report.totalCount ? encodeCursor({ Offset: String(next) }) : null,
          TotalCount: report.totalCount,
        };
      },
    });
  };

function offsetOf(cursor: string): number {
  const key = decodeCursor(cursor, ['Offset']);
  const n = key ? Number(key.Offset) : Number.NaN;
  if (!Number.isInteger(n) || n < 0) throw invalid('cursor', 'is not a cursor this list gave');
  return n;
}
