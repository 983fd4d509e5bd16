import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from './client';
import type { ResponseOf } from './types';

export type Dashboard = ResponseOf<'getDashboard'>;
export type ScanGroupName = ResponseOf<'listScanGroupsSimple'>[number];

/** What the dashboard shows: the organisation's findings, or a tag's, or a scan group's (not both). */
export interface DashboardFilter {
  Tag?: string;
  ScanGroupId?: string;
}

export const dashboardKey = ['dashboard'] as const;

export function useDashboard(filter: DashboardFilter) {
  return useQuery({
    queryKey: [...dashboardKey, filter],
    queryFn: ({ signal }) => api<Dashboard>('/dashboard', { query: { ...filter }, signal }),
    // A new filter keeps the figures on screen until its own arrive.
    placeholderData: keepPreviousData,
  });
}

/** Every scan group by name (the dashboard's filter). */
export function useScanGroupNames() {
  return useQuery({
    queryKey: ['scan-groups', 'names'],
    queryFn: ({ signal }) => api<ScanGroupName[]>('/scangroups/simple', { signal }),
  });
}

/** GET /trends: one entry per day of the organisation's (or a tag's, or a scan group's) history. */
export type Trends = ResponseOf<'getTrends'>;

/** The last 90 days up to today in the organisation's time zone (the API's default span). */
export function useTrends(filter: DashboardFilter) {
  return useQuery({
    queryKey: ['trends', filter],
    queryFn: ({ signal }) => api<Trends>('/trends', { query: { ...filter }, signal }),
    placeholderData: keepPreviousData,
  });
}
