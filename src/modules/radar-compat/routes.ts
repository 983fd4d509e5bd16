import { Type } from 'typebox';
import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { checkByGuid } from '../../scanning/checks/index.js';
import type { AssetService } from '../assets/service.js';
import type { ServiceContext } from '../context.js';
import type { FindingService } from '../findings/service.js';
import type { SoftwareService } from '../software/service.js';
import type { VulnerabilityService } from '../vulnerabilities/service.js';
import {
  toRadarCheckDetailed,
  toRadarDetailed,
  toRadarFinding,
  toRadarHosts,
  toRadarPage,
  toRadarRatings,
  toRadarSoftware,
  toRadarThing,
} from './presenters.js';
import { isEveryCategory, trimPathParams, type Vulnerability } from './quirks.js';
import {
  AssetIdParams,
  AssetPaging,
  FindingPageSchema,
  HostPageSchema,
  InstalledSoftwareQuery,
  OptionalFilters,
  Paging,
  PluginGuidIdParams,
  RatingsSchema,
  SoftwarePageSchema,
  SystemScanDetailedSchema,
  ThingPageSchema,
  WebScanDetailedSchema,
} from './schemas.js';

/** Which findings a Rampart scan reported: the scope of a system (or web) scan, null for an unknown id. */
export interface ScanScopes {
  scopeOf(ctx: ServiceContext, scanId: string): Promise<string | null>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Said of every route whose path carries an id. */
const PATH_IDS = 'An id in the path may carry surrounding spaces (`%20{Id}`), as some clients send it.';

/**
 * Calls that existing integrations of the original service (WithSecure Elements VM, formerly
 * F-Secure Radar) make, answered as they expect. Real client scripts send them to either channel,
 * so both serve them. Paging is by offset here, as those clients do it. Those clients treat any
 * answer but 200 as fatal and read fields without checking for null, hence the habits below
 * (see quirks.ts, and docs/api.md on the original service's calls).
 */
export const radarCompatRoutes =
  (
    assets: AssetService,
    findings: FindingService,
    software: SoftwareService,
    vulnerabilities: VulnerabilityService,
    scans: ScanScopes = { scopeOf: async () => null },
  ): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Compatibility'] });

    /**
     * The vulnerability a PluginGuidId names: its own id, which is what findings reports answer
     * (unique and safe in a path, where scanner rule ids are neither), or a scanner rule id.
     */
    const byPluginGuidId = async (context: ServiceContext, id: string): Promise<Vulnerability> => {
      if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
        try {
          return await vulnerabilities.get(context, id.toLowerCase());
        } catch (error) {
          if (!(error instanceof AppError && error.problem === Problems.NotFound)) throw error;
        }
      }
      return vulnerabilities.byPluginId(context, id);
    };

    /** The body's ScanId as the scope of that scan's findings; an unknown one is a 404, as the original answers. */
    const scanScopeOf = async (context: ServiceContext, body: unknown): Promise<string | null> => {
      const raw =
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>).ScanId : undefined;
      if (raw === undefined || raw === null || raw === '') return null;
      const id = String(raw).trim();
      const scope = UUID.test(id) ? await scans.scopeOf(context, id.toLowerCase()) : null;
      if (!scope) throw AppError.of(Problems.NotFound, `No scan ${id.slice(0, 100)} in your organisation.`);
      return scope;
    };

    const detailedOf = async (context: ServiceContext, id: string) => {
      // A Rampart check's PluginGuidId: the catalogue defines the check for every organisation.
      const check = checkByGuid(id);
      if (check) return { referenceId: check.id, body: toRadarCheckDetailed(check) };
      const v = await byPluginGuidId(context, id);
      // Where the check's findings are says what kind of check it is.
      const first = await findings.listOffset(context, { vulnerabilityId: v.id }, 0, 1);
      return { referenceId: v.pluginId ?? '', body: toRadarDetailed(v, first.items[0]?.locationKind) };
    };

    group.get('/assets/any', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'anyAssets',
        summary: 'Whether the organisation has any host to list',
        description: 'True when `assets/withstartindex/…` lists at least one asset.',
        response: { 200: Type.Boolean() },
      },
      handler: async (request) =>
        (await assets.listOffset(contextOf(request), { withAddress: true }, 0, 1)).totalCount > 0,
    });

    group.post('/assets/withstartindex/:StartIndex/andpagesize/:PageSize', {
      access: { role: 'ReadOnly' },
      idempotency: false,
      schema: {
        operationId: 'listAssetsByOffset',
        summary: 'Assets by offset, as the original service lists them',
        description:
          'The original lists hosts, and its clients parse `IpAddress`: only assets with an IP address are listed, with their first one.',
        params: Paging,
        body: Type.Optional(OptionalFilters),
        response: {
          200: HostPageSchema,
        },
      },
      handler: async (request) => {
        const { StartIndex, PageSize } = request.params;
        const page = await assets.listOffset(contextOf(request), { withAddress: true }, StartIndex, PageSize);
        return toRadarPage(page, toRadarHosts);
      },
    });

    group.post('/things/withStartIndex/:StartIndex/andPageSize/:PageSize', {
      access: { role: 'ReadOnly' },
      idempotency: false,
      schema: {
        operationId: 'listThingsByOffset',
        summary: 'Hosts by offset, as the original lists its endpoint agents',
        description:
          'Rampart has no endpoint agents: this lists the host assets it knows that have an IP address (from scans and imports), by name, with their first address. `AdGroupName` is the asset’s tags, comma-separated, or null: Rampart knows no directory groups.',
        params: Paging,
        body: Type.Optional(OptionalFilters),
        response: { 200: ThingPageSchema },
      },
      handler: async (request) => {
        const { StartIndex, PageSize } = request.params;
        const filter = { kind: 'Host', withAddress: true } as const;
        const page = await assets.listOffset(contextOf(request), filter, StartIndex, PageSize);
        return toRadarPage(page, toRadarThing);
      },
    });

    group.get('/assethosts/asset/:AssetId', {
      access: { role: 'ReadOnly' },
      preValidation: trimPathParams,
      schema: {
        operationId: 'getAssetHostRatings',
        summary: 'An asset’s business ratings, as the original service answers',
        description: PATH_IDS,
        params: AssetIdParams,
        response: {
          200: RatingsSchema,
        },
      },
      handler: async (request) => {
        const a = await assets.get(contextOf(request), request.params.AssetId);
        return toRadarRatings(a);
      },
    });

    group.post(
      '/assets/:AssetId/reports/latest/vulnerabilitiesandfindings/withStartIndex/:StartIndex/andPageSize/:PageSize',
      {
        access: { role: 'ReadOnly' },
        idempotency: false,
        preValidation: trimPathParams,
        schema: {
          operationId: 'listAssetFindingsByOffset',
          summary: 'An asset’s open findings by offset, as the original service lists them',
          description: `\`PluginGuidId\` is the vulnerability's id (a Rampart check's stable id for findings of Rampart's own scans): \`vulnerabilities/systemscan/{PluginGuidId}/detailed\` (or \`webscan\`) resolves every one. A body \`ScanId\` (a system scan's id) keeps only the findings that scan reported; an unknown ScanId answers 404, as the original does. ${PATH_IDS}`,
          params: AssetPaging,
          body: Type.Optional(OptionalFilters),
          response: {
            200: FindingPageSchema,
          },
        },
        handler: async (request) => {
          const { AssetId, StartIndex, PageSize } = request.params;
          const context = contextOf(request);
          await assets.get(context, AssetId);
          const scopeName = await scanScopeOf(context, request.body);
          const page = await findings.listOffset(
            context,
            // Unconfirmed findings are left out, as GET /findings leaves them out by default.
            {
              assetId: AssetId,
              states: ['Open', 'Reopened'],
              confidence: 'Confirmed',
              ...(scopeName ? { scopeName } : {}),
            },
            StartIndex,
            PageSize,
          );
          return toRadarPage(page, toRadarFinding);
        },
      },
    );

    group.post('/assets/installedsoftware/withStartIndex/:StartIndex/andPageSize/:PageSize', {
      access: { role: 'ReadOnly' },
      idempotency: false,
      schema: {
        operationId: 'listInstalledSoftwareByOffset',
        summary: 'The software installed on an asset by offset, as the original service lists it',
        description:
          'VulnerabilitiesHigh counts Critical and High open findings in the package. An empty categoryName, "All" or "assets/installedsoftware" (what the original\'s clients send) lists every category.',
        params: Paging,
        body: InstalledSoftwareQuery,
        response: {
          200: SoftwarePageSchema,
        },
      },
      handler: async (request) => {
        const { StartIndex, PageSize } = request.params;
        const { AssetHostId, categoryName } = request.body;
        const category = isEveryCategory(categoryName) ? undefined : (categoryName ?? undefined);
        const page = await software.listOffset(
          contextOf(request),
          AssetHostId,
          { category },
          StartIndex,
          PageSize,
        );
        return toRadarPage(page, toRadarSoftware);
      },
    });

    const pluginGuidIdHelp = `\`PluginGuidId\` is what a findings report answers (the vulnerability's id) or a scanner's rule id. ${PATH_IDS}`;

    group.get('/vulnerabilities/systemscan/:PluginGuidId/detailed', {
      access: { role: 'ReadOnly' },
      preValidation: trimPathParams,
      schema: {
        operationId: 'getSystemScanVulnerabilityDetailed',
        summary: 'A vulnerability by its PluginGuidId, as the original service answered',
        description: pluginGuidIdHelp,
        params: PluginGuidIdParams,
        response: { 200: SystemScanDetailedSchema },
      },
      handler: async (request) => (await detailedOf(contextOf(request), request.params.PluginGuidId)).body,
    });

    group.get('/vulnerabilities/webscan/:PluginGuidId/detailed', {
      access: { role: 'ReadOnly' },
      preValidation: trimPathParams,
      schema: {
        operationId: 'getWebScanVulnerabilityDetailed',
        summary: 'A vulnerability by its PluginGuidId, as the original service answered for web scans',
        description: pluginGuidIdHelp,
        params: PluginGuidIdParams,
        response: {
          200: WebScanDetailedSchema,
        },
      },
      handler: async (request) => {
        const { referenceId, body } = await detailedOf(contextOf(request), request.params.PluginGuidId);
        return { ...body, ReferenceId: referenceId };
      },
    });
  };
