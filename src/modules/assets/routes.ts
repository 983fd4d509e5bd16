import { Type } from 'typebox';
import { type ChannelRoutes, jsonOrCsv, noContent, routeGroup } from '../../http/channels.js';
import { sendCsv, wantsCsv } from '../../http/csv.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
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
    const group = routeGroup(app, ctx, { tags: ['Assets'] });
    group.get('/assets', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssets',
        summary: 'Assets of your organisation',
        description:
          'Ordered by name; keyset pages (pass NextCursor as Cursor). With `Accept: text/csv`, all of them as streamed CSV.',
        querystring: AssetListQuery,
        response: {
          200: jsonOrCsv('A page of assets, or all of them as CSV.', AssetListSchema),
        },
      },
      handler: async (request, reply) => {
        const q = request.query;
        const filter = assetFilterFrom(q);
        const context = contextOf(request);
        if (wantsCsv(request))
          return sendCsv(request, reply, 'assets.csv', ASSET_CSV, assets.export(context, filter));
        const page = await assets.list(context, filter, q.PageSize ?? 100, q.Cursor);
        return toPageDto(page, toAssetListItemDto);
      },
    });

    group.post('/assets', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createAsset',
        summary: 'Add an asset by hand',
        description:
          'Same identity rules as imports: when the asset shares an identifier (FQDN, IP or MAC address, URL) with a known one, ' +
          'the report is merged into it and the answer is 200 with that asset; otherwise 201.',
        body: CreateAssetSchema,
        response: { 200: AssetDetailSchema, 201: AssetDetailSchema },
      },
      handler: async (request, reply) => {
        const context = contextOf(request);
        const { asset, created } = await assets.observe(context, assetInputFromBody(request.body));
        return reply.code(created ? 201 : 200).send(toAssetDetailDto(await assets.get(context, asset.id)));
      },
    });

    group.get('/assets/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getAsset',
        summary: 'One asset',
        params: IdParams,
        response: { 200: AssetDetailSchema },
      },
      handler: async (request) => toAssetDetailDto(await assets.get(contextOf(request), request.params.Id)),
    });

    group.patch('/assets/:Id', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'updateAsset',
        summary: 'Change what people say about an asset',
        description: 'Friendly name, business criticality (1–5) and C/I/A ratings, owner, exposure, tags.',
        params: IdParams,
        body: UpdateAssetSchema,
        response: { 200: AssetDetailSchema },
      },
      handler: async (request) => {
        const changes = assetPatchFromBody(request.body);
        const updated = await assets.update(contextOf(request), request.params.Id, changes);
        return toAssetDetailDto(updated);
      },
    });

    group.delete('/assets/:Id', {
      access: { role: 'Manager' },
      schema: {
        operationId: 'deleteAsset',
        summary: 'Delete an asset and its findings',
        params: IdParams,
        response: { 204: noContent('Deleted.') },
      },
      handler: async (request, reply) => {
        await assets.delete(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    group.post('/assets/bulk/tags', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'bulkTagAssets',
        summary: 'Add or remove tags on every asset that matches a filter',
        body: BulkTagSchema,
        response: { 200: Type.Object({ Changed: Type.Integer() }, { additionalProperties: false }) },
      },
      handler: async (request) => {
        const { Filter: f, Add, Remove } = request.body;
        const changed = await assets.bulkTag(contextOf(request), assetFilterFrom(f), Add ?? [], Remove ?? []);
        return { Changed: changed };
      },
    });

    group.get('/assets/:Id/services', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssetServices',
        summary: 'The services (open ports) of a host',
        params: IdParams,
        response: { 200: Type.Array(ServiceSchema) },
      },
      handler: async (request) =>
        (await assets.services(contextOf(request), request.params.Id)).map(toServiceDto),
    });

    group.post('/assets/:Id/services', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'recordAssetService',
        summary: 'Record a service seen on a host',
        description:
          'The same port and protocol is the same service: 201 when new, 200 when merged (product, version, CPE and banner update).',
        params: IdParams,
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
