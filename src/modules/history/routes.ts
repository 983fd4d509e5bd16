import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { invalid } from '../../problems/app-error.js';
import { scopeFromQuery, toTrendDto } from './presenters.js';
import { TrendQuery, TrendSchema } from './schemas.js';
import type { HistoryService } from './service.js';

export const historyRoutes =
  (history: HistoryService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Trends'], channels: ['latest'] });
    group.get('/trends', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getTrends',
        summary: 'Daily history of findings, for the organisation, an asset tag or a scan group',
        description:
          'One snapshot per calendar day of the organisation’s time zone (Settings → TimeZone), taken at 00:10 for the day that ended; ' +
          'today has none yet. Tag or ScanGroupId narrow the scope (not both). From..To spans at most 400 days; ' +
          'the default is the last 90 days. See docs/history.md for what each figure counts.',
        querystring: TrendQuery,
        response: { 200: TrendSchema },
      },
      handler: async (request) => {
        const q = request.query;
        if (q.Tag !== undefined && q.ScanGroupId !== undefined)
          throw invalid('scanGroupId', 'give Tag or ScanGroupId, not both.');
        const trend = await history.trend(contextOf(request), scopeFromQuery(q), { from: q.From, to: q.To });
        return toTrendDto(trend);
      },
    });
  };
