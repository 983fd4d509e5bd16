// No imports: the server's typecheck reads this file too, through its tests (test/web/).

/** The dashboard's scope as the findings list takes it: a tag or a scan group. */
interface Scope {
  Tag?: string;
  ScanGroupId?: string;
}
type Params = Record<string, string | readonly string[] | undefined>;

/** The open states, as the findings list's State filter repeats them. */
export const OPEN = ['Open', 'Reopened'] as const;

/**
 * The findings list behind a figure: its own filters plus the dashboard's scope (a tag or a scan
 * group), as FindingsPage reads them from the address.
 */
export function findingsLink(scope: Scope, params: Params): string {
  const query = new URLSearchParams();
  const add = (key: string, value: string | readonly string[] | undefined) => {
    if (value === undefined) return;
    // An empty list is "Key=" (any), which FindingsPage tells from "not given" (its default).
    if (typeof value !== 'string' && value.length === 0) query.append(key, '');
    for (const v of typeof value === 'string' ? [value] : value) query.append(key, v);
  };
  for (const [key, value] of Object.entries(params)) add(key, value);
  add('Tag', scope.Tag);
  add('ScanGroupId', scope.ScanGroupId);
  return `/findings?${query.toString()}`;
}

/** The UTC instant of midnight at the start of a YYYY-MM-DD day in a time zone (UTC when unknown). */
export function zonedMidnight(day: string, timeZone: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(guess));
  } catch {
    return new Date(guess);
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  // What the zone's clock shows at UTC midnight, less UTC midnight: the zone's offset then.
  const shown = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return new Date(guess - (shown - guess));
}

/**
 * The findings list's strict time filters for the days [from, from + days) in a time zone: after
 * one millisecond before the first midnight (so that a finding of that midnight counts), before
 * the midnight that ends the span.
 */
export function daySpan(from: string, days: number, timeZone: string): { after: string; before: string } {
  const start = zonedMidnight(from, timeZone);
  // Midnight of the day after the span, not 24-hour days: a span may cross a change of summer time.
  const [y, m, d] = from.split('-').map(Number) as [number, number, number];
  const end = zonedMidnight(new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10), timeZone);
  return { after: new Date(start.getTime() - 1).toISOString(), before: end.toISOString() };
}
