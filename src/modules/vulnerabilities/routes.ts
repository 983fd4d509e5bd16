import { Type } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { VulnerabilityRow } from './repository.js';
import type { VulnerabilityService } from './service.js';

const Time = Type.String({ format: 'date-time' });
const VulnerabilitySchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Source: Type.String(),
    PluginGuidId: Type.Union([Type.String(), Type.Null()]),
    CVEReferences: Type.Array(Type.String()),
    Aliases: Type.Array(Type.String()),
    Title: Type.String(),
    Description: Type.Union([Type.String(), Type.Null()]),
    Solution: Type.Union([Type.String(), Type.Null()]),
    Cwe: Type.Array(Type.String()),
    Severity: Type.String(),
    CVSSBaseScore: Type.Union([Type.Number(), Type.Null()]),
    CvssVector: Type.Union([Type.String(), Type.Null()]),
    EpssScore: Type.Union([Type.Number(), Type.Null()]),
    EpssPercentile: Type.Union([Type.Number(), Type.Null()]),
    Kev: Type.Boolean(),
    KevDateAdded: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    KevDueDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    Cvss2Vector: Type.Union([Type.String(), Type.Null()]),
    Cvss2BaseScore: Type.Union([Type.Number(), Type.Null()]),
    Cvss4Vector: Type.Union([Type.String(), Type.Null()]),
    Cvss4BaseScore: Type.Union([Type.Number(), Type.Null()]),
    References: Type.Array(Type.String()),
    PublishedAt: Type.Union([Time, Type.Null()]),
    IntelUpdatedAt: Type.Union([Time, Type.Null()], {
      description: 'When public intelligence (NVD, KEV, EPSS) last changed this entry.',
    }),
    CreatedAt: Time,
    UpdatedAt: Time,
  },
  { additionalProperties: false },
);
const num = (v: string | null) => (v === null ? null : Number(v));

const toDto = (v: VulnerabilityRow) => ({
  Id: v.id,
  Source: v.source,
  PluginGuidId: v.plugin_id,
  CVEReferences: v.cve_ids,
  Aliases: v.aliases,
  Title: v.title,
  Description: v.description,
  Solution: v.solution,
  Cwe: v.cwe_ids,
  Severity: v.severity,
  CVSSBaseScore: num(v.cvss3_score),
  CvssVector: v.cvss3_vector,
  EpssScore: num(v.epss_score),
  EpssPercentile: num(v.epss_percentile),
  Kev: v.kev,
  KevDateAdded: v.kev_date_added,
  KevDueDate: v.kev_due_date,
  Cvss2Vector: v.cvss2_vector,
  Cvss2BaseScore: num(v.cvss2_score),
  Cvss4Vector: v.cvss4_vector,
  Cvss4BaseScore: num(v.cvss4_score),
  References: v.reference_urls,
  PublishedAt: v.published_at ? v.published_at.toISOString() : null,
  IntelUpdatedAt: v.intel_at ? v.intel_at.toISOString() : null,
  CreatedAt: v.created_at.toISOString(),
  UpdatedAt: v.updated_at.toISOString(),
});

export const vulnerabilityRoutes =
  (vulnerabilities: VulnerabilityService): ChannelRoutes =>
  (app, ctx) => {
    const tags = ['Vulnerabilities'];
    route(app, ctx, {
      method: 'GET',
      url: '/vulnerabilities',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listVulnerabilities',
        summary: 'The vulnerabilities your findings refer to',
        tags,
        querystring: Type.Object(
          {
            PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
            Cursor: Type.Optional(Type.String({ maxLength: 1000 })),
            Cve: Type.Optional(Type.String({ pattern: '^[Cc][Vv][Ee]-\\d{4}-\\d{4,}$' })),
            Kev: Type.Optional(Type.Boolean()),
            Search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { Items: Type.Array(VulnerabilitySchema), NextCursor: Type.Union([Type.String(), Type.Null()]) },
            { additionalProperties: false },
          ),
        },
      },
      handler: async (request) => {
        const q = request.query;
        let afterId: string | undefined;
        if (q.Cursor) {
          const key = decodeCursor(q.Cursor, ['Id']);
          if (!key)
            throw AppError.of(
              Problems.ValidationFailed,
              'Cursor is not valid; pass the NextCursor of a previous page.',
            );
          afterId = key.Id;
        }
        const page = await vulnerabilities.list(
          contextOf(request),
          { cve: q.Cve?.toUpperCase(), kev: q.Kev, search: q.Search },
          q.PageSize ?? 100,
          afterId,
        );
        const last = page.items.at(-1);
        return {
          Items: page.items.map(toDto),
          NextCursor: page.more && last ? encodeCursor({ Id: last.id }) : null,
        };
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/vulnerabilities/:Id',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getVulnerability',
        summary: 'One vulnerability',
        tags,
        params: Type.Object({ Id: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: { 200: VulnerabilitySchema },
      },
      handler: async (request) => toDto(await vulnerabilities.get(contextOf(request), request.params.Id)),
    });
  };
