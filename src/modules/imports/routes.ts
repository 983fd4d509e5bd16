import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { settleStreamedBody } from '../../http/idempotency.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import type { TypedApp } from '../../http/types.js';
import { ParseLimitError } from '../../parsing/parse-limits.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { toFormatDto, toImportDto } from './presenters.js';
import {
  FormatListSchema,
  ImportListQuery,
  ImportListSchema,
  ImportSchema,
  SubmitImportQuery,
} from './schemas.js';
import type { ImportService } from './service.js';
import {
  closeUnreadUploads,
  EmptyReportError,
  importDirectory,
  parseLimitProblem,
  ReportTooLargeError,
  refuseDeclaredSize,
  spoolReport,
} from './upload.js';

export interface ImportRouteOptions {
  maxBytes: number;
  directory?: string;
}

export const importRoutes =
  (imports: ImportService, options: ImportRouteOptions): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Imports'];
    const group = routeGroup(app, ctx, { tags });
    const dir = importDirectory(options.directory);

    // The report is the request body as it comes (any content type, gzip welcome) or the file of
    // a multipart form: this scope reads bodies as streams instead of parsing JSON.
    app.register(async (scoped) => {
      scoped.removeAllContentTypeParsers();
      await scoped.register(multipart, { limits: { files: 1, fields: 10, fileSize: options.maxBytes } });
      scoped.addContentTypeParser('*', (_request, _payload, done) => done(null));
      closeUnreadUploads(scoped, { maxBytes: options.maxBytes });

      routeGroup(scoped as unknown as TypedApp, ctx, { tags }).post('/imports', {
        access: { role: 'Analyst' },
        // The report is hashed as it is saved; a retry's is compared before anything is imported.
        idempotency: 'streamed',
        schema: {
          operationId: 'submitImport',
          summary: 'Import a scanner report',
          description: [
            'Send the report file as the request body (any content type; gzip is recognised by its content), or as the one file of a `multipart/form-data` form.',
            'The format is detected from the content unless `Format` is given (`GET /imports/formats` lists them). Answers 202 with the Import; follow `Location` until its State is Completed or Failed.',
            'An import is all or nothing: a report that cannot be read leaves everything as it was, and the Import says why.',
            'Refused before anything is stored: a declared `Content-Length` above `RAMPART_IMPORT_MAX_BYTES` (413, before the body is read), and a file beyond a parse limit — nesting, attributes per element, text size, element count (422 `parse-limit-exceeded` naming the limit, its setting, line and column).',
          ].join('\n\n'),
          querystring: SubmitImportQuery,
          response: { 202: ImportSchema },
        },
        handler: async (request, reply) => {
          const q = request.query;
          refuseDeclaredSize(request.headers['content-length'], options.maxBytes, {
            multipart: request.isMultipart(),
          });
          let body: Readable = request.raw;
          let fileName = q.FileName;
          // A form's file is the body an Idempotency-Key fingerprints (its boundary differs from
          // one try to the next), with the file's name.
          let partName = '';
          if (request.isMultipart()) {
            const part = await request.file();
            if (!part)
              throw AppError.of(
                Problems.ValidationFailed,
                'The form holds no file: add the report as a file field.',
              );
            body = part.file;
            partName = part.filename ?? '';
            fileName ??= part.filename || undefined;
          }
          const report = await spool(body, dir, options.maxBytes);
          try {
            if (await settleStreamedBody(request, reply, `${report.sha256}\n${partName}`)) {
              await report.remove();
              return reply;
            }
            const row = await imports.submit(contextOf(request), {
              report,
              fileName,
              format: q.Format,
              scopeName: q.ScopeName,
            });
            return reply
              .code(202)
              .header('location', `/api/${ctx.channel}/imports/${row.id}`)
              .send(toImportDto(row));
          } catch (error) {
            await report.remove();
            throw error;
          }
        },
      });
    });

    group.get('/imports', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listImports',
        summary: 'Imports, newest first',
        querystring: ImportListQuery,
        response: { 200: ImportListSchema },
      },
      handler: async (request) => {
        const page = await imports.list(
          contextOf(request),
          request.query.PageSize ?? 50,
          request.query.Cursor,
        );
        return toPageDto(page, toImportDto);
      },
    });

    group.get('/imports/formats', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listImportFormats',
        summary: 'The report formats Rampart reads',
        response: { 200: FormatListSchema },
      },
      handler: async () => imports.formats().map(toFormatDto),
    });

    group.get('/imports/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getImport',
        summary: 'One import: its state, counts, warnings and error',
        params: IdParams,
        response: { 200: ImportSchema },
      },
      handler: async (request) => toImportDto(await imports.get(contextOf(request), request.params.Id)),
    });
  };

async function spool(body: Readable, dir: string, maxBytes: number) {
  try {
    return await spoolReport(body, dir, maxBytes);
  } catch (error) {
    if (error instanceof ParseLimitError) throw parseLimitProblem(error);
    if (error instanceof ReportTooLargeError) throw AppError.of(Problems.PayloadTooLarge, error.message);
    if (error instanceof EmptyReportError) throw AppError.of(Problems.ValidationFailed, error.message);
    if ((error as Error).message?.startsWith('The gzip data is damaged'))
      throw AppError.of(Problems.ValidationFailed, (error as Error).message);
    throw error;
  }
}
