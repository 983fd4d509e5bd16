import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import {
  afterIdFromCursor,
  toVulnerabilityDto,
  toVulnerabilityPageDto,
  vulnerabilityFilterFromQuery,
} from './presenters.js';
import { VulnerabilityListQuery, VulnerabilityListSchema, VulnerabilitySchema } from './schemas.js';
import type { VulnerabilityService } from './service.js';

export const vulnerabilityRoutes =
  (vulnerabilities: VulnerabilityService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Vulnerabilities'] });
    group.get('/vulnerabilities', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listVulnerabilities',
        summary: 'The vulnerabilities your findings refer to',
        querystring: VulnerabilityListQuery,
        response: { 200: VulnerabilityListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await vulnerabilities.list(
          contextOf(request),
          vulnerabilityFilterFromQuery(q),
          q.PageSize ?? 100,
          afterIdFromCursor(q.Cursor),
        );
        return toVulnerabilityPageDto(page);
      },
    });

    group.get('/vulnerabilities/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getVulnerability',
        summary: 'One vulnerability',
        params: IdParams,
        response: { 200: VulnerabilitySchema },
      },
      handler: async (request) =>
        toVulnerabilityDto(await vulnerabilities.get(contextOf(request), request.params.Id)),
    });
  };
