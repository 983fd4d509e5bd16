import { Type } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { type CsvColumn, sendCsv, wantsCsv } from '../../http/csv.js';
import { contextOf } from '../../http/request-context.js';
import type { AssetRow } from './repository.js';
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
import type { Asset, AssetService } from './service.js';

export const toAssetDto = (a: AssetRow) => ({
  Id: a.id,
  Kind: a.kind,
  Name: a.name,
  FriendlyName: a.friendly_name,
  Hostname: a.hostname,
  Fqdn: a.fqdn,
  DomainName: a.domain_name,
  IpAddress: a.ip_addresses[0] ?? null,
  IpAddresses: a.ip_addresses,
  MacAddress: a.mac_addresses[0] ?? null,
  MacAddresses: a.mac_addresses,
  OperatingSystem: a.operating_system,
  Url: a.url,
  Criticality: a.criticality,
  Confidentiality: a.confidentiality,
  Integrity: a.integrity,
  Availability: a.availability,
  OwnerId: a.owner_user_id,
  InternetFacing: a.internet_facing,
  Tags: a.tags,
  Sources: a.sources,
  FirstSeen: a.first_seen_at.toISOString(),
  LastSeen: a.last_seen_at.toISOString(),
  CreatedAt: a.created_at.toISOString(),
  UpdatedAt: a.updated_at.toISOString(),
});

const toDetail = (a: Asset) => ({
  ...toAssetDto(a),
  Identifiers: a.identifiers.map((i) => ({ Kind: i.kind, Value: i.value })),
});

const ASSET_CSV: readonly CsvColumn<AssetRow>[] = [
  { header: 'Id', value: (a) => a.id },
  { header: 'Kind', value: (a) => a.kind },
  { header: 'Name', value: (a) => a.name },
  { header: 'FriendlyName', value: (a) => a.friendly_name },
  { header: 'Fqdn', value: (a) => a.fqdn },
  { header: 'IpAddresses', value: (a) => a.ip_addresses.join(' ') },
  { header: 'Url', value: (a) => a.url },
  { header: 'OperatingSystem', value: (a) => a.operating_system },
  { header: 'Criticality', value: (a) => a.criticality },
  { header: 'InternetFacing', value: (a) => a.internet_facing },
  { header: 'Tags', value: (a) => a.tags.join(' ') },
  { header: 'FirstSeen', value: (a) => a.first_seen_at.toISOString() },
  { header: 'LastSeen', value: (a) => a.last_seen_at.toISOString() },
];

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
        const filter = {
          kind: q.Kind,
          tag: q.Tag,
          search: q.Search,
          internetFacing: q.InternetFacing,
          criticalityMin: q.CriticalityMin,
        };
        const context = contextOf(request);
        if (wantsCsv(request))
          return sendCsv(request, reply, 'assets.csv', ASSET_CSV, assets.stream(context, filter));
        const page = await assets.list(context, filter, q.PageSize ?? 100, q.Cursor);
        return {
          Items: page.items.map(toAssetDto),
          NextCursor: page.nextCursor,
          TotalCount: page.totalCount,
        };
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
        const b = request.body;
        const context = contextOf(request);
        const { asset, created } = await assets.observe(context, {
          kind: b.Kind,
          name: b.Name,
          friendlyName: b.FriendlyName,
          hostname: b.Hostname,
          fqdn: b.Fqdn,
          ipAddresses: b.IpAddresses,
          macAddresses: b.MacAddresses,
          operatingSystem: b.OperatingSystem,
          url: b.Url,
          image: b.Image,
          repository: b.Repository,
          criticality: b.Criticality,
          internetFacing: b.InternetFacing,
          tags: b.Tags,
          source: 'Manual',
        });
        return reply.code(created ? 201 : 200).send(toDetail(await assets.get(context, asset.id)));
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
      handler: async (request) => toDetail(await assets.get(contextOf(request), request.params.Id)),
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
        const b = request.body;
        const updated = await assets.update(contextOf(request), request.params.Id, {
          ...(b.FriendlyName !== undefined ? { friendly_name: b.FriendlyName } : {}),
          ...(b.OperatingSystem !== undefined ? { operating_system: b.OperatingSystem } : {}),
          ...(b.Criticality !== undefined ? { criticality: b.Criticality } : {}),
          ...(b.Confidentiality !== undefined ? { confidentiality: b.Confidentiality } : {}),
          ...(b.Integrity !== undefined ? { integrity: b.Integrity } : {}),
          ...(b.Availability !== undefined ? { availability: b.Availability } : {}),
          ...(b.OwnerId !== undefined ? { owner_user_id: b.OwnerId } : {}),
          ...(b.InternetFacing !== undefined ? { internet_facing: b.InternetFacing } : {}),
          ...(b.Tags !== undefined ? { tags: b.Tags } : {}),
        });
        return toDetail(updated);
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
        const changed = await assets.bulkTag(
          contextOf(request),
          {
            kind: f.Kind,
            tag: f.Tag,
            search: f.Search,
            internetFacing: f.InternetFacing,
            criticalityMin: f.CriticalityMin,
          },
          Add ?? [],
          Remove ?? [],
        );
        return { Changed: changed };
      },
    });

    const toService = (v: Awaited<ReturnType<AssetService['services']>>[number]) => ({
      Id: v.id,
      Port: v.port,
      Protocol: v.protocol,
      Name: v.name,
      Product: v.product,
      Version: v.version,
      Cpe: v.cpe,
      Banner: v.banner,
      FirstSeen: v.first_seen_at.toISOString(),
      LastSeen: v.last_seen_at.toISOString(),
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
        (await assets.services(contextOf(request), request.params.Id)).map(toService),
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
        const b = request.body;
        const row = await assets.observeService(contextOf(request), request.params.Id, {
          port: b.Port,
          protocol: b.Protocol,
          name: b.Name,
          product: b.Product,
          version: b.Version,
          cpe: b.Cpe,
          banner: b.Banner,
        });
        return reply.code(row.inserted ? 201 : 200).send(toService(row));
      },
    });
  };
