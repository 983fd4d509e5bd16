import type { FindingState, Severity, TicketPriority, TicketState } from '../../db/schema.js';
import type { FindingLocationFields, HistoryEvent } from '../findings/types.js';

// What the tickets service speaks: tickets as the domain sees them, not as the database stores
// them. The repository selects its columns under these names (aliases, no per-row mapping).

export interface Ticket {
  id: string;
  organizationId: string;
  /** The organisation's running number of the ticket. */
  number: number;
  title: string;
  description: string | null;
  priority: TicketPriority;
  assigneeId: string | null;
  dueAt: Date | null;
  state: TicketState;
  createdById: string | null;
  createdAt: Date;
  updatedAt: Date;
  resolvedAt: Date | null;
  closedAt: Date | null;
  /** How many findings are linked to it. */
  findingCount: number;
}

/** A finding linked to a ticket, with where it is (findings of one vulnerability differ only by it). */
export interface LinkedFinding extends FindingLocationFields {
  id: string;
  title: string;
  state: FindingState;
  effectiveSeverity: Severity;
  assetId: string;
  assetName: string;
}

export interface TicketComment {
  id: string;
  authorId: string | null;
  body: string;
  createdAt: Date;
}

/** An entry of a ticket's history. */
export type TicketEvent = HistoryEvent;

/** How far a ticket's findings are (what keeps the ticket in step with them). */
export interface TicketProgress {
  id: string;
  state: TicketState;
  /** How many of its findings are not Fixed. */
  unfixed: number;
  /** How many of its findings are Reopened. */
  reopened: number;
}

/** A ticket with its findings, comments and history. */
export interface TicketDetails {
  ticket: Ticket;
  findings: LinkedFinding[];
  comments: TicketComment[];
  events: TicketEvent[];
}

/** The fields of a ticket a change writes (the repository stamps updatedAt). */
export type TicketPatch = Partial<
  Pick<
    Ticket,
    'title' | 'description' | 'priority' | 'assigneeId' | 'dueAt' | 'state' | 'resolvedAt' | 'closedAt'
  >
>;
