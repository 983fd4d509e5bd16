import { type ChannelRoutes, jsonOrCsv, routeGroup } from '../../http/channels.js';
import { sendCsv, wantsCsv } from '../../http/csv.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import { AppError } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { ServiceContext } from '../context.js';
import type { TicketService } from '../tickets/service.js';
import {
  FINDING_CSV,
  filterFromBody,
  filterFromQuery,
  findingInputFromBody,
  stateChangeFromBody,
  toBulkResultDto,
  toFindingDetailDto,
  toFindingDto,
} from './presenters.js';
import {
  BulkResultSchema,
  BulkStateSchema,
  BulkTicketSchema,
  ChangeStateSchema,
  CreateFindingSchema,
  FindingDetailSchema,
  FindingListQuery,
  FindingListSchema,
  OverrideSeveritySchema,
} from './schemas.js';
import type { FindingService } from './service.js';
import type { Finding } from './types.js';

/** Linking more findings than this to one ticket at once asks for a narrower filter. */
const MAX_BULK_LINK = 10_000;

export const findingRoutes =
  (findings: FindingService, tickets: TicketService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Findings'] });
    const detail = async (context: ServiceContext, f: Finding) =>
      toFindingDetailDto(f, await findings.events(context, f.id));

    group.get('/findings', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listFindings',
        summary: 'Findings of your organisation',
        description:
          'Filters combine with AND; State and Severity may repeat (State=Open&State=Reopened). Keyset pages per Sort.',
        querystring: FindingListQuery,
        response: {
          200: jsonOrCsv('A page of findings, or all of them as CSV.', FindingListSchema),
        },
      },
      handler: async (request, reply) => {
        const q = request.query;
        const filter = filterFromQuery(q);
        const context = contextOf(request);
        if (wantsCsv(request)) {
          return sendCsv(
            request,
            reply,
            'findings.csv',
            FINDING_CSV,
            findings.export(context, filter, q.Sort ?? '-Risk'),
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
        return toPageDto(page, toFindingDto);
      },
    });

    group.post('/findings', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createFinding',
        summary: 'Record a finding by hand (e.g. from a penetration test)',
        description:
          'Same deduplication as imports: the same asset, vulnerability and location is the same finding, answered with 200 ' +
          '(and reopened if it had been fixed); a new one is 201.',
        body: CreateFindingSchema,
        response: { 200: FindingDetailSchema, 201: FindingDetailSchema },
      },
      handler: async (request, reply) => {
        const context = contextOf(request);
        const result = await findings.record(context, findingInputFromBody(request.body));
        return reply.code(result.created ? 201 : 200).send(await detail(context, result.finding));
      },
    });

    group.get('/findings/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getFinding',
        summary: 'One finding with its evidence and history',
        params: IdParams,
        response: { 200: FindingDetailSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        return detail(context, await findings.get(context, request.params.Id));
      },
    });

    group.post('/findings/:Id/state', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'changeFindingState',
        summary: 'Decide about a finding',
        description:
          'Open/Reopened → Fixed, FalsePositive (Justification) or RiskAccepted (Manager; Justification and Until, at most a year); ' +
          'Fixed → Reopened; RiskAccepted or FalsePositive → Open. Other moves are 409.',
        params: IdParams,
        body: ChangeStateSchema,
        response: { 200: FindingDetailSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        const f = await findings.changeState(context, request.params.Id, stateChangeFromBody(request.body));
        return detail(context, f);
      },
    });

    group.post('/findings/:Id/severity', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'overrideFindingSeverity',
        summary: 'Override the scanner’s severity, with a reason',
        params: IdParams,
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

    group.post('/findings/bulk/state', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'bulkChangeFindingState',
        summary: 'Decide about every finding that matches a filter',
        description:
          'One transaction. The same rules as for one finding (RiskAccepted needs a Manager, a Justification and Until); ' +
          'findings whose state does not allow the move are skipped and counted.',
        body: BulkStateSchema,
        response: { 200: BulkResultSchema },
      },
      handler: async (request) => {
        const b = request.body;
        const r = await findings.bulkChangeState(
          contextOf(request),
          filterFromBody(b.Filter),
          stateChangeFromBody(b),
        );
        return toBulkResultDto(r);
      },
    });

    group.post('/findings/bulk/ticket', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'bulkLinkFindingsToTicket',
        summary: 'Link every finding that matches a filter to a ticket',
        description: `At most ${MAX_BULK_LINK} findings at once.`,
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
        return toBulkResultDto({ matched: ids.length, changed, skipped: ids.length - changed });
      },
    });
  };
