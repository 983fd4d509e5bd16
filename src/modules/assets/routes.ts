import { Type } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { sendCsv, wantsCsv } from '../../http/csv.js';
import { toPageDto } from '../../http/page.js';
import { contextOf } from '../../http/request-context.js';
import {
  ASSET_CSV,
  assetFilterFrom,
  assetInputFromBody,
  assetPatchFromBody,
  serviceInputFromBody,
  toAssetDetailDto,
  toAssetListItemDto,
  toServiceDto,
} from './presenters.js';
import {
  AssetDetailSchema,
  AssetIdParams,
  AssetListQuery,
  AssetListSchema,
  BulkTagSchema,
  CreateAssetSchema,
  CreateServiceSchema,
  ServiceSchema,
  UpdateAssetSchema,
} from './schemas.js';
import type { AssetService } from './service.js';

export const assetRoutes =
  (assets: AssetService): ChannelRoutes =>
  (app, ctx) => {
    route(app, ctx, {
      method: 'GET',
      url: '/assets',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssets',
        summary: 'Assets of your organisation',
        description:
          'Ordered by name; keyset pages (pass NextCursor as Cursor). With `Accept: text/csv`, all of them as streamed CSV.',
        tags: ['Assets'],
        querystring: AssetListQuery,
        response: {
          200: {
            description: 'A page of assets, or all of them as CSV.',
            content: {
              'application/json': { schema: AssetListSchema },
              'text/csv': { schema: { type: 'string' } },
            },
          },
        },
      },
      handler: async (request, reply) => {
        const q = request.query;
        const filter = assetFilterFrom(q);
        const context = contextOf(request);
        if (wantsCsv(request))
          return sendCsv(request, reply, 'assets.csv', ASSET_CSV, assets.stream(context, filter));
        const page = await assets.list(context, filter, q.PageSize ?? 100, q.Cursor);
        return toPageDto(page, toAssetListItemDto);
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/assets',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createAsset',
        summary: 'Add an asset by hand',
        description:
          'Same identity rules as imports: when the asset shares an identifier (FQDN, IP or MAC address, URL) with a known one, ' +
          'the report is merged into it and the answer is 200 with that asset; otherwise 201.',
        tags: ['Assets'],
        body: CreateAssetSchema,
        response: { 200: AssetDetailSchema, 201: AssetDetailSchema },
      },
      handler: async (request, reply) => {
        const context = contextOf(request);
        const { asset, created } = await assets.observe(context, assetInputFromBody(request.body));
        return reply.code(created ? 201 : 200).send(toAssetDetailDto(await assets.get(context, asset.id)));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/assets/:Id',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getAsset',
        summary: 'One asset',
        tags: ['Assets'],
        params: AssetIdParams,
        response: { 200: AssetDetailSchema },
      },
      handler: async (request) => toAssetDetailDto(await assets.get(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'PATCH',
      url: '/assets/:Id',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'updateAsset',
        summary: 'Change what people say about an asset',
        description: 'Friendly name, business criticality (1–5) and C/I/A ratings, owner, exposure, tags.',
        tags: ['Assets'],
        params: AssetIdParams,
        body: UpdateAssetSchema,
        response: { 200: AssetDetailSchema },
      },
      handler: async (request) => {
        const changes = assetPatchFromBody(request.body);
        const updated = await assets.update(contextOf(request), request.params.Id, changes);
        return toAssetDetailDto(updated);
      },
    });

    route(app, ctx, {
      method: 'DELETE',
      url: '/assets/:Id',
      channels: BOTH,
      access: { role: 'Manager' },
      schema: {
        operationId: 'deleteAsset',
        summary: 'Delete an asset and its findings',
        tags: ['Assets'],
        params: AssetIdParams,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
      handler: async (request, reply) => {
        await assets.delete(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/assets/bulk/tags',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'bulkTagAssets',
        summary: 'Add or remove tags on every asset that matches a filter',
        tags: ['Assets'],
        body: BulkTagSchema,
        response: { 200: Type.Object({ Changed: Type.Integer() }, { additionalProperties: false }) },
      },
      handler: async (request) => {
        const { Filter: f, Add, Remove } = request.body;
        const changed = await assets.bulkTag(contextOf(request), assetFilterFrom(f), Add ?? [], Remove ?? []);
        return { Changed: changed };
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/assets/:Id/services',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssetServices',
        summary: 'The services (open ports) of a host',
        tags: ['Assets'],
        params: AssetIdParams,
        response: { 200: Type.Array(ServiceSchema) },
      },
      handler: async (request) =>
        (await assets.services(contextOf(request), request.params.Id)).map(toServiceDto),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/assets/:Id/services',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'recordAssetService',
        summary: 'Record a service seen on a host',
        description:
          'The same port and protocol is the same service: 201 when new, 200 when merged (product, version, CPE and banner update).',
        tags: ['Assets'],
        params: AssetIdParams,
        body: CreateServiceSchema,
        response: { 200: ServiceSchema, 201: ServiceSchema },
      },
      handler: async (request, reply) => {
        const input = serviceInputFromBody(request.body);
        const row = await assets.observeService(contextOf(request), request.params.Id, input);
        return reply.code(row.inserted ? 201 : 200).send(toServiceDto(row));
      },
    });
  };
