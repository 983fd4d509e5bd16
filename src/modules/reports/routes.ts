import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import {
  contentDisposition,
  definitionInputFromBody,
  specFromBody,
  toDefinitionDto,
  toReportDto,
} from './presenters.js';
import {
  CreateReportSchema,
  DefinitionListQuery,
  ReportDefinitionBody,
  ReportDefinitionListSchema,
  ReportDefinitionSchema,
  ReportListQuery,
  ReportListSchema,
  ReportSchema,
} from './schemas.js';
import type { ReportService } from './service.js';

const EMPTY =
  'A scope and filter that match no findings are refused with 422 `report-scope-empty` (an ad hoc report of nothing is a mistake); a scheduled report of an empty scope is still made and says “No findings”.';

export const reportRoutes =
  (reports: ReportService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Reports'], channels: ['latest'] });

    group.post('/reports', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createReport',
        summary: 'Make a report (ad hoc)',
        description: [
          'Queues a report of the organisation, a tag (`Tag`) or a scan group (`ScanGroupId`; not both), narrowed by a findings `Filter`. A job makes it; answers 202 with the report: follow `Location` until its `State` is `Completed`, then `GET /reports/{Id}/download`.',
          EMPTY,
        ].join('\n\n'),
        body: CreateReportSchema,
        response: { 202: ReportSchema },
      },
      handler: async (request, reply) => {
        const b = request.body;
        const run = await reports.create(contextOf(request), {
          name: b.Name,
          kind: b.Kind,
          format: b.Format,
          spec: specFromBody(b),
        });
        return reply
          .code(202)
          .header('location', `/api/${ctx.channel}/reports/${run.id}`)
          .send(toReportDto(run));
      },
    });

    group.get('/reports', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listReports',
        summary: 'Report history, newest first',
        querystring: ReportListQuery,
        response: { 200: ReportListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await reports.list(contextOf(request), q.PageSize ?? 50, q.Cursor, q.DefinitionId);
        return toPageDto(page, toReportDto);
      },
    });

    group.get('/reports/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getReport',
        summary: 'One report: its state and progress',
        params: IdParams,
        response: { 200: ReportSchema },
      },
      handler: async (request) => toReportDto(await reports.get(contextOf(request), request.params.Id)),
    });

    group.get('/reports/:Id/download', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'downloadReport',
        summary: 'Download a completed report',
        description:
          'Streams the file with its `Content-Type` and a `Content-Disposition` naming it. 409 `conflict` while the report is Queued or Running, or when it Failed. Each download is recorded in the audit log (`report.downloaded`).',
        params: IdParams,
        response: {
          200: {
            description: 'The report file.',
            content: {
              'application/pdf': { schema: Type.String({ format: 'binary' }) },
              'text/html': { schema: Type.String() },
              'text/csv': { schema: Type.String() },
            },
          },
        },
      },
      handler: async (request, reply) => {
        const { run, body } = await reports.download(contextOf(request), request.params.Id);
        const stream = Readable.from(body, { objectMode: false });
        stream.on('error', (error) => request.log.error({ err: error }, 'report download failed'));
        return reply
          .header('content-type', run.contentType ?? 'application/octet-stream')
          .header('content-disposition', contentDisposition(run.fileName ?? `${run.id}`))
          .header('content-length', String(run.sizeBytes ?? 0))
          .send(stream as unknown as string);
      },
    });

    group.delete('/reports/:Id', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'deleteReport',
        summary: 'Remove a report and its file from the history',
        params: IdParams,
        response: { 204: noContent('Removed.') },
      },
      handler: async (request, reply) => {
        await reports.remove(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    group.get('/reportdefinitions', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listReportDefinitions',
        summary: 'Saved report definitions, newest first',
        querystring: DefinitionListQuery,
        response: { 200: ReportDefinitionListSchema },
      },
      handler: async (request) => {
        const page = await reports.listDefinitions(
          contextOf(request),
          request.query.PageSize ?? 50,
          request.query.Cursor,
        );
        return toPageDto(page, toDefinitionDto);
      },
    });

    const DEFINITION_HELP =
      'A definition saves what a report is about (scope and findings filter: a saved definition is a saved findings filter), its kind and format, and optionally a Weekly or Monthly `Schedule` and the `Recipients` the scheduled report is mailed to. Refused with 400 naming the field: a schedule other than Weekly, Monthly or None, an unknown time zone, an address that is not an email address, recipients without a schedule, a scan group the organisation does not have, Tag with ScanGroupId.';

    group.post('/reportdefinitions', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createReportDefinition',
        summary: 'Save a report definition',
        description: DEFINITION_HELP,
        body: ReportDefinitionBody,
        response: { 201: ReportDefinitionSchema },
      },
      handler: async (request, reply) => {
        const d = await reports.createDefinition(contextOf(request), definitionInputFromBody(request.body));
        return reply
          .code(201)
          .header('location', `/api/${ctx.channel}/reportdefinitions/${d.id}`)
          .send(toDefinitionDto(d));
      },
    });

    group.get('/reportdefinitions/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getReportDefinition',
        summary: 'One report definition',
        params: IdParams,
        response: { 200: ReportDefinitionSchema },
      },
      handler: async (request) =>
        toDefinitionDto(await reports.getDefinition(contextOf(request), request.params.Id)),
    });

    group.put('/reportdefinitions/:Id', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'updateReportDefinition',
        summary: 'Change a report definition',
        description: DEFINITION_HELP,
        params: IdParams,
        body: ReportDefinitionBody,
        response: { 200: ReportDefinitionSchema },
      },
      handler: async (request) =>
        toDefinitionDto(
          await reports.updateDefinition(
            contextOf(request),
            request.params.Id,
            definitionInputFromBody(request.body),
          ),
        ),
    });

    group.delete('/reportdefinitions/:Id', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'deleteReportDefinition',
        summary: 'Remove a report definition and its schedule',
        description: 'Its reports stay in the history.',
        params: IdParams,
        response: { 204: noContent('Removed.') },
      },
      handler: async (request, reply) => {
        await reports.removeDefinition(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });

    group.post('/reportdefinitions/:Id/run', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'runReportDefinition',
        summary: 'Make a definition’s report now',
        description:
          'Queues its report as its schedule would (202 with the report); a report run by hand is not mailed.',
        params: IdParams,
        response: { 202: ReportSchema },
      },
      handler: async (request, reply) => {
        const run = await reports.runDefinition(contextOf(request), request.params.Id);
        return reply
          .code(202)
          .header('location', `/api/${ctx.channel}/reports/${run.id}`)
          .send(toReportDto(run));
      },
    });
  };
