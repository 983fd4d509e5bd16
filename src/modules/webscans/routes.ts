import type { Static } from 'typebox';
import { type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { toRunSummaryDto } from '../discoveryscans/presenters.js';
import { RunSummarySchema } from '../discoveryscans/schemas.js';
import { toWebRunReportDto, toWebScanDto } from './presenters.js';
import {
  WebRunReportSchema,
  WebScanBody,
  WebScanIdParams,
  WebScanListQuery,
  WebScanListSchema,
  WebScanSchema,
} from './schemas.js';
import type { WebScanService } from './service.js';
import type { WebScan, WebScanInput } from './types.js';

/** Our body as the service takes it. */
export function webScanInputOf(b: Static<typeof WebScanBody>): WebScanInput {
  return {
    name: b.Name,
    urls: b.Urls,
    templateId: b.TemplateId ?? null,
    nodeId: b.ScanNodeId ?? null,
    schedule: b.Schedule ?? null,
  };
}

const URL_RULES =
  'Each URL must be absolute http or https without credentials, and its host inside the organisation’s allowed scan targets (a host name by the name rules, an address by the ranges, never an always-refused address): otherwise 400 or 422 `scan-target-refused` naming `/Urls/{i}`.';

export const webScanRoutes =
  (scans: WebScanService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Web scans'];
    const dto = async (request: Parameters<typeof contextOf>[0], s: WebScan) =>
      toWebScanDto(
        s,
        await scans.latestRun(contextOf(request), s.id),
        await scans.nextRunAt(contextOf(request), s.id),
      );

    route(app, ctx, {
      method: 'GET',
      url: '/webscans',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listWebScans',
        summary: 'Web scans, newest first, each with its latest run',
        tags,
        querystring: WebScanListQuery,
        response: { 200: WebScanListSchema },
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
      url: '/webscans',
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'createWebScan',
        summary: 'Create a web scan',
        description: `Saves the scan; it runs when started (\`POST /webscans/{Id}/start\`) or on its schedule. The template defaults to the built-in web template. ${URL_RULES}`,
        tags,
        body: WebScanBody,
        response: { 201: WebScanSchema },
      },
      handler: async (request, reply) => {
        const scan = await scans.create(contextOf(request), webScanInputOf(request.body));
        return reply.code(201).send(await dto(request, scan));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/webscans/:Id',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getWebScan',
        summary: 'One web scan with its latest run',
        tags,
        params: WebScanIdParams,
        response: { 200: WebScanSchema },
      },
      handler: async (request) => dto(request, await scans.get(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'PUT',
      url: '/webscans/:Id',
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'updateWebScan',
        summary: 'Change a web scan',
        description: `Takes effect from the next run. ${URL_RULES}`,
        tags,
        params: WebScanIdParams,
        body: WebScanBody,
        response: { 200: WebScanSchema },
      },
      handler: async (request) =>
        dto(request, await scans.update(contextOf(request), request.params.Id, webScanInputOf(request.body))),
    });

    route(app, ctx, {
      method: 'DELETE',
      url: '/webscans/:Id',
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: 'deleteWebScan',
        summary: 'Delete a web scan and its runs’ results',
        description: 'A scan with a run under way answers 409: stop it first. Its findings stay.',
        tags,
        params: WebScanIdParams,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
      handler: async (request, reply) => {
        await scans.remove(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/webscans/:Id/start',
      channels: ['latest'],
      access: { role: 'Analyst' },
      schema: {
        operationId: 'startWebScan',
        summary: 'Run a web scan now',
        description: `Queues a run for its node (or any node serving web scans). A scan already queued or running answers 409. ${URL_RULES}`,
        tags,
        params: WebScanIdParams,
        response: { 201: RunSummarySchema },
      },
      handler: async (request, reply) =>
        reply.code(201).send(toRunSummaryDto(await scans.start(contextOf(request), request.params.Id))),
    });

    route(app, ctx, {
      method: 'POST',
      url: '/webscans/:Id/stop',
      channels: ['latest'],
      access: { role: 'Analyst' },
      schema: {
        operationId: 'stopWebScan',
        summary: 'Stop the run under way',
        description:
          'A queued run stops at once; a running one becomes Stopping, then Stopped. No run under way: 409.',
        tags,
        params: WebScanIdParams,
        response: { 200: RunSummarySchema },
      },
      handler: async (request) => toRunSummaryDto(await scans.stop(contextOf(request), request.params.Id)),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/webscans/:Id/runs/latest',
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getLatestWebScanRun',
        summary: 'The latest run of a web scan: each URL’s checks, header score, notes and software',
        description:
          'With the counts of the import its results became (New, Fixed, Reopened …) once the run completed and they were ingested. 404 when the scan never ran.',
        tags,
        params: WebScanIdParams,
        response: { 200: WebRunReportSchema },
      },
      handler: async (request) =>
        toWebRunReportDto(await scans.latestReport(contextOf(request), request.params.Id)),
    });
  };
