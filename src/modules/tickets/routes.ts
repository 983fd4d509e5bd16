import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { toPageDto } from '../../http/page.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import type { ServiceContext } from '../context.js';
import {
  newTicketFromBody,
  ticketChangesFromBody,
  ticketFilterFromQuery,
  toTicketDetailDto,
  toTicketDto,
} from './presenters.js';
import {
  CommentSchema,
  CreateTicketSchema,
  LinkResultSchema,
  LinkSchema,
  TicketDetailSchema,
  TicketListQuery,
  TicketListSchema,
  UpdateTicketSchema,
} from './schemas.js';
import type { TicketService } from './service.js';

export const ticketRoutes =
  (tickets: TicketService): ChannelRoutes =>
  (app, ctx) => {
    const detail = async (context: ServiceContext, id: string) =>
      toTicketDetailDto(await tickets.details(context, id));
    const group = routeGroup(app, ctx, { tags: ['Tickets'] });

    group.get('/tickets', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listTickets',
        summary: 'Tickets, newest first',
        querystring: TicketListQuery,
        response: { 200: TicketListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await tickets.list(
          contextOf(request),
          ticketFilterFromQuery(q),
          q.PageSize ?? 100,
          q.Cursor,
        );
        return toPageDto(page, toTicketDto);
      },
    });

    group.post('/tickets', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createTicket',
        summary: 'Open a ticket, optionally for some findings',
        description:
          'When every linked finding is Fixed the ticket becomes Resolved by itself; a reopened finding reopens it.',
        body: CreateTicketSchema,
        response: { 201: TicketDetailSchema },
      },
      handler: async (request, reply) => {
        const context = contextOf(request);
        const t = await tickets.create(context, newTicketFromBody(request.body));
        return reply.code(201).send(await detail(context, t.id));
      },
    });

    group.get('/tickets/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getTicket',
        summary: 'A ticket with its findings, comments and history',
        params: IdParams,
        response: { 200: TicketDetailSchema },
      },
      handler: async (request) => detail(contextOf(request), request.params.Id),
    });

    group.patch('/tickets/:Id', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'updateTicket',
        summary: 'Change a ticket',
        description:
          'State moves: Open ⇄ InProgress → Resolved → Closed; Resolved or Closed → Reopened. Others are 409.',
        params: IdParams,
        body: UpdateTicketSchema,
        response: { 200: TicketDetailSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        await tickets.update(context, request.params.Id, ticketChangesFromBody(request.body));
        return detail(context, request.params.Id);
      },
    });

    group.post('/tickets/:Id/comments', {
      access: { role: 'Analyst' },
      schema: {
        operationId: 'commentTicket',
        summary: 'Comment on a ticket',
        params: IdParams,
        body: CommentSchema,
        response: { 201: TicketDetailSchema },
      },
      handler: async (request, reply) => {
        const context = contextOf(request);
        await tickets.comment(context, request.params.Id, request.body.Body);
        return reply.code(201).send(await detail(context, request.params.Id));
      },
    });

    for (const [verb, unlink] of [
      ['link', false],
      ['unlink', true],
    ] as const) {
      group.post(`/tickets/:Id/findings/${verb}`, {
        access: { role: 'Analyst' },
        schema: {
          operationId: unlink ? 'unlinkTicketFindings' : 'linkTicketFindings',
          summary: unlink ? 'Remove findings from a ticket' : 'Add findings to a ticket',
          params: IdParams,
          body: LinkSchema,
          response: { 200: LinkResultSchema },
        },
        handler: async (request) => ({
          Changed: (
            await tickets.link(contextOf(request), request.params.Id, request.body.FindingIds, unlink)
          ).changed,
        }),
      });
    }
  };
