import type { Static } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { type CsvColumn, sendCsv, wantsCsv } from '../../http/csv.js';
import { contextOf } from '../../http/request-context.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { TicketService } from '../tickets/service.js';
import { toLocationDto } from './location.js';
import type { FindingExportRow, FindingFilter, FindingListRow, FindingRow } from './repository.js';
import {
  BulkResultSchema,
  BulkStateSchema,
  BulkTicketSchema,
  ChangeStateSchema,
  CreateFindingSchema,
  FindingDetailSchema,
  type FindingFilterSchema,
  FindingIdParams,
  FindingListQuery,
  FindingListSchema,
  OverrideSeveritySchema,
} from './schemas.js';
import type { FindingService } from './service.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const numOrNull = (v: string | null) => (v === null ? null : Number(v));
const date = (text: string | undefined) => (text ? new Date(text) : undefined);

export const toFindingDto = (f: FindingRow | FindingListRow) => ({
  Id: f.id,
  AssetId: f.asset_id,
  AssetName: f.asset_name,
  VulnerabilityId: f.vulnerability_id,
  PluginGuidId: f.plugin_id,
  Title: f.title,
  CVEReferences: f.cve_ids,
  Kev: f.kev,
  EpssScore: f.epss_score === null ? null : Number(f.epss_score),
  EpssPercentile: f.epss_percentile === null ? null : Number(f.epss_percentile),
  KevDueDate: f.kev_due_date,
  CVSSBaseScore: numOrNull(f.cvss3_score ?? f.cvss4_score ?? f.cvss2_score),
  Severity: f.effective_severity,
  ScannerSeverity: f.severity,
  SeverityOverrideReason: f.severity_override_reason,
  State: f.state,
  StateReason: f.state_reason,
  RiskAcceptedUntil: iso(f.risk_accepted_until),
  RiskScore: Number(f.risk_score),
  DueAt: iso(f.due_at),
  Location: toLocationDto(f),
  Source: f.source,
  FirstSeen: f.first_seen_at.toISOString(),
  LastSeen: f.last_seen_at.toISOString(),
  FixedAt: iso(f.fixed_at),
  CreatedAt: f.created_at.toISOString(),
  UpdatedAt: f.updated_at.toISOString(),
});

export const FINDING_CSV: readonly CsvColumn<FindingExportRow>[] = [
  { header: 'Id', value: (f) => f.id },
  { header: 'Asset', value: (f) => f.asset_name },
  { header: 'AssetId', value: (f) => f.asset_id },
  { header: 'Title', value: (f) => f.title },
  { header: 'CVE', value: (f) => f.cves },
  { header: 'Severity', value: (f) => f.effective_severity },
  { header: 'State', value: (f) => f.state },
  { header: 'RiskScore', value: (f) => Number(f.risk_score) },
  { header: 'DueAt', value: (f) => f.due_at },
  { header: 'Kev', value: (f) => f.kev },
  { header: 'Port', value: (f) => f.port },
  { header: 'Protocol', value: (f) => f.protocol },
  { header: 'Url', value: (f) => f.url },
  {
    header: 'Package',
    value: (f) => (f.package_name ? `${f.package_name}@${f.package_version ?? ''}` : null),
  },
  { header: 'Source', value: (f) => f.source },
  { header: 'FirstSeen', value: (f) => f.first_seen_at },
  { header: 'LastSeen', value: (f) => f.last_seen_at },
];

type FilterBody = Static<typeof FindingFilterSchema>;

export const filterFromBody = (b: FilterBody): FindingFilter => ({
  states: b.State,
  severities: b.Severity,
  assetId: b.AssetId,
  tag: b.Tag,
  vulnerabilityId: b.VulnerabilityId,
  cve: b.Cve,
  kev: b.Kev,
  epssMin: b.EpssMin,
  riskMin: b.RiskMin,
  dueBefore: date(b.DueBefore),
  firstSeenAfter: date(b.FirstSeenAfter),
  lastSeenBefore: date(b.LastSeenBefore),
  search: b.Search,
  ids: b.Ids,
});

/** Linking more findings than this to one ticket at once asks for a narrower filter. */
const MAX_BULK_LINK = 10_000;

export const findingRoutes =
  (findings: FindingService, tickets: TicketService): ChannelRoutes =>
  (app, ctx) => {
    const detail = async (context: ReturnType<typeof contextOf>, f: FindingRow) => ({
      ...toFindingDto(f),
      Evidence: f.evidence,
      Events: (await findings.events(context, f.id)).map((e) => ({
        Id: e.id,
        At: e.occurred_at.toISOString(),
        ActorType: e.actor_type,
        ActorId: e.actor_id,
        Kind: e.kind,
        FromState: e.from_state,
        ToState: e.to_state,
        Reason: e.reason,
      })),
    });

    route(app, ctx, {
      method: 'GET',
      url: '/findings',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listFindings',
        summary: 'Findings of your organisation',
        description:
          'Filters combine with AND; State and Severity may repeat (State=Open&State=Reopened). Keyset pages per Sort.',
        tags: ['Findings'],
        querystring: FindingListQuery,
        response: {
          200: {
            description: 'A page of findings, or all of them as CSV.',
            content: {
              'application/json': { schema: FindingListSchema },
              'text/csv': { schema: { type: 'string' } },
            },
          },
        },
      },
      handler: async (request, reply) => {
        const q = request.query;
        const filter = {
          states: q.State,
          severities: q.Severity,
          assetId: q.AssetId,
          tag: q.Tag,
          vulnerabilityId: q.VulnerabilityId,
          cve: q.Cve,
          kev: q.Kev,
          epssMin: q.EpssMin,
          riskMin: q.RiskMin,
          dueBefore: date(q.DueBefore),
          firstSeenAfter: date(q.FirstSeenAfter),
          lastSeenBefore: date(q.LastSeenBefore),
          search: q.Search,
          importId: q.ImportId,
          importChange: q.ImportChange,
        };
        const context = contextOf(request);
        if (wantsCsv(request)) {
          return sendCsv(
            request,
            reply,
            'findings.csv',
            FINDING_CSV,
            findings.stream(context, filter, q.Sort ?? '-Risk'),
          );
        }
        const page = await findings.list(
          context,
          filter,
          q.Sort ?? '-Risk',
          q.PageSize ?? 100,
          q.Cursor,
          q.IncludeTotal,
        );
        return {
          Items: page.items.map(toFindingDto),
          NextCursor: page.nextCursor,
          TotalCount: page.totalCount,
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/findings',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createFinding',
        summary: 'Record a finding by hand (e.g. from a penetration test)',
        description:
          'Same deduplication as imports: the same asset, vulnerability and location is the same finding, answered with 200 ' +
          '(and reopened if it had been fixed); a new one is 201.',
        tags: ['Findings'],
        body: CreateFindingSchema,
        response: { 200: FindingDetailSchema, 201: FindingDetailSchema },
      },
      handler: async (request, reply) => {
        const b = request.body;
        const context = contextOf(request);
        const l = b.Location ?? { Kind: 'None' as const };
        const result = await findings.record(context, {
          assetId: b.AssetId,
          vulnerabilityId: b.VulnerabilityId,
          vulnerability: b.Vulnerability && {
            source: 'Manual',
            title: b.Vulnerability.Title,
            cveIds: b.Vulnerability.Cve,
            description: b.Vulnerability.Description,
            solution: b.Vulnerability.Solution,
            cweIds: b.Vulnerability.Cwe,
            severity: b.Vulnerability.Severity,
            cvss3Score: b.Vulnerability.CvssScore,
            cvss3Vector: b.Vulnerability.CvssVector,
            references: b.Vulnerability.References,
          },
          location: {
            kind: l.Kind,
            port: l.Port,
            protocol: l.Protocol,
            url: l.Url,
            parameter: l.Parameter,
            filePath: l.File,
            line: l.Line,
            packageName: l.Package,
            packageVersion: l.Version,
          },
          severity: b.Severity,
          evidence: b.Evidence,
          source: 'Manual',
        });
        return reply.code(result.created ? 201 : 200).send(await detail(context, result.finding));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/findings/:Id',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getFinding',
        summary: 'One finding with its evidence and history',
        tags: ['Findings'],
        params: FindingIdParams,
        response: { 200: FindingDetailSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        return detail(context, await findings.get(context, request.params.Id));
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/findings/:Id/state',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'changeFindingState',
        summary: 'Decide about a finding',
        description:
          'Open/Reopened → Fixed, FalsePositive (Justification) or RiskAccepted (Manager; Justification and Until, at most a year); ' +
          'Fixed → Reopened; RiskAccepted or FalsePositive → Open. Other moves are 409.',
        tags: ['Findings'],
        params: FindingIdParams,
        body: ChangeStateSchema,
        response: { 200: FindingDetailSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        const b = request.body;
        const f = await findings.changeState(context, request.params.Id, {
          state: b.State,
          justification: b.Justification,
          until: date(b.Until),
        });
        return detail(context, f);
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/findings/:Id/severity',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'overrideFindingSeverity',
        summary: 'Override the scanner’s severity, with a reason',
        tags: ['Findings'],
        params: FindingIdParams,
        body: OverrideSeveritySchema,
        response: { 200: FindingDetailSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        const f = await findings.overrideSeverity(
          context,
          request.params.Id,
          request.body.Severity,
          request.body.Reason,
        );
        return detail(context, f);
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/findings/bulk/state',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'bulkChangeFindingState',
        summary: 'Decide about every finding that matches a filter',
        description:
          'One transaction. The same rules as for one finding (RiskAccepted needs a Manager, a Justification and Until); ' +
          'findings whose state does not allow the move are skipped and counted.',
        tags: ['Findings'],
        body: BulkStateSchema,
        response: { 200: BulkResultSchema },
      },
      handler: async (request) => {
        const b = request.body;
        const r = await findings.bulkChangeState(contextOf(request), filterFromBody(b.Filter), {
          state: b.State,
          justification: b.Justification,
          until: date(b.Until),
        });
        return { Matched: r.matched, Changed: r.changed, Skipped: r.skipped };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/findings/bulk/ticket',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'bulkLinkFindingsToTicket',
        summary: 'Link every finding that matches a filter to a ticket',
        description: `At most ${MAX_BULK_LINK} findings at once.`,
        tags: ['Findings'],
        body: BulkTicketSchema,
        response: { 200: BulkResultSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        await tickets.get(context, request.body.TicketId);
        const ids = await findings.matchingIds(
          context,
          filterFromBody(request.body.Filter),
          MAX_BULK_LINK + 1,
        );
        if (ids.length > MAX_BULK_LINK) {
          throw AppError.of(
            Problems.ValidationFailed,
            `More than ${MAX_BULK_LINK} findings match; narrow the filter.`,
          );
        }
        const { changed } = ids.length
          ? await tickets.link(context, request.body.TicketId, ids)
          : { changed: 0 };
        return { Matched: ids.length, Changed: changed, Skipped: ids.length - changed };
      },
    });
  };
