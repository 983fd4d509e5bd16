import type { Readable } from 'node:stream';
import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { settleStreamedBody } from '../../http/idempotency.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import type { TypedApp } from '../../http/types.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { closeUnreadUploads } from '../imports/upload.js';
import type { IntelMatcher } from './matcher.js';
import { type SyncSettings, toCveIntelDto, toFeedStatusDto, toLoadDto } from './presenters.js';
import {
  CveIdParams,
  CveIntelSchema,
  FeedStatusSchema,
  IntelLoadListSchema,
  IntelLoadSchema,
  MatchRequestSchema,
  MatchResultSchema,
  SubmitIntelLoadQuery,
} from './schemas.js';
import type { IntelService } from './service.js';

export interface IntelRouteOptions extends SyncSettings {
  /** RAMPART_INTEL_MAX_BYTES: how much of a refused upload is read on before it is answered. */
  maxUploadBytes: number;
}

export const intelRoutes =
  (intel: IntelService, matcher: IntelMatcher, options: IntelRouteOptions): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Vulnerability intelligence'];
    const group = routeGroup(app, ctx, { tags });

    // The feed file is the request body as it comes (any content type, gzip welcome).
    app.register(async (scoped) => {
      scoped.removeAllContentTypeParsers();
      scoped.addContentTypeParser('*', (_request, _payload, done) => done(null));
      closeUnreadUploads(scoped, { maxBytes: options.maxUploadBytes });
      routeGroup(scoped as unknown as TypedApp, ctx, { tags }).post('/intel/loads', {
        access: { role: 'Admin' },
        // The file is hashed as it is saved; a retry's is compared before anything is loaded.
        idempotency: 'streamed',
        schema: {
          operationId: 'submitIntelLoad',
          summary: 'Load a vulnerability intelligence feed file',
          description: [
            'Send an NVD CVE API 2.0 page or record, a CVE JSON 5 record (or an array of them), the CISA KEV catalogue, an EPSS CSV or OSV advisories as the request body; gzip is recognised by its content. The feed is detected from the content unless `Feed` is given.',
            "Only Admins of the installation's first organisation may load intelligence: it is shared by every organisation.",
            "Answers 202 with the load; follow `Location` until its State is Completed or Failed. Records already stored as given are left alone, and an older copy of a record never replaces a newer one. Every organisation's findings of the CVEs that changed are re-scored.",
            'Refused before anything is loaded: a declared `Content-Length` above `RAMPART_INTEL_MAX_BYTES` (413, before the body is read), and a file beyond a parse limit — nesting, attributes, text size, element count (422 `parse-limit-exceeded` naming the limit, its setting, line and column).',
          ].join('\n\n'),
          querystring: SubmitIntelLoadQuery,
          response: { 202: IntelLoadSchema },
        },
        handler: async (request, reply) => {
          const started = await intel.startUpload(contextOf(request), request.raw as Readable, {
            name: request.query.FileName ?? 'upload',
            feed: request.query.Feed,
            contentLength: request.headers['content-length'],
            beforeLoad: async (sha256) => !(await settleStreamedBody(request, reply, sha256)),
          });
          if (!started) return reply;
          const { load } = started;
          return reply
            .code(202)
            .header('location', `/api/${ctx.channel}/intel/loads/${load.id}`)
            .send(toLoadDto(load));
        },
      });
    });

    group.get('/intel/loads', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'listIntelLoads',
        summary: 'The last 100 feed loads, newest first',
        response: { 200: IntelLoadListSchema },
      },
      handler: async () => ({ Items: (await intel.loads(100)).map(toLoadDto) }),
    });

    group.get('/intel/loads/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'getIntelLoad',
        summary: 'One feed load: state, counts, warnings, error',
        params: IdParams,
        response: { 200: IntelLoadSchema },
      },
      handler: async (request) => toLoadDto(await intel.get(request.params.Id)),
    });

    group.get('/intel/feeds', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'getIntelFeedStatus',
        summary:
          'Each feed: records held, how current they are, last load, last completed load; the sync settings',
        description:
          "`DataDate` is the date of a feed's newest data (ISO 8601 UTC): the newest date its loaded files stated (KEV catalogue version, EPSS score date, NVD page timestamp), else its newest record's modification. A feed holding records whose `DataDate` is more than `StaleAfterDays` before the server's time (`Now`) is `Stale`: load current files, or set RAMPART_INTEL_SYNC_URLS.",
        response: { 200: FeedStatusSchema },
      },
      handler: async () => toFeedStatusDto(await intel.feedStatus(), options),
    });

    group.get('/intel/cves/:CveId', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getCveIntel',
        summary: 'What the public feeds say about one CVE',
        description:
          'CVSS assessments with each base metric spelled out, EPSS score and percentile, CISA KEV entry and due date, CWE, references, OSV advisories, affected products, and where each came from.',
        params: CveIdParams,
        response: { 200: CveIntelSchema },
      },
      handler: async (request) => {
        const cveId = request.params.CveId.toUpperCase();
        const found = await intel.cve(cveId);
        if (!found) throw AppError.of(Problems.NotFound, `No feed loaded here knows ${cveId}.`);
        return toCveIntelDto(cveId, found, matcher);
      },
    });

    group.post('/intel/match', {
      access: { role: 'ReadOnly' },
      idempotency: false,
      schema: {
        operationId: 'matchIntel',
        summary: 'The CVEs and advisories that apply to products, CPEs or packages',
        description:
          'Give what was detected on one service or host — CPE names, vendor/product/version, or packages with their ecosystem — and get the CVEs whose NVD configurations (version ranges, running-on platforms) or OSV ranges include them.',
        body: MatchRequestSchema,
        response: { 200: MatchResultSchema },
      },
      handler: async (request) => {
        const body = request.body;
        if (!body.Cpes?.length && !body.Products?.length && !body.Packages?.length)
          throw AppError.of(Problems.ValidationFailed, 'Give at least one of Cpes, Products or Packages.', {
            errors: [{ path: '/', message: 'Cpes, Products or Packages is required' }],
          });
        return { Items: await matcher.match(body) };
      },
    });
  };
