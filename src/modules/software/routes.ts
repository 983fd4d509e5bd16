import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { AssetIdParams } from '../assets/schemas.js';
import type { SoftwareRow } from './repository.js';
import {
  RecordSoftwareSchema,
  SoftwareListQuery,
  SoftwareListSchema,
  SoftwareParams,
  SoftwareSchema,
} from './schemas.js';
import type { SoftwareCategory, SoftwareService } from './service.js';

export const toSoftwareDto = (s: SoftwareRow) => ({
  Id: s.id,
  AssetId: s.asset_id,
  Name: s.name,
  Version: s.version,
  Vendor: s.vendor,
  Category: s.category as SoftwareCategory,
  Cpe: s.cpe,
  Purl: s.purl,
  FirstSeen: s.first_seen_at.toISOString(),
  LastSeen: s.last_seen_at.toISOString(),
  OpenFindings: {
    Critical: Number(s.critical ?? 0),
    High: Number(s.high ?? 0),
    Medium: Number(s.medium ?? 0),
    Low: Number(s.low ?? 0),
  },
});

export const softwareRoutes =
  (software: SoftwareService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Assets'];

    route(app, ctx, {
      method: 'GET',
      url: '/assets/:Id/software',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssetSoftware',
        summary: 'The software installed on an asset, by name, with its open findings',
        tags,
        params: AssetIdParams,
        querystring: SoftwareListQuery,
        response: { 200: SoftwareListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await software.list(
          contextOf(request),
          request.params.Id,
          { search: q.Search, category: q.Category },
          q.PageSize ?? 100,
          q.Cursor,
        );
        return {
          Items: page.items.map(toSoftwareDto),
          NextCursor: page.nextCursor,
          TotalCount: page.totalCount,
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/assets/:Id/software',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'recordAssetSoftware',
        summary: 'Record software installed on an asset',
        description:
          'The same name (in any case) and version is the same software: 201 when new, 200 when merged (vendor, category, CPE and package URL update).',
        tags,
        params: AssetIdParams,
        body: RecordSoftwareSchema,
        response: { 200: SoftwareSchema, 201: SoftwareSchema },
      },
      handler: async (request, reply) => {
        const b = request.body;
        const { row, inserted } = await software.observe(contextOf(request), request.params.Id, {
          name: b.Name,
          version: b.Version,
          vendor: b.Vendor,
          category: b.Category,
          cpe: b.Cpe,
          purl: b.Purl,
        });
        return reply.code(inserted ? 201 : 200).send(toSoftwareDto(row));
      },
    });

    route(app, ctx, {
      method: 'DELETE',
      url: '/assets/:Id/software/:SoftwareId',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'deleteAssetSoftware',
        summary: 'Remove software that is no longer installed',
        tags,
        params: SoftwareParams,
        response: { 204: { type: 'null', description: 'Removed.' } },
      },
      handler: async (request, reply) => {
        await software.remove(contextOf(request), request.params.Id, request.params.SoftwareId);
        return reply.code(204).send();
      },
    });
  };
