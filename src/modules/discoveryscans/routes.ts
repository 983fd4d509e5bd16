import type { Static } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { invalid } from '../../problems/app-error.js';
import { DEFAULT_DISCOVERY_TEMPLATE_ID } from '../scantemplates/built-in.js';
import { toDiscoveryScanDto, toReportHostDto, toRunSummaryDto } from './presenters.js';
import {
  DiscoveryScanBody,
  DiscoveryScanIdParams,
  DiscoveryScanListQuery,
  DiscoveryScanListSchema,
  DiscoveryScanSchema,
  ReportParams,
  ReportQuery,
  ReportSchema,
  RunSummarySchema,
} from './schemas.js';
import type { DiscoveryScanService } from './service.js';
import type { DiscoveryScan, DiscoveryScanInput } from './types.js';

/** Our body as the service takes it. */
export function inputOf(b: Static<typeof DiscoveryScanBody>): DiscoveryScanInput {
  return {
    name: b.Name,
    targets: b.ScanTargets.map((t) => ({ range: t.Range, name: t.Name ?? null, exclude: t.Exclude ?? [] })),
    exclusions: b.Exclusions ?? [],
    templateId: b.TemplateId ?? DEFAULT_DISCOVERY_TEMPLATE_ID,
    nodeId: b.ScanNodeId ?? null,
    notifications: (b.Notifications ?? []).map((n) => ({
      emailAddresses: n.EmailAddresses,
      level: n.NotificationLevel,
    })),
    responsibleUserId: b.ResponsibleUserId ?? null,
    schedule: b.Schedule ?? null,
  };
}

const TARGET_RULES =
  'Every target must lie inside the organisation’s allowed scan targets (Settings), be at most a /16, and avoid the always-refused addresses (multicast, broadcast, link-local including 169.254.169.254, reserved, unspecified; loopback unless the server allows it): otherwise 422 `scan-target-refused` naming the target and the rule.';

export const discoveryScanRoutes =
  (scans: DiscoveryScanService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Discovery scans'];
    const dto = async (request: Parameters<typeof contextOf>[0], s: DiscoveryScan) =>
      toDiscoveryScanDto(
        s,
        await scans.latestRun(contextOf(request), s.id),
        await scans.nextRunAt(contextOf(request), s.id),
        await scans.scheduleId(contextOf(request), s.id),
      );

    route(app, ctx, {
      method: 'GET',
      url: '/discoveryscans',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listDiscoveryScans',
        summary: 'Discovery scans, newest first, each with its latest run',
        tags,
        querystring: DiscoveryScanListQuery,
        response: { 200: DiscoveryScanListSchema },
      },
      handler: async (request) => {
        const page = await scans.list(contextOf(request), {
          pageSize: request.query.PageSize ?? 50,
          cursor: request.query.Cursor,
        });
        return {
          Items: await Promise.all(page.items.map((s) => dto(request, s))),
          NextCursor: page.nextCursor,
          TotalCount: page.totalCount,
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/discoveryscans',
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'createDiscoveryScan',
        summary: 'Create a discovery scan',
        description: [
          'Saves the scan; it runs when started (`POST /discoveryscans/{Id}/runs`). The template defaults to "Host Discovery [T1]".',
          TARGET_RULES,
          'The integration channel answers this path as the original service does (its body, the new id as the answer).',
        ].join('\n\n'),
        tags,
        body: DiscoveryScanBody,
        response: { 201: DiscoveryScanSchema },
      },
      handler: async (request, reply) => {
        const scan = await scans.create(contextOf(request), inputOf(request.body));
        return reply.code(201).send(await dto(request, scan));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/discoveryscans/:Id',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getDiscoveryScan',
        summary: 'One discovery scan with its latest run and its progress',
        tags,
        params: DiscoveryScanIdParams,
        response: { 200: DiscoveryScanSchema },
      },
      handler: async (request) => dto(request, await scans.get(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'PUT',
      url: '/discoveryscans/:Id',
      channels: BOTH,
      access: { role: 'Manager' },
      schema: {
        operationId: 'updateDiscoveryScan',
        summary: 'Change a discovery scan',
        description: `Takes effect from the next run. ${TARGET_RULES}`,
        tags,
        params: DiscoveryScanIdParams,
        body: DiscoveryScanBody,
        response: { 200: DiscoveryScanSchema },
      },
      handler: async (request) =>
        dto(request, await scans.update(contextOf(request), request.params.Id, inputOf(request.body))),
    });

    route(app, ctx, {
      method: 'DELETE',
      url: '/discoveryscans/:Id',
      channels: BOTH,
      access: { role: 'Manager' },
      schema: {
        operationId: 'deleteDiscoveryScan',
        summary: 'Delete a discovery scan and its reports',
        description: 'A scan with a run under way answers 409: stop it first. The assets it found stay.',
        tags,
        params: DiscoveryScanIdParams,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
      handler: async (request, reply) => {
        await scans.delete(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/discoveryscans/:Id/runs',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'startDiscoveryScan',
        summary: 'Run a discovery scan now',
        description: `Queues a run for its node (or any node serving discovery). A scan already queued or running answers 409. ${TARGET_RULES}`,
        tags,
        params: DiscoveryScanIdParams,
        response: { 201: RunSummarySchema },
      },
      handler: async (request, reply) =>
        reply.code(201).send(toRunSummaryDto(await scans.start(contextOf(request), request.params.Id))),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/discoveryscans/:Id/stop',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'stopDiscoveryScan',
        summary: 'Stop the run under way',
        description:
          'A queued run stops at once; a running one becomes Stopping and its node ends it within seconds (Stopped). No run under way: 409.',
        tags,
        params: DiscoveryScanIdParams,
        response: { 200: RunSummarySchema },
      },
      handler: async (request) => toRunSummaryDto(await scans.stop(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/discoveryscans/:Id/reports/:RunId/hosts',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listDiscoveryReportHosts',
        summary: 'The hosts a run found, by address, new and gone marked',
        description:
          '`latest` is the latest completed run. While a run is under way its hosts show as Found; when it completes each becomes New or Seen, and the hosts the previous completed run found and this one did not are listed as Gone.',
        tags,
        params: ReportParams,
        querystring: ReportQuery,
        response: { 200: ReportSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const limit = q.PageSize ?? 100;
        const offset = q.Cursor ? offsetOf(q.Cursor) : 0;
        const report = await scans.report(contextOf(request), request.params.Id, request.params.RunId, {
          status: q.Status,
          offset,
          limit,
        });
        const next = offset + report.items.length;
        return {
          RunId: report.runId,
          Counts: {
            New: report.counts.New,
            Seen: report.counts.Seen,
            Gone: report.counts.Gone,
            Found: report.counts.Found,
          },
          Items: report.items.map(toReportHostDto),
          NextCursor: next < report.totalCount ? encodeCursor({ Offset: String(next) }) : null,
          TotalCount: report.totalCount,
        };
      },
    });
  };

function offsetOf(cursor: string): number {
  const key = decodeCursor(cursor, ['Offset']);
  const n = key ? Number(key.Offset) : Number.NaN;
  if (!Number.isInteger(n) || n < 0) throw invalid('cursor', 'is not a cursor this list gave');
  return n;
}
