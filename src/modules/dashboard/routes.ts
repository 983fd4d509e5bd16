import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { toDashboardDto } from './presenters.js';
import { DashboardQuery, DashboardSchema } from './schemas.js';
import type { DashboardService } from './service.js';

export const dashboardRoutes =
  (dashboard: DashboardService): ChannelRoutes =>
  (app, ctx) => {
    // The dashboard is the web app's overview and may change with it: latest channel only.
    const group = routeGroup(app, ctx, { tags: ['Dashboard'], channels: ['latest'] });
    group.get('/dashboard', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getDashboard',
        summary: 'The current state of your findings: SLA compliance, ageing, time to remediate, top risks',
        description:
          'Figures of the open (Open and Reopened, confirmed) findings now, and of the findings fixed in the last WindowDays days, ' +
          'of the organisation or only of a tag (Tag) or a scan group (ScanGroupId), not both. The figures over time are GET /trends.',
        querystring: DashboardQuery,
        response: { 200: DashboardSchema },
      },
      handler: async (request) =>
        toDashboardDto(
          await dashboard.dashboard(contextOf(request), {
            ...(request.query.Tag !== undefined ? { tag: request.query.Tag } : {}),
            ...(request.query.ScanGroupId !== undefined ? { scanGroupId: request.query.ScanGroupId } : {}),
          }),
        ),
    });
  };
