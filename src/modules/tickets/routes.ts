import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { toLocationDto } from '../findings/location.js';
import type { TicketRow } from './repository.js';
import {
  CommentSchema,
  CreateTicketSchema,
  LinkResultSchema,
  LinkSchema,
  TicketDetailSchema,
  TicketIdParams,
  TicketListQuery,
  TicketListSchema,
  UpdateTicketSchema,
} from './schemas.js';
import type { TicketService } from './service.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toTicketDto = (t: TicketRow) => ({
  Id: t.id,
  Number: t.number,
  Title: t.title,
  Description: t.description,
  Priority: t.priority,
  AssigneeId: t.assignee_user_id,
  DueAt: iso(t.due_at),
  State: t.state,
  FindingCount: Number(t.finding_count ?? 0),
  CreatedById: t.created_by_user_id,
  CreatedAt: t.created_at.toISOString(),
  UpdatedAt: t.updated_at.toISOString(),
  ResolvedAt: iso(t.resolved_at),
  ClosedAt: iso(t.closed_at),
});

export const ticketRoutes =
  (tickets: TicketService): ChannelRoutes =>
  (app, ctx) => {
    const detail = async (context: ReturnType<typeof contextOf>, id: string) => {
      const d = await tickets.details(context, id);
      return {
        ...toTicketDto(d.ticket),
        Findings: d.findings.map((f) => ({
          Id: f.id,
          Title: f.title,
          State: f.state,
          Severity: f.effective_severity,
          AssetId: f.asset_id,
          AssetName: f.asset_name,
          Location: toLocationDto(f),
        })),
        Comments: d.comments.map((c) => ({
          Id: c.id,
          AuthorId: c.author_user_id,
          Body: c.body,
          CreatedAt: c.created_at.toISOString(),
        })),
        Events: d.events.map((e) => ({
          Id: e.id,
          At: e.occurred_at.toISOString(),
          ActorType: e.actor_type,
          ActorId: e.actor_id,
          Kind: e.kind,
          FromState: e.from_state,
          ToState: e.to_state,
        })),
      };
    };
    const tags = ['Tickets'];

    route(app, ctx, {
      method: 'GET',
      url: '/tickets',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listTickets',
        summary: 'Tickets, newest first',
        tags,
        querystring: TicketListQuery,
        response: { 200: TicketListSchema },
      },
      handler: async (request) => {
        const q = request.query;
        const page = await tickets.list(
          contextOf(request),
          { states: q.State, assigneeId: q.AssigneeId, search: q.Search },
          q.PageSize ?? 100,
          q.Cursor,
        );
        return {
          Items: page.items.map(toTicketDto),
          NextCursor: page.nextCursor,
          TotalCount: page.totalCount,
        };
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/tickets',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'createTicket',
        summary: 'Open a ticket, optionally for some findings',
        description:
          'When every linked finding is Fixed the ticket becomes Resolved by itself; a reopened finding reopens it.',
        tags,
        body: CreateTicketSchema,
        response: { 201: TicketDetailSchema },
      },
      handler: async (request, reply) => {
        const b = request.body;
        const context = contextOf(request);
        const t = await tickets.create(context, {
          title: b.Title,
          description: b.Description,
          priority: b.Priority ?? 'Medium',
          assigneeId: b.AssigneeId,
          dueAt: b.DueAt ? new Date(b.DueAt) : undefined,
          findingIds: b.FindingIds ?? [],
        });
        return reply.code(201).send(await detail(context, t.id));
      },
    });

    route(app, ctx, {
      method: 'GET',
      url: '/tickets/:Id',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getTicket',
        summary: 'A ticket with its findings, comments and history',
        tags,
        params: TicketIdParams,
        response: { 200: TicketDetailSchema },
      },
      handler: async (request) => detail(contextOf(request), request.params.Id),
    });

    route(app, ctx, {
      method: 'PATCH',
      url: '/tickets/:Id',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'updateTicket',
        summary: 'Change a ticket',
        description:
          'State moves: Open ⇄ InProgress → Resolved → Closed; Resolved or Closed → Reopened. Others are 409.',
        tags,
        params: TicketIdParams,
        body: UpdateTicketSchema,
        response: { 200: TicketDetailSchema },
      },
      handler: async (request) => {
        const b = request.body;
        const context = contextOf(request);
        await tickets.update(context, request.params.Id, {
          title: b.Title,
          description: b.Description,
          priority: b.Priority,
          assigneeId: b.AssigneeId,
          dueAt: b.DueAt === undefined ? undefined : b.DueAt === null ? null : new Date(b.DueAt),
          state: b.State,
        });
        return detail(context, request.params.Id);
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/tickets/:Id/comments',
      channels: BOTH,
      access: { role: 'Analyst' },
      schema: {
        operationId: 'commentTicket',
        summary: 'Comment on a ticket',
        tags,
        params: TicketIdParams,
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
      route(app, ctx, {
        method: 'POST',
        url: `/tickets/:Id/findings/${verb}`,
        channels: BOTH,
        access: { role: 'Analyst' },
        schema: {
          operationId: unlink ? 'unlinkTicketFindings' : 'linkTicketFindings',
          summary: unlink ? 'Remove findings from a ticket' : 'Add findings to a ticket',
          tags,
          params: TicketIdParams,
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
