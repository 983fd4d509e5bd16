import type { TicketPriority, TicketState } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { keysetPage } from '../../lib/cursor.js';
import { uuidv7 } from '../../lib/uuidv7.js';
import { AppError, invalid } from '../../problems/app-error.js';
import { Problems } from '../../problems/catalogue.js';
import type { AuditService } from '../audit/service.js';
import { newHistoryEntry, type ServiceContext, SYSTEM } from '../context.js';
import type { EventsService } from '../events/service.js';
import type { FindingService, FindingsChanged } from '../findings/service.js';
import { cursorKey } from '../paging.js';
import type { SettingsService } from '../settings/service.js';
import type { Page, UserService } from '../users/service.js';
import type { TicketRepository } from './repository.js';

type Trx = Parameters<EventsService['publish']>[0];

import type { Ticket, TicketComment, TicketDetails, TicketPatch } from './types.js';

/** Where a person may move a ticket from each state (Resolved and Reopened also happen by themselves). */
export const TICKET_TRANSITIONS: Record<TicketState, readonly TicketState[]> = {
  Open: ['InProgress', 'Resolved', 'Closed'],
  InProgress: ['Open', 'Resolved', 'Closed'],
  Reopened: ['InProgress', 'Resolved', 'Closed'],
  Resolved: ['Closed', 'Reopened'],
  Closed: ['Reopened'],
};

export interface NewTicket {
  title: string;
  description?: string;
  priority: TicketPriority;
  assigneeId?: string;
  dueAt?: Date;
  findingIds: string[];
}

export interface TicketChanges {
  title?: string;
  description?: string | null;
  priority?: TicketPriority;
  assigneeId?: string | null;
  dueAt?: Date | null;
  state?: TicketState;
}

const MAX_LINKS = 10_000;

export class TicketService {
  constructor(
    private readonly repo: TicketRepository,
    private readonly users: UserService,
    private readonly findings: FindingService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    findingsChanged: FindingsChanged,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {
    findingsChanged.subscribe((organizationId, ids, cause) =>
      this.findingsChanged(organizationId, ids, cause),
    );
  }

  /** The Ticket of an event's payload, as the transaction sees it. */
  private async ticketRef(trx: Trx, organizationId: string, id: string) {
    const t = await this.repo.findById(organizationId, id, trx);
    if (!t) throw new Error(`Ticket ${id} vanished within its own transaction.`);
    return {
      Id: t.id,
      Number: t.number,
      Title: t.title,
      State: t.state,
      Priority: t.priority,
      AssigneeUserId: t.assigneeId,
    };
  }

  private async checkFindings(ctx: ServiceContext, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_LINKS) throw invalid('findingIds', `at most ${MAX_LINKS} findings per request`);
    const found = new Set(await this.findings.existingIds(ctx.organizationId, unique));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw AppError.of(
        Problems.NotFound,
        `No findings ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''} in your organisation.`,
      );
    return unique;
  }

  async create(ctx: ServiceContext, input: NewTicket): Promise<Ticket> {
    const title = input.title.trim();
    if (!title) throw invalid('title', 'is required');
    if (input.assigneeId) await this.users.get(ctx, input.assigneeId);
    const findingIds = await this.checkFindings(ctx, input.findingIds);
    const id = uuidv7();
    const now = this.clock();
    await this.repo.transaction(async (trx) => {
      const number = await this.settings.nextTicketNumber(ctx.organizationId, now, trx);
      await this.repo.insert(
        ctx.organizationId,
        {
          id,
          number,
          title: title.slice(0, 500),
          description: input.description ?? null,
          priority: input.priority,
          assigneeId: input.assigneeId ?? null,
          dueAt: input.dueAt ?? null,
          createdBy: ctx.actor.type === 'user' || ctx.actor.type === 'apikey' ? (ctx.userId ?? null) : null,
          createdAt: now,
        },
        trx,
      );
      await this.repo.link(ctx.organizationId, id, findingIds, now, trx);
      await this.repo.addEvent(
        ctx.organizationId,
        {
          ...newHistoryEntry(ctx.actor, now),
          ticketId: id,
          kind: 'created',
          toState: 'Open',
          details: { findings: findingIds.length },
        },
        trx,
      );
      await this.events.publish(
        trx,
        ctx.organizationId,
        'ticket.created',
        { Ticket: await this.ticketRef(trx, ctx.organizationId, id), Actor: actorOf(ctx) },
        { subject: `tickets/${id}` },
      );
    });
    return this.get(ctx, id);
  }

  async get(ctx: ServiceContext, id: string): Promise<Ticket> {
    const row = await this.repo.findById(ctx.organizationId, id);
    if (!row) throw AppError.of(Problems.NotFound, `No ticket ${id} in your organisation.`);
    return row;
  }

  async details(ctx: ServiceContext, id: string): Promise<TicketDetails> {
    const ticket = await this.get(ctx, id);
    const [findings, comments, events] = await Promise.all([
      this.repo.linkedFindings(ctx.organizationId, id),
      this.repo.comments(ctx.organizationId, id),
      this.repo.events(ctx.organizationId, id),
    ]);
    return { ticket, findings, comments, events };
  }

  async list(
    ctx: ServiceContext,
    filter: { states?: TicketState[]; assigneeId?: string; search?: string },
    pageSize: number,
    cursor?: string,
  ): Promise<Page<Ticket>> {
    const afterId = cursor ? cursorKey(cursor, ['Id']).Id : undefined;
    const rows = await this.repo.listPage(ctx.organizationId, filter, pageSize + 1, afterId);
    return {
      ...keysetPage(rows, pageSize, (t) => ({ Id: t.id })),
      totalCount: await this.repo.count(ctx.organizationId, filter),
    };
  }

  async update(ctx: ServiceContext, id: string, changes: TicketChanges): Promise<Ticket> {
    const ticket = await this.get(ctx, id);
    if (changes.title !== undefined && !changes.title.trim()) throw invalid('title', 'must not be empty');
    if (changes.assigneeId) await this.users.get(ctx, changes.assigneeId);
    const now = this.clock();
    const stateChange = changes.state !== undefined && changes.state !== ticket.state;
    if (stateChange && !TICKET_TRANSITIONS[ticket.state].includes(changes.state!)) {
      throw AppError.of(
        Problems.Conflict,
        `A ticket in state ${ticket.state} cannot become ${changes.state}; from ${ticket.state} it can become ${TICKET_TRANSITIONS[ticket.state].join(', ')}.`,
      );
    }
    await this.repo.transaction(async (trx) => {
      await this.repo.update(
        ctx.organizationId,
        id,
        {
          ...(changes.title !== undefined ? { title: changes.title.trim().slice(0, 500) } : {}),
          ...(changes.description !== undefined ? { description: changes.description } : {}),
          ...(changes.priority !== undefined ? { priority: changes.priority } : {}),
          ...(changes.assigneeId !== undefined ? { assigneeId: changes.assigneeId } : {}),
          ...(changes.dueAt !== undefined ? { dueAt: changes.dueAt } : {}),
          ...(stateChange ? this.stateColumns(changes.state!, now) : {}),
        },
        now,
        trx,
      );
      await this.repo.addEvent(
        ctx.organizationId,
        {
          ...newHistoryEntry(ctx.actor, now),
          ticketId: id,
          kind: stateChange ? 'state_changed' : 'updated',
          ...(stateChange ? { fromState: ticket.state, toState: changes.state } : {}),
          details: { fields: Object.keys(changes).filter((k) => k !== 'state') },
        },
        trx,
      );
      await this.publishUpdate(trx, ctx, ticket, changes);
    });
    return this.get(ctx, id);
  }

  /** ticket.assigned when the assignee changed; ticket.changed when anything else did. */
  private async publishUpdate(trx: Trx, ctx: ServiceContext, before: Ticket, changes: TicketChanges) {
    const ref = await this.ticketRef(trx, ctx.organizationId, before.id);
    const subject = `tickets/${before.id}`;
    if (changes.assigneeId !== undefined && changes.assigneeId !== before.assigneeId)
      await this.events.publish(
        trx,
        ctx.organizationId,
        'ticket.assigned',
        { Ticket: ref, FromAssigneeUserId: before.assigneeId, Actor: actorOf(ctx) },
        { subject },
      );
    const changed = [
      ...(changes.title !== undefined && ref.Title !== before.title ? ['Title'] : []),
      ...(changes.description !== undefined && changes.description !== before.description
        ? ['Description']
        : []),
      ...(changes.priority !== undefined && changes.priority !== before.priority ? ['Priority'] : []),
      ...(changes.dueAt !== undefined && changes.dueAt?.getTime() !== before.dueAt?.getTime()
        ? ['DueAt']
        : []),
      ...(changes.state !== undefined && changes.state !== before.state ? ['State'] : []),
    ];
    if (changed.length > 0)
      await this.events.publish(
        trx,
        ctx.organizationId,
        'ticket.changed',
        { Ticket: ref, Changed: changed, Actor: actorOf(ctx) },
        { subject },
      );
  }

  private stateColumns(state: TicketState, now: Date): TicketPatch {
    if (state === 'Resolved') return { state, resolvedAt: now };
    if (state === 'Closed') return { state, closedAt: now };
    if (state === 'Reopened' || state === 'Open') return { state, resolvedAt: null, closedAt: null };
    return { state };
  }

  async delete(ctx: ServiceContext, id: string): Promise<void> {
    const ticket = await this.get(ctx, id);
    if (!(await this.repo.delete(ctx.organizationId, id)))
      throw AppError.of(Problems.NotFound, `No ticket ${id} in your organisation.`);
    await this.audit.record(
      ctx,
      'ticket.deleted',
      { type: 'ticket', id },
      { number: ticket.number, title: ticket.title },
    );
  }

  async comment(ctx: ServiceContext, id: string, body: string): Promise<TicketComment[]> {
    await this.get(ctx, id);
    const text = body.trim();
    if (!text) throw invalid('body', 'must not be empty');
    await this.repo.addComment(ctx.organizationId, {
      id: uuidv7(),
      ticketId: id,
      authorId: ctx.userId ?? null,
      body: text.slice(0, 20_000),
      createdAt: this.clock(),
    });
    return this.repo.comments(ctx.organizationId, id);
  }

  async link(
    ctx: ServiceContext,
    id: string,
    findingIds: string[],
    unlink = false,
  ): Promise<{ changed: number }> {
    await this.get(ctx, id);
    const ids = await this.checkFindings(ctx, findingIds);
    const now = this.clock();
    const changed = await this.repo.transaction(async (trx) => {
      const n = unlink
        ? await this.repo.unlink(ctx.organizationId, id, ids, trx)
        : await this.repo.link(ctx.organizationId, id, ids, now, trx);
      await this.repo.addEvent(
        ctx.organizationId,
        {
          ...newHistoryEntry(ctx.actor, now),
          ticketId: id,
          kind: unlink ? 'findings_unlinked' : 'findings_linked',
          details: { count: n },
        },
        trx,
      );
      return n;
    });
    return { changed };
  }

  /**
   * Keeps tickets in step with their findings: when every linked finding is Fixed the ticket is
   * Resolved; when one of them is reopened a resolved or closed ticket is Reopened.
   */
  async findingsChanged(
    organizationId: string,
    findingIds: string[],
    cause?: { verify?: boolean },
  ): Promise<void> {
    if (findingIds.length === 0) return;
    const now = this.clock();
    await this.repo.transaction(async (trx) => {
      for (const t of await this.repo.ticketsOfFindings(organizationId, findingIds, trx)) {
        let to: TicketState | undefined;
        if (t.unfixed === 0 && ['Open', 'InProgress', 'Reopened'].includes(t.state)) to = 'Resolved';
        else if (t.reopened > 0 && (t.state === 'Resolved' || t.state === 'Closed')) to = 'Reopened';
        if (!to) continue;
        await this.repo.update(organizationId, t.id, this.stateColumns(to, now), now, trx);
        await this.repo.addEvent(
          organizationId,
          {
            ...newHistoryEntry(SYSTEM, now),
            ticketId: t.id,
            kind: 'state_changed',
            fromState: t.state,
            toState: to,
            details: { because: to === 'Resolved' ? 'all findings fixed' : 'a finding was reopened' },
          },
          trx,
        );
        const ref = await this.ticketRef(trx, organizationId, t.id);
        const subject = `tickets/${t.id}`;
        await this.events.publish(
          trx,
          organizationId,
          'ticket.changed',
          { Ticket: ref, Changed: ['State'], Actor: { Type: SYSTEM.type, Id: SYSTEM.id } },
          { subject },
        );
        if (to === 'Resolved' && cause?.verify) {
          const linked = await this.repo.linkedFindings(organizationId, t.id);
          await this.events.publish(
            trx,
            organizationId,
            'ticket.resolved_by_verify',
            { Ticket: ref, FindingIds: linked.slice(0, 100).map((f) => f.id) },
            { subject },
          );
        }
      }
    });
  }
}

const actorOf = (ctx: ServiceContext) => ({ Type: ctx.actor.type, Id: ctx.actor.id });
