import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import { softwareFilterFromQuery, softwareInputFromBody, toSoftwareDto } from './presenters.js';
import {
  RecordSoftwareSchema,
  SoftwareListQuery,
  SoftwareListSchema,
  SoftwareParams,
  SoftwareSchema,
} from './schemas.js';
import type { SoftwareService } from './service.js';

export const softwareRoutes =
  (software: SoftwareService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Assets'] });

    group.get('/assets/:Id/software', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssetSoftware',
        summary: 'The software installed on an asset, by name, with its open findings',
        params: IdParams,
        querystring: SoftwareListQuery,
        response: { 200: SoftwareListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await software.list(
          contextOf(request),
          request.params.Id,
          softwareFilterFromQuery(q),
          q.PageSize ?? 100,
          q.Cursor,
        );
        return toPageDto(page, toSoftwareDto);
      },
    });

    group.post('/assets/:Id/software', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'recordAssetSoftware',
        summary: 'Record software installed on an asset',
        description:
          'The same name (in any case) and version is the same software: 201 when new, 200 when merged (vendor, category, CPE and package URL update).',
        params: IdParams,
        body: RecordSoftwareSchema,
        response: { 200: SoftwareSchema, 201: SoftwareSchema },
      },
      handler: async (request, reply) => {
        const input = softwareInputFromBody(request.body);
        const observed = await software.observe(contextOf(request), request.params.Id, input);
        return reply.code(observed.inserted ? 201 : 200).send(toSoftwareDto(observed.software));
      },
    });

    group.delete('/assets/:Id/software/:SoftwareId', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'deleteAssetSoftware',
        summary: 'Remove software that is no longer installed',
        params: SoftwareParams,
        response: { 204: noContent('Removed.') },
      },
      handler: async (request, reply) => {
        await software.remove(contextOf(request), request.params.Id, request.params.SoftwareId);
        return reply.code(204).send();
      },
    });
  };
