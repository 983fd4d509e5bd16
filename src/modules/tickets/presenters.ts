import type { Static } from 'typebox';
import { isoOrNull } from '../../http/dto.js';
import { toEventDto, toLocationDto } from '../findings/presenters.js';
import type { CreateTicketSchema, TicketListQuery, UpdateTicketSchema } from './schemas.js';
import type { NewTicket, TicketChanges } from './service.js';
import type { Ticket, TicketDetails } from './types.js';

// How tickets look on the wire, and how requests become the service's input.

export const toTicketDto = (t: Ticket) => ({
  Id: t.id,
  Number: t.number,
  Title: t.title,
  Description: t.description,
  Priority: t.priority,
  AssigneeId: t.assigneeId,
  DueAt: isoOrNull(t.dueAt),
  State: t.state,
  FindingCount: t.findingCount,
  CreatedById: t.createdById,
  CreatedAt: t.createdAt.toISOString(),
  UpdatedAt: t.updatedAt.toISOString(),
  ResolvedAt: isoOrNull(t.resolvedAt),
  ClosedAt: isoOrNull(t.closedAt),
});

/** A ticket with its findings, comments and history. */
export const toTicketDetailDto = (d: TicketDetails) => ({
  ...toTicketDto(d.ticket),
  Findings: d.findings.map((f) => ({
    Id: f.id,
    Title: f.title,
    State: f.state,
    Severity: f.effectiveSeverity,
    AssetId: f.assetId,
    AssetName: f.assetName,
    Location: toLocationDto(f),
  })),
  Comments: d.comments.map((c) => ({
    Id: c.id,
    AuthorId: c.authorId,
    Body: c.body,
    CreatedAt: c.createdAt.toISOString(),
  })),
  Events: d.events.map(toEventDto),
});

export const ticketFilterFromQuery = (q: Static<typeof TicketListQuery>) => ({
  states: q.State,
  assigneeId: q.AssigneeId,
  search: q.Search,
});

export const newTicketFromBody = (b: Static<typeof CreateTicketSchema>): NewTicket => ({
  title: b.Title,
  description: b.Description,
  priority: b.Priority ?? 'Medium',
  assigneeId: b.AssigneeId,
  dueAt: b.DueAt ? new Date(b.DueAt) : undefined,
  findingIds: b.FindingIds ?? [],
});

/** The changes of PATCH /tickets/{Id}; a null DueAt removes the due date. */
export const ticketChangesFromBody = (b: Static<typeof UpdateTicketSchema>): TicketChanges => ({
  title: b.Title,
  description: b.Description,
  priority: b.Priority,
  assigneeId: b.AssigneeId,
  dueAt: b.DueAt === undefined ? undefined : b.DueAt === null ? null : new Date(b.DueAt),
  state: b.State,
});
