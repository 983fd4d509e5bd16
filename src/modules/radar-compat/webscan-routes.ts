import { Type } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import type { FindingService } from '../findings/service.js';
import { webScanScope } from '../scanresults/service.js';
import type { WebScanService } from '../webscans/service.js';
import { toRadarFinding } from './presenters.js';
import { trimPathParams } from './quirks.js';
import { FindingPageSchema, OptionalFilters, Paging } from './schemas.js';

/**
 * The original service's web scan report, answered as its clients read it: the open findings the
 * scan reported, in the shape of an asset's findings report.
 */
export const radarWebScanRoutes =
  (webScans: WebScanService, findings: FindingService): ChannelRoutes =>
  (app, ctx) => {
    route(app, ctx, {
      method: 'POST',
      url: '/webscans/:Id/reports/latest/vulnerabilitiesandfindings/withstartindex/:StartIndex/andpagesize/:PageSize',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      idempotency: false,
      preValidation: trimPathParams,
      schema: {
        operationId: 'listWebScanFindingsByOffset',
        summary: 'A web scan’s open findings by offset, as the original service lists them',
        description:
          'The findings the scan’s runs reported and that are Open or Reopened, in the shape of an asset’s findings report. `PluginGuidId` resolves through `vulnerabilities/webscan/{PluginGuidId}/detailed`. A scan that never completed a run answers an empty list. An id in the path may carry surrounding spaces.',
        tags: ['Compatibility'],
        params: Type.Object(
          { Id: Type.String({ format: 'uuid' }), ...Paging.properties },
          { additionalProperties: false },
        ),
        body: Type.Optional(OptionalFilters),
        response: { 200: FindingPageSchema },
      },
      handler: async (request) => {
        const { Id, StartIndex, PageSize } = request.params;
        const context = contextOf(request);
        await webScans.get(context, Id);
        const page = await findings.listOffset(
          context,
          { scopeName: webScanScope(Id), states: ['Open', 'Reopened'], confidence: 'Confirmed' },
          StartIndex,
          PageSize,
        );
        return { Items: page.items.map(toRadarFinding), TotalCount: page.totalCount };
      },
    });
  };
