import type { Readable } from 'node:stream';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import type { TypedApp } from '../../http/types.js';
import { scoreCvss } from '../../intel/cvss/cvss.js';
import type { CvssMetric } from '../../intel/types.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import { closeUnreadUploads } from '../imports/upload.js';
import { isStale, newestDate, normaliseDataDate, STALE_AFTER_DAYS } from './freshness.js';
import type { IntelMatcher } from './matcher.js';
import { FEED_NAMES, type FeedName, type LoadRowSql } from './repository.js';
import {
  CveIdParams,
  CveIntelSchema,
  FeedStatusSchema,
  IntelLoadListSchema,
  IntelLoadSchema,
  LoadIdParams,
  MatchRequestSchema,
  MatchResultSchema,
  SubmitIntelLoadQuery,
} from './schemas.js';
import type { IntelService } from './service.js';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const day = (d: Date | string | null | undefined) =>
  d ? (typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10)) : null;

export const toLoadDto = (l: LoadRowSql) => ({
  Id: l.id,
  Feed: l.feed,
  Source: l.source,
  State: l.state,
  DataDate: normaliseDataDate(l.data_date),
  DataDateAsGiven: l.data_date,
  Added: l.added,
  Updated: l.updated,
  Unchanged: l.unchanged,
  Skipped: l.skipped,
  Warnings: l.warnings,
  Error: l.error,
  StartedAt: new Date(l.started_at).toISOString(),
  FinishedAt: iso(l.finished_at),
});

type FeedStatus = Awaited<ReturnType<IntelService['feedStatus']>>;

/**
 * How current a feed's data is: the newest date its completed loads stated, or for files that
 * state none, the newest record held (not for KEV: entries NVD records bring are no catalogue).
 */
function feedDataDate(feed: FeedName, status: FeedStatus): string | null {
  const stated = status.statedDates.filter((r) => r.feed === feed).map((r) => normaliseDataDate(r.data_date));
  return newestDate([...stated, feed === 'kev' ? null : status.newestRecords?.[feed]]);
}

/** Each feed: records held, how current they are at the application's clock, last loads. */
export function toFeedItems(status: FeedStatus) {
  const byFeed = (rows: LoadRowSql[], feed: string) => rows.find((r) => r.feed === feed);
  return FEED_NAMES.map((feed) => {
    const last = byFeed(status.lastLoads, feed);
    const completed = byFeed(status.lastCompleted, feed);
    const records = Number(status.counts?.[feed] ?? 0);
    const dataDate = feedDataDate(feed, status);
    return {
      Feed: feed,
      Records: records,
      DataDate: dataDate,
      Stale: isStale(dataDate, records, status.now),
      LastLoad: last ? toLoadDto(last) : null,
      LastCompletedLoad: completed ? toLoadDto(completed) : null,
    };
  });
}

/** A stated CVSS assessment with the library's reading of its vector, metric by metric. */
export function cvssAssessment(m: CvssMetric) {
  const scored = scoreCvss(m.vector);
  return {
    Version: m.version,
    Vector: scored.ok ? scored.vector : m.vector,
    BaseScore: scored.ok ? scored.baseScore : null,
    Severity: scored.ok ? scored.severity : null,
    Source: m.source ?? null,
    Type: m.type ?? null,
    Metrics: scored.ok
      ? scored.metrics.map((x) => ({ Key: x.key, Name: x.name, Value: x.value, Label: x.label }))
      : [],
    Error: scored.ok ? null : scored.error,
  };
}

export interface IntelRouteOptions {
  syncUrls: string[];
  syncHours: number | null;
}

export const intelRoutes =
  (intel: IntelService, matcher: IntelMatcher, options: IntelRouteOptions): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Vulnerability intelligence'];

    // The feed file is the request body as it comes (any content type, gzip welcome).
    app.register(async (scoped) => {
      scoped.removeAllContentTypeParsers();
      scoped.addContentTypeParser('*', (_request, _payload, done) => done(null));
      closeUnreadUploads(scoped);
      route(scoped as unknown as TypedApp, ctx, {
        method: 'POST',
        url: '/intel/loads',
        channels: BOTH,
        access: { role: 'Admin' },
        schema: {
          operationId: 'submitIntelLoad',
          summary: 'Load a vulnerability intelligence feed file',
          description: [
            'Send an NVD CVE API 2.0 page or record, a CVE JSON 5 record (or an array of them), the CISA KEV catalogue, an EPSS CSV or OSV advisories as the request body; gzip is recognised by its content. The feed is detected from the content unless `Feed` is given.',
            "Only Admins of the installation's first organisation may load intelligence: it is shared by every organisation.",
            "Answers 202 with the load; follow `Location` until its State is Completed or Failed. Records already stored as given are left alone, and an older copy of a record never replaces a newer one. Every organisation's findings of the CVEs that changed are re-scored.",
            'Refused before anything is loaded: a declared `Content-Length` above `RAMPART_INTEL_MAX_BYTES` (413, before the body is read), and a file beyond a parse limit — nesting, attributes, text size, element count (422 `parse-limit-exceeded` naming the limit, its setting, line and column).',
          ].join('\n\n'),
          tags,
          querystring: SubmitIntelLoadQuery,
          response: { 202: IntelLoadSchema },
        },
        handler: async (request, reply) => {
          const { load } = await intel.startUpload(contextOf(request), request.raw as Readable, {
            name: request.query.FileName ?? 'upload',
            feed: request.query.Feed,
            contentLength: request.headers['content-length'],
          });
          return reply
            .code(202)
            .header('location', `/api/${ctx.channel}/intel/loads/${load.id}`)
            .send(toLoadDto(load));
        },
      });
    });

    route(app, ctx, {
      method: 'GET',
      url: '/intel/loads',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'listIntelLoads',
        summary: 'The last 100 feed loads, newest first',
        tags,
        response: { 200: IntelLoadListSchema },
      },
      handler: async () => ({ Items: (await intel.loads(100)).map(toLoadDto) }),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/intel/loads/:Id',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'getIntelLoad',
        summary: 'One feed load: state, counts, warnings, error',
        tags,
        params: LoadIdParams,
        response: { 200: IntelLoadSchema },
      },
      handler: async (request) => toLoadDto(await intel.get(request.params.Id)),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/intel/feeds',
      channels: BOTH,
      access: { role: 'Admin' },
      schema: {
        operationId: 'getIntelFeedStatus',
        summary:
          'Each feed: records held, how current they are, last load, last completed load; the sync settings',
        description:
          "`DataDate` is the date of a feed's newest data (ISO 8601 UTC): the newest date its loaded files stated (KEV catalogue version, EPSS score date, NVD page timestamp), else its newest record's modification. A feed holding records whose `DataDate` is more than `StaleAfterDays` before the server's time (`Now`) is `Stale`: load current files, or set RAMPART_INTEL_SYNC_URLS.",
        tags,
        response: { 200: FeedStatusSchema },
      },
      handler: async () => {
        const status = await intel.feedStatus();
        const items = toFeedItems(status);
        return {
          Items: items,
          Now: status.now.toISOString(),
          StaleAfterDays: STALE_AFTER_DAYS,
          Stale: items.some((i) => i.Stale),
          SyncUrls: options.syncUrls,
          SyncHours: options.syncUrls.length > 0 ? options.syncHours : null,
          LastSync: status.sync?.last_started_at
            ? {
                StartedAt: iso(status.sync.last_started_at),
                FinishedAt: iso(status.sync.last_finished_at),
                Errors: status.sync.last_errors.map((e) => ({ Url: e.url, Error: e.error })),
              }
            : null,
        };
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/intel/cves/:CveId',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getCveIntel',
        summary: 'What the public feeds say about one CVE',
        description:
          'CVSS assessments with each base metric spelled out, EPSS score and percentile, CISA KEV entry and due date, CWE, references, OSV advisories, affected products, and where each came from.',
        tags,
        params: CveIdParams,
        response: { 200: CveIntelSchema },
      },
      handler: async (request) => {
        const cveId = request.params.CveId.toUpperCase();
        const found = await intel.cve(cveId);
        if (!found) throw AppError.of(Problems.NotFound, `No feed loaded here knows ${cveId}.`);
        const main = found.records[0];
        const cvss = found.records.flatMap((r) => (r.cvss as CvssMetric[]).map(cvssAssessment));
        return {
          Cve: cveId,
          Status: main?.status ?? null,
          Rejected: main?.rejected ?? false,
          Description: main?.description ?? null,
          PublishedAt: iso(main?.published_at),
          ModifiedAt: iso(main?.modified_at),
          Cvss: cvss,
          Cwe: [...new Set(found.records.flatMap((r) => r.cwe_ids))],
          References: [...new Set(found.records.flatMap((r) => r.reference_urls))],
          Epss: found.epss
            ? {
                Score: Number(found.epss.score),
                Percentile: Number(found.epss.percentile),
                ScoreDate: day(found.epss.score_date),
              }
            : null,
          Kev: found.kev
            ? {
                Name: found.kev.name,
                Vendor: found.kev.vendor,
                Product: found.kev.product,
                DateAdded: day(found.kev.date_added) ?? '',
                DueDate: day(found.kev.due_date),
                RequiredAction: found.kev.required_action,
                KnownRansomwareUse: found.kev.known_ransomware,
              }
            : null,
          Advisories: found.osv.map((a) => ({ Id: a.id, Summary: a.summary, Packages: a.packages })),
          AffectedProducts: matcher.affectedProducts(main?.configurations ?? []),
          Sources: [
            ...found.records.map((r) => ({
              Feed: r.feed,
              Source: r.source,
              LoadedAt: new Date(r.loaded_at).toISOString(),
            })),
            ...(found.kev
              ? [
                  {
                    Feed: 'kev',
                    Source: found.kev.source,
                    LoadedAt: new Date(found.kev.loaded_at).toISOString(),
                  },
                ]
              : []),
            ...(found.epss
              ? [
                  {
                    Feed: 'epss',
                    Source: found.epss.source,
                    LoadedAt: new Date(found.epss.loaded_at).toISOString(),
                  },
                ]
              : []),
            ...found.osv.map((a) => ({
              Feed: 'osv',
              Source: a.source,
              LoadedAt: new Date(a.loaded_at).toISOString(),
            })),
          ],
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/intel/match',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'matchIntel',
        summary: 'The CVEs and advisories that apply to products, CPEs or packages',
        description:
          'Give what was detected on one service or host — CPE names, vendor/product/version, or packages with their ecosystem — and get the CVEs whose NVD configurations (version ranges, running-on platforms) or OSV ranges include them.',
        tags,
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
