import type { DashboardFilter } from '../../api/dashboard';

type Params = Record<string, string | readonly string[] | undefined>;

/** The open states, as the findings list's State filter repeats them. */
export const OPEN = ['Open', 'Reopened'] as const;

/**
 * The findings list behind a figure: its own filters plus the dashboard's scope (a tag or a scan
 * group), as FindingsPage reads them from the address.
 */
export function findingsLink(scope: DashboardFilter, params: Params): string {
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
