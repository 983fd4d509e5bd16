import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import type { ServiceContext } from '../context.js';
import type { ScanRouteTexts } from './kind.js';
import { toPageDto, toRunSummaryDto } from './presenters.js';
import { RunSummarySchema, ScanIdParams, ScanListQuery, scanListSchema } from './schemas.js';
import type { SavedScanService } from './service.js';
import type { SavedScan, SavedScanWrite } from './types.js';

type IdRequest = FastifyRequest<{ Params: { Id: string } }>;

/**
 * A kind's saved-scan routes, from its definition: list, create, get, change, delete, start and
 * stop, in each channel that serves them (create only in the latest channel: the integration
 * channel's create takes the original service's body).
 */
export function savedScanRoutes<
  Scan extends SavedScan,
  Input,
  Write extends SavedScanWrite,
  Body extends TSchema,
  Narrowing,
>(
  scans: SavedScanService<Scan, Input, Write, Body, Narrowing>,
  answers: {
    /** The latest run's report as the API answers it, for a kind that describes `latestRun`. */
    latestRun?: (ctx: ServiceContext, id: string) => Promise<unknown>;
  } = {},
): ChannelRoutes {
  const http = scans.definition.http;
  const { base, tags, operationName: name, schemas } = http;
  const texts = routeTexts(scans.definition.kind, scans.definition.noun, http.texts);
  const channels = http.channels ?? ['latest'];
  const params = ScanIdParams;
  const inputOf = (request: FastifyRequest) => http.inputOf(request.body as Static<Body>);
  const dto = async (request: FastifyRequest, s: Scan) => {
    const ctx = contextOf(request);
    return http.toDto(s, {
      lastRun: await scans.latestRun(ctx, s.id),
      nextRunAt: await scans.nextRunAt(ctx, s.id),
      scheduleId: await scans.scheduleId(ctx, s.id),
    });
  };
  return (app, ctx) => {
    route(app, ctx, {
      method: 'GET',
      url: base,
      channels,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: `list${name}s`,
        ...texts.list,
        tags,
        querystring: schemas.listQuery ?? ScanListQuery,
        response: { 200: scanListSchema(schemas.scan) },
      },
      handler: async (request) => {
        const q = request.query as { PageSize?: number; Cursor?: string; ScanGroupId?: string };
        const page = await scans.list(contextOf(request), {
          pageSize: q.PageSize ?? 50,
          ...(q.Cursor ? { cursor: q.Cursor } : {}),
          ...(q.ScanGroupId ? { scanGroupId: q.ScanGroupId } : {}),
        });
        return toPageDto(page, (s) => dto(request, s));
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: base,
      channels: ['latest'],
      access: { role: 'Manager' },
      schema: {
        operationId: `create${name}`,
        ...texts.create,
        tags,
        body: schemas.body,
        response: { 201: schemas.scan },
      },
      handler: async (request, reply) => {
        const scan = await scans.create(contextOf(request), inputOf(request));
        return reply.code(201).send(await dto(request, scan));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: `${base}/:Id`,
      channels,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: `get${name}`,
        ...texts.get,
        tags,
        params,
        response: { 200: schemas.scan },
      },
      handler: async (request) => dto(request, await scans.get(contextOf(request), idOf(request))),
    });

    route(app, ctx, {
      method: 'PUT',
      url: `${base}/:Id`,
      channels,
      access: { role: 'Manager' },
      schema: {
        operationId: `update${name}`,
        ...texts.update,
        tags,
        params,
        body: schemas.body,
        response: { 200: schemas.scan },
      },
      handler: async (request) =>
        dto(request, await scans.update(contextOf(request), idOf(request), inputOf(request))),
    });

    route(app, ctx, {
      method: 'DELETE',
      url: `${base}/:Id`,
      channels,
      access: { role: 'Manager' },
      schema: {
        operationId: `delete${name}`,
        ...texts.delete,
        tags,
        params,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
      handler: async (request, reply) => {
        await scans.remove(contextOf(request), idOf(request));
        return reply.code(204).send();
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: `${base}/:Id/${http.startPath}`,
      channels,
      access: { role: 'Analyst' },
      schema: {
        operationId: `start${name}`,
        ...texts.start,
        tags,
        params,
        response: { 201: RunSummarySchema },
      },
      handler: async (request, reply) =>
        reply.code(201).send(toRunSummaryDto(await scans.start(contextOf(request), idOf(request)))),
    });

    route(app, ctx, {
      method: 'POST',
      url: `${base}/:Id/stop`,
      channels,
      access: { role: 'Analyst' },
      schema: {
        operationId: `stop${name}`,
        ...texts.stop,
        tags,
        params,
        response: { 200: RunSummarySchema },
      },
      handler: async (request) => toRunSummaryDto(await scans.stop(contextOf(request), idOf(request))),
    });

    const latestRun = http.latestRun;
    const answer = answers.latestRun;
    if (latestRun && !answer)
      throw new Error(`The routes of ${base} describe the latest run but do not answer it.`);
    if (latestRun && answer)
      route(app, ctx, {
        method: 'GET',
        url: `${base}/:Id/runs/latest`,
        channels,
        access: { role: 'ReadOnly' },
        schema: {
          operationId: latestRun.operationId,
          summary: latestRun.summary,
          ...(latestRun.description ? { description: latestRun.description } : {}),
          tags,
          params,
          response: { 200: latestRun.schema },
        },
        handler: async (request) => answer(contextOf(request), idOf(request)),
      });
  };
}

function idOf(request: FastifyRequest): string {
  return (request as IdRequest).params.Id;
}

/** Every route's texts: what the kind says, and what is said alike of every kind. */
function routeTexts(kind: string, noun: string, t: ScanRouteTexts) {
  return {
    list: { summary: `${kind} scans, newest first, each with its latest run` },
    create: { summary: `Create a ${noun}`, description: t.create },
    get: { summary: t.get ?? `One ${noun} with its latest run` },
    update: { summary: `Change a ${noun}`, description: `Takes effect from the next run. ${t.targetRules}` },
    delete: t.delete,
    start: {
      summary: `Run a ${noun} now`,
      description: `Queues a run for its node (or any node serving ${t.nodesServing}). A scan already queued or running answers 409. ${t.targetRules}`,
    },
    stop: { summary: 'Stop the run under way', description: t.stop },
  };
}
