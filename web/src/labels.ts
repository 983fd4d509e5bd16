// Words for what the API names in code: states, kinds, roles and history events. The API keeps its
// names (filters, exports and integrations use them, and the address bar keeps them in filters);
// people read these. Free of React, so tests can import it.
import type { AssetKind, FindingState, HistoryEvent, Role, TicketState } from './api/types.js';

/**
 * A count with its noun in the right number, the count in the reader's locale: "1 address",
 * "1,024 addresses". Every count the app prints goes through it (never "1 addresses").
 */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

/** A count and its noun without the locale's grouping ("1000 findings"), as the tables' footers say it. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export const FINDING_STATE_LABELS: Record<FindingState, string> = {
  Open: 'Open',
  Reopened: 'Reopened',
  Fixed: 'Fixed',
  RiskAccepted: 'Risk accepted',
  FalsePositive: 'False positive',
};

export const TICKET_STATE_LABELS: Record<TicketState, string> = {
  Open: 'Open',
  InProgress: 'In progress',
  Reopened: 'Reopened',
  Resolved: 'Resolved',
  Closed: 'Closed',
};

export const ROLE_LABELS: Record<Role, string> = {
  ReadOnly: 'Read-only',
  Analyst: 'Analyst',
  Manager: 'Manager',
  Admin: 'Admin',
};

/** An organisation of the installation: in use, or deactivated (its data kept). */
export const organizationStatusLabel = (active: boolean) => (active ? 'Active' : 'Deactivated');

export const ASSET_KIND_LABELS: Record<AssetKind, string> = {
  Host: 'Host',
  WebApplication: 'Web application',
  ContainerImage: 'Container image',
  CodeRepository: 'Code repository',
};

export const SOFTWARE_CATEGORY_LABELS: Record<string, string> = {
  OperatingSystem: 'Operating system',
  Application: 'Application',
  OsPackage: 'OS package',
  Library: 'Library',
  Firmware: 'Firmware',
  Other: 'Other',
};

/** How an asset is known (the API's identifier kinds). */
export const IDENTIFIER_KIND_LABELS: Record<string, string> = {
  fqdn: 'FQDN',
  ip: 'IP address',
  hostname: 'Host name',
  mac: 'MAC address',
  url: 'URL',
  image: 'Container image',
  repository: 'Repository',
};

/** Who did something, as a history line ends: "by …". */
export const ACTOR_LABELS: Record<string, string> = {
  user: 'a person',
  apikey: 'an API key',
  system: 'Rampart',
  cli: 'the command line',
};

/**
 * An internal name in words, for names a newer server sends that no map here knows yet:
 * "InProgress" → "In progress", "findings_linked" → "Findings linked"; "CVE" and "OS" stay.
 */
export function humanise(name: string): string {
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return words
    .map((word, i) => {
      if (/^[A-Z\d]{2,}$/.test(word)) return word; // an acronym
      const lower = word.toLowerCase();
      return i === 0 ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower;
    })
    .join(' ');
}

/** The label of `value` in `labels`, else its name in words. */
export function labelOf(labels: Record<string, string>, value: string): string {
  return labels[value] ?? humanise(value);
}

export const findingStateLabel = (state: string) => labelOf(FINDING_STATE_LABELS, state);
export const ticketStateLabel = (state: string) => labelOf(TICKET_STATE_LABELS, state);
export const roleLabel = (role: string) => labelOf(ROLE_LABELS, role);

/** A history event as a sentence: "State changed from Open to In progress", "Findings added". */
export function eventSentence(
  event: Pick<HistoryEvent, 'Kind' | 'FromState' | 'ToState'>,
  subject: 'finding' | 'ticket',
): string {
  const state = subject === 'ticket' ? ticketStateLabel : findingStateLabel;
  const from = event.FromState ? state(event.FromState) : null;
  const to = event.ToState ? state(event.ToState) : null;
  switch (event.Kind) {
    case 'created':
      if (subject === 'ticket') return 'Ticket created';
      return to && event.ToState !== 'Open' ? `First reported, as ${to.toLowerCase()}` : 'First reported';
    case 'state_changed':
      if (from && to) return `State changed from ${from} to ${to}`;
      return to ? `State changed to ${to}` : 'State changed';
    case 'severity_overridden':
      return 'Severity overridden';
    case 'updated':
      return 'Details edited';
    case 'findings_linked':
      return 'Findings added to the ticket';
    case 'findings_unlinked':
      return 'Findings removed from the ticket';
    default:
      return from || to ? `${humanise(event.Kind)}: ${from ?? '—'} to ${to ?? '—'}` : humanise(event.Kind);
  }
}

/** Choices for a select: the API's names as values, their labels as what people read. */
export function options<T extends string>(
  values: readonly T[],
  labels: Record<string, string>,
): { value: T; label: string }[] {
  return values.map((value) => ({ value, label: labelOf(labels, value) }));
}
