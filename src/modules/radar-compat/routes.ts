import { Type } from 'typebox';
import { type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import type { AssetService } from '../assets/service.js';
import type { FindingService } from '../findings/service.js';
import type { SoftwareService } from '../software/service.js';

/**
 * Calls that existing integrations of the original service (WithSecure Elements VM, formerly
 * F-Secure Radar) make, answered as they expect, in the integration channel only. See
 * RADAR-COMPAT in the README. Paging is by offset here, as those clients do it.
 */
const Paging = Type.Object(
  {
    StartIndex: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    PageSize: Type.Integer({ minimum: 1, maximum: 500 }),
  },
  { additionalProperties: false },
);
const AssetPaging = Type.Object(
  { ...Paging.properties, AssetId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
// Clients send a filter object (or nothing); Rampart reads what it understands of it.
const OptionalFilters = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);
const RISK_LEVEL: Record<string, string> = {
  Critical: 'High',
  High: 'High',
  Medium: 'Medium',
  Low: 'Low',
  Info: 'Information',
};

export const radarCompatRoutes =
  (assets: AssetService, findings: FindingService, software: SoftwareService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Compatibility'];
    const integration = ['integration'] as const;

    route(app, ctx, {
      method: 'GET',
      url: '/assets/any',
      channels: integration,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'anyAssets',
        summary: 'Whether the organisation has any asset',
        tags,
        response: { 200: Type.Boolean() },
      },
      handler: async (request) => (await assets.listOffset(contextOf(request), {}, 0, 1)).totalCount > 0,
    });

    route(app, ctx, {
      method: 'POST',
      url: '/assets/withstartindex/:StartIndex/andpagesize/:PageSize',
      channels: integration,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssetsByOffset',
        summary: 'Assets by offset, as the original service lists them',
        tags,
        params: Paging,
        body: Type.Optional(OptionalFilters),
        response: {
          200: Type.Object({
            Items: Type.Array(
              Type.Object({
                Id: Type.String(),
                AssetHostId: Type.String(),
                Hostname: Type.Union([Type.String(), Type.Null()]),
                IpAddress: Type.Union([Type.String(), Type.Null()]),
                FriendlyName: Type.Union([Type.String(), Type.Null()]),
                MacAddress: Type.Union([Type.String(), Type.Null()]),
                OperatingSystem: Type.Union([Type.String(), Type.Null()]),
                DomainName: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
            TotalCount: Type.Integer(),
          }),
        },
      },
      handler: async (request) => {
        const { StartIndex, PageSize } = request.params;
        const page = await assets.listOffset(contextOf(request), {}, StartIndex, PageSize);
        return {
          Items: page.items.map((a) => ({
            Id: a.id,
            AssetHostId: a.id,
            Hostname: a.hostname ?? a.name,
            IpAddress: a.ip_addresses[0] ?? null,
            FriendlyName: a.friendly_name,
            MacAddress: a.mac_addresses[0] ?? null,
            OperatingSystem: a.operating_system,
            DomainName: a.domain_name,
          })),
          TotalCount: page.totalCount,
        };
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/assethosts/asset/:AssetId',
      channels: integration,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getAssetHostRatings',
        summary: 'An asset’s business ratings, as the original service answers',
        tags,
        params: Type.Object({ AssetId: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            Id: Type.String(),
            AssetId: Type.String(),
            Confidentiality: Type.Integer(),
            Integrity: Type.Integer(),
            Availability: Type.Integer(),
            Criticality: Type.Integer(),
          }),
        },
      },
      handler: async (request) => {
        const a = await assets.get(contextOf(request), request.params.AssetId);
        // Unrated dimensions take the asset's overall criticality.
        return {
          Id: a.id,
          AssetId: a.id,
          Confidentiality: a.confidentiality ?? a.criticality,
          Integrity: a.integrity ?? a.criticality,
          Availability: a.availability ?? a.criticality,
          Criticality: a.criticality,
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/assets/:AssetId/reports/latest/vulnerabilitiesandfindings/withStartIndex/:StartIndex/andPageSize/:PageSize',
      channels: integration,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listAssetFindingsByOffset',
        summary: 'An asset’s open findings by offset, as the original service lists them',
        tags,
        params: AssetPaging,
        body: Type.Optional(OptionalFilters),
        response: {
          200: Type.Object({
            Items: Type.Array(
              Type.Object({
                Id: Type.String(),
                PluginGuidId: Type.Union([Type.String(), Type.Null()]),
                Name: Type.String(),
                RiskLevel: Type.String(),
                CVEReferences: Type.Array(Type.Object({ Name: Type.String() })),
                Port: Type.Union([Type.Integer(), Type.Null()]),
                Protocol: Type.Union([Type.String(), Type.Null()]),
                State: Type.String(),
                FirstSeen: Type.String(),
                LastSeen: Type.String(),
              }),
            ),
            TotalCount: Type.Integer(),
          }),
        },
      },
      handler: async (request) => {
        const { AssetId, StartIndex, PageSize } = request.params;
        const context = contextOf(request);
        await assets.get(context, AssetId);
        const page = await findings.listOffset(
          context,
          { assetId: AssetId, states: ['Open', 'Reopened'] },
          StartIndex,
          PageSize,
        );
        return {
          Items: page.items.map((f) => ({
            Id: f.id,
            PluginGuidId: f.plugin_id ?? f.vulnerability_id,
            Name: f.title,
            RiskLevel: RISK_LEVEL[f.effective_severity] ?? 'Information',
            CVEReferences: f.cve_ids.map((Name) => ({ Name })),
            Port: f.port,
            Protocol: f.protocol,
            State: f.state,
            FirstSeen: f.first_seen_at.toISOString(),
            LastSeen: f.last_seen_at.toISOString(),
          })),
          TotalCount: page.totalCount,
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/assets/installedsoftware/withStartIndex/:StartIndex/andPageSize/:PageSize',
      channels: integration,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listInstalledSoftwareByOffset',
        summary: 'The software installed on an asset by offset, as the original service lists it',
        description:
          'VulnerabilitiesHigh counts Critical and High open findings in the package. An empty categoryName, or "All", lists every category.',
        tags,
        params: Paging,
        body: Type.Object(
          {
            AssetHostId: Type.String({ format: 'uuid' }),
            categoryName: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
            SortPrimary: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({
            Items: Type.Array(
              Type.Object({
                Id: Type.String(),
                Name: Type.String(),
                Version: Type.String(),
                Category: Type.String(),
                VulnerabilitiesHigh: Type.Integer(),
                VulnerabilitiesMedium: Type.Integer(),
                VulnerabilitiesLow: Type.Integer(),
              }),
            ),
            TotalCount: Type.Integer(),
          }),
        },
      },
      handler: async (request) => {
        const { StartIndex, PageSize } = request.params;
        const { AssetHostId, categoryName } = request.body;
        const category = categoryName && categoryName.toLowerCase() !== 'all' ? categoryName : undefined;
        const page = await software.listOffset(
          contextOf(request),
          AssetHostId,
          { category },
          StartIndex,
          PageSize,
        );
        return {
          Items: page.items.map((s) => ({
            Id: s.id,
            Name: s.name,
            Version: s.version,
            Category: s.category,
            VulnerabilitiesHigh: Number(s.critical ?? 0) + Number(s.high ?? 0),
            VulnerabilitiesMedium: Number(s.medium ?? 0),
            VulnerabilitiesLow: Number(s.low ?? 0),
          })),
          TotalCount: page.totalCount,
        };
      },
    });
  };
