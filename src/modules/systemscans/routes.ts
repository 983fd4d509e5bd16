import type { Static } from 'typebox';
import { type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { toRunSummaryDto } from '../discoveryscans/presenters.js';
import { RunSummarySchema } from '../discoveryscans/schemas.js';
import { DEFAULT_SYSTEM_TEMPLATE_ID } from '../scantemplates/built-in.js';
import { toSystemRunReportDto, toSystemScanDto } from './presenters.js';
import {
  SystemRunReportSchema,
  SystemScanBody,
  SystemScanIdParams,
  SystemScanListQuery,
  SystemScanListSchema,
  SystemScanSchema,
} from './schemas.js';
import type { SystemScanService } from './service.js';
import type { SystemScan, SystemScanInput } from './types.js';

/** Our body as the service takes it. */
export function systemScanInputOf(b: Static<typeof SystemScanBody>): SystemScanInput {
  return {
    name: b.Name,
    targets: (b.ScanTargets ?? []).map((t) => ({
      range: t.Range,
      name: t.Name ?? null,
      exclude: t.Exclude ?? [],
    })),
    assetId: b.AssetId ?? null,
    exclusions: b.Exclusions ?? [],
    templateId: b.TemplateId ?? DEFAULT_SYSTEM_TEMPLATE_ID,
    nodeId: b.ScanNodeId ?? null,
    schedule: b.Schedule ?? null,
    scanGroupId: b.ScanGroupId ?? null,
  };
}

const TARGET_RULES =
  'Every target (or the asset’s addresses) must lie inside the organisation’s allowed scan targets: otherwise 422 `scan-target-refused` naming the target and the rule. Checked again at every start.';

export const systemScanRoutes =
  (scans: SystemScanService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['System scans'];
    const dto = async (request: Parameters<typeof contextOf>[0], s: SystemScan) =>
      toSystemScanDto(
        s,
        await scans.latestRun(contextOf(request), s.id),
        await scans.nextRunAt(contextOf(request), s.id),
      );

    route(app, ctx, {
      method: 'GET',
      url: '/systemscans',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listSystemScans',
        summary: 'System scans, newest first, each with its latest run',
        tags,
        querystring: SystemScanListQuery,
        response: { 200: SystemScanListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await scans.list(contextOf(request), {
          pageSize: q.PageSize ?? 50,
          ...(q.Cursor ? { cursor: q.Cursor } : {}),
          ...(q.ScanGroupId ? { scanGroupId: q.ScanGroupId } : {}),
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
      url: '/systemscans',
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'createSystemScan',
        summary: 'Create a system scan',
        description: [
          'Saves the scan; it runs when started (`POST /systemscans/{Id}/start`) or by its schedule. Give `ScanTargets` or a host asset’s `AssetId`. The template defaults to "System scan, well-known ports [S1]".',
          TARGET_RULES,
        ].join('\n\n'),
        tags,
        body: SystemScanBody,
        response: { 201: SystemScanSchema },
      },
      handler: async (request, reply) => {
        const scan = await scans.create(contextOf(request), systemScanInputOf(request.body));
        return reply.code(201).send(await dto(request, scan));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/systemscans/:Id',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getSystemScan',
        summary: 'One system scan with its latest run',
        tags,
        params: SystemScanIdParams,
        response: { 200: SystemScanSchema },
      },
      handler: async (request) => dto(request, await scans.get(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'PUT',
      url: '/systemscans/:Id',
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'updateSystemScan',
        summary: 'Change a system scan',
        description: `Takes effect from the next run. ${TARGET_RULES}`,
        tags,
        params: SystemScanIdParams,
        body: SystemScanBody,
        response: { 200: SystemScanSchema },
      },
      handler: async (request) =>
        dto(
          request,
          await scans.update(contextOf(request), request.params.Id, systemScanInputOf(request.body)),
        ),
    });

    route(app, ctx, {
      method: 'DELETE',
      url: '/systemscans/:Id',
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'deleteSystemScan',
        summary: 'Delete a system scan and its runs’ results',
        description: 'A scan with a run under way answers 409: stop it first. Its findings and assets stay.',
        tags,
        params: SystemScanIdParams,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
      handler: async (request, reply) => {
        await scans.remove(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/systemscans/:Id/start',
      channels: ['latest'],
      access: { role: 'Analyst' },
      schema: {
        operationId: 'startSystemScan',
        summary: 'Run a system scan now',
        description: `Queues a run for its node (or any node serving system scans). A scan already queued or running answers 409. ${TARGET_RULES}`,
        tags,
        params: SystemScanIdParams,
        response: { 201: RunSummarySchema },
      },
      handler: async (request, reply) =>
        reply.code(201).send(toRunSummaryDto(await scans.start(contextOf(request), request.params.Id))),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/systemscans/:Id/stop',
      channels: ['latest'],
      access: { role: 'Analyst' },
      schema: {
        operationId: 'stopSystemScan',
        summary: 'Stop the run under way',
        description: 'The hosts it finished are kept and become findings; no run under way: 409.',
        tags,
        params: SystemScanIdParams,
        response: { 200: RunSummarySchema },
      },
      handler: async (request) => toRunSummaryDto(await scans.stop(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/systemscans/:Id/runs/latest',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getLatestSystemScanRun',
        summary: 'The latest run: its hosts, services, checks, budgets, backport decisions and import counts',
        description:
          '`Backports` lists the upstream CVE matches the distribution’s records decided: Fixed ones made no finding. `Import` is null until the run’s findings are stored (a moment after it ends). A scan that never ran answers 404.',
        tags,
        params: SystemScanIdParams,
        response: { 200: SystemRunReportSchema },
      },
      handler: async (request) =>
        toSystemRunReportDto(await scans.latestReport(contextOf(request), request.params.Id)),
    });
  };
