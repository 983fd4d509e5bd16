import { Badge, Text } from '@mantine/core';
import type { FindingState, Priority, Severity, TicketState } from '../api/types';
import { DATE_STYLE } from '../dates';
import { findingStateLabel, ticketStateLabel } from '../labels';
import { FormattedTime } from './DateTime';

export const SEVERITY_COLORS: Record<Severity, string> = {
  Critical: 'red',
  High: 'orange',
  Medium: 'yellow',
  Low: 'blue',
  Info: 'gray',
};

const FINDING_STATE_COLORS: Record<FindingState, string> = {
  Open: 'red',
  Reopened: 'grape',
  Fixed: 'green',
  RiskAccepted: 'yellow',
  FalsePositive: 'gray',
};

const TICKET_STATE_COLORS: Record<TicketState, string> = {
  Open: 'blue',
  InProgress: 'cyan',
  Reopened: 'grape',
  Resolved: 'green',
  Closed: 'gray',
};

/** Some answers (a ticket's findings, a vulnerability) name these as any string: unknown ones are grey. */
function colorOf(colors: Readonly<Record<string, string>>, value: string): string {
  return colors[value] ?? 'gray';
}

// Badges in narrow table cells show the whole word rather than "Criti…".
const WHOLE_LABEL = { root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } } as const;

export function SeverityBadge({ severity }: { severity: Severity | string }) {
  // Filled for the two that need attention first; the colour is never the only cue: the word is there.
  const strong = severity === 'Critical' || severity === 'High';
  return (
    <Badge
      color={colorOf(SEVERITY_COLORS, severity)}
      variant={strong ? 'filled' : 'light'}
      miw={68}
      styles={WHOLE_LABEL}
    >
      {severity}
    </Badge>
  );
}

// States in words ("Risk accepted"); filters, exports and the address keep the API's names.
export function FindingStateBadge({ state }: { state: FindingState | string }) {
  return (
    <Badge color={colorOf(FINDING_STATE_COLORS, state)} variant="light" styles={WHOLE_LABEL}>
      {findingStateLabel(state)}
    </Badge>
  );
}

export function TicketStateBadge({ state }: { state: TicketState }) {
  return (
    <Badge color={TICKET_STATE_COLORS[state] ?? 'gray'} variant="light" styles={WHOLE_LABEL}>
      {ticketStateLabel(state)}
    </Badge>
  );
}

export function PriorityBadge({ priority }: { priority: Priority }) {
  return (
    <Badge color={SEVERITY_COLORS[priority] ?? 'gray'} variant="outline" styles={WHOLE_LABEL}>
      {priority}
    </Badge>
  );
}

const dateFormatter = new Intl.DateTimeFormat(undefined, DATE_STYLE);

/** A day in the app's date style (as date fields show it); the exact ISO time shows on hover. */
export function DateOnly({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  return <FormattedTime value={value} empty={empty} formatter={dateFormatter} />;
}

const dayFormatter = new Intl.DateTimeFormat(undefined, { ...DATE_STYLE, timeZone: 'UTC' });

/**
 * A calendar day the server sends as YYYY-MM-DD (a KEV date, an EPSS score date): the same day
 * everywhere, not shifted by the user's time zone as a point in time would be.
 */
export function Day({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <>{empty}</>;
  const date = new Date(`${value.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return <>{value}</>;
  return (
    <time dateTime={value.slice(0, 10)} title={value.slice(0, 10)}>
      {dayFormatter.format(date)}
    </time>
  );
}

/** A due date; red and said in words when it has passed and the work is not done. */
export function DueDate({ value, done = false }: { value: string | null | undefined; done?: boolean }) {
  if (!value) return <>—</>;
  const overdue = !done && new Date(value).getTime() < Date.now();
  if (!overdue) return <DateOnly value={value} />;
  return (
    <Text component="span" c="red" fw={600} inherit>
      <DateOnly value={value} />
      <Text component="span" size="xs" ml={4} inherit>
        (overdue)
      </Text>
    </Text>
  );
}

/** The value of a DayInput (a local day, YYYY-MM-DD) for today plus `days`. */
export function dayInput(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The value of a DayInput for an ISO time, in the user's time zone. */
export function isoToDayInput(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** An ISO time for a day chosen in a DayInput: the start (or end) of that day, local time. */
export function dayInputToIso(value: string, endOfDay = false): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const date = new Date(`${value}T${endOfDay ? '23:59:59' : '00:00:00'}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
