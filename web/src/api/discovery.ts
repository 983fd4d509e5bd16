import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api } from './client';
import type { QueryOf, RequestOf, ResponseOf } from './types';

export type DiscoveryScanPage = ResponseOf<'listDiscoveryScans'>;
export type DiscoveryScan = DiscoveryScanPage['Items'][number];
export type DiscoveryRunState = DiscoveryScan['RunState'];
export type DiscoveryRun = NonNullable<DiscoveryScan['LastRun']>;
export type DiscoveryScanBody = RequestOf<'createDiscoveryScan'>;
export type DiscoveryReport = ResponseOf<'listDiscoveryReportHosts'>;
export type DiscoveryHost = DiscoveryReport['Items'][number];
export type HostStatus = DiscoveryHost['Status'];
export type ScanTemplate = ResponseOf<'listScanTemplates'>['Items'][number];
export type ScanRunPage = ResponseOf<'listScanRuns'>;
export type ScanRun = ScanRunPage['Items'][number];

export const discoveryKey = ['discovery-scans'] as const;

/** A run still under way: the page follows it. */
export function isActive(state: DiscoveryRunState | undefined): boolean {
  return state === 'Queued' || state === 'Running' || state === 'Stopping';
}

export function useDiscoveryScans() {
  return useInfiniteQuery({
    queryKey: [...discoveryKey, 'list'],
    queryFn: ({ pageParam, signal }) =>
      api<DiscoveryScanPage>('/discoveryscans', { query: { PageSize: 50, Cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) => p.Items.some((s) => isActive(s.RunState))) ? 2000 : false,
  });
}

/** One scan, asked again every second while a run is under way (live progress). */
export function useDiscoveryScan(id: string) {
  const query = useQuery({
    queryKey: [...discoveryKey, 'detail', id],
    queryFn: ({ signal }) => api<DiscoveryScan>(`/discoveryscans/${encodeURIComponent(id)}`, { signal }),
    refetchInterval: (q) => (isActive(q.state.data?.RunState) ? 1000 : false),
  });
  useRefreshWhenEnded(query.data?.RunState);
  return query;
}

// When a run ends, its report (New, Seen, Gone), the runs list and the assets it made are out of date.
function useRefreshWhenEnded(state: DiscoveryRunState | undefined) {
  const client = useQueryClient();
  const previous = useRef(state);
  useEffect(() => {
    const was = previous.current;
    previous.current = state;
    if (isActive(was) && !isActive(state)) {
      for (const key of [discoveryKey, ['assets']]) void client.invalidateQueries({ queryKey: key });
    }
  }, [client, state]);
}

/** The scan's runs, newest first. */
export function useScanRuns(scanId: string, active: boolean) {
  return useQuery({
    queryKey: [...discoveryKey, 'runs', scanId],
    queryFn: ({ signal }) =>
      api<ScanRunPage>('/scanruns', { query: { SourceId: scanId, PageSize: 20 }, signal }),
    refetchInterval: active ? 2000 : false,
  });
}

export function useReportHosts(
  scanId: string,
  runId: string | null,
  status: HostStatus | null,
  active: boolean,
) {
  return useInfiniteQuery({
    queryKey: [...discoveryKey, 'report', scanId, runId, status],
    enabled: !!runId,
    queryFn: ({ pageParam, signal }) =>
      api<DiscoveryReport>(
        `/discoveryscans/${encodeURIComponent(scanId)}/reports/${encodeURIComponent(runId ?? 'latest')}/hosts`,
        {
          query: {
            PageSize: 100,
            Cursor: pageParam,
            Status: (status ?? undefined) as QueryOf<'listDiscoveryReportHosts'>['Status'],
          },
          signal,
        },
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    refetchInterval: active ? 2000 : false,
  });
}

export function useScanTemplates() {
  return useQuery({
    queryKey: ['scan-templates', 'Discovery'],
    queryFn: ({ signal }) =>
      api<ResponseOf<'listScanTemplates'>>('/scantemplates', { query: { Kind: 'Discovery' }, signal }),
    staleTime: 60_000,
  });
}

function useInvalidate() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: discoveryKey });
}

export function useSaveDiscoveryScan(id?: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: DiscoveryScanBody) =>
      id
        ? api<DiscoveryScan>(`/discoveryscans/${encodeURIComponent(id)}`, { method: 'PUT', body })
        : api<DiscoveryScan>('/discoveryscans', { method: 'POST', body }),
    onSuccess: invalidate,
  });
}

export function useStartScan() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) =>
      api<DiscoveryRun>(`/discoveryscans/${encodeURIComponent(id)}/runs`, { method: 'POST' }),
    onSuccess: invalidate,
  });
}

export function useStopScan() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) =>
      api<DiscoveryRun>(`/discoveryscans/${encodeURIComponent(id)}/stop`, { method: 'POST' }),
    onSuccess: invalidate,
  });
}

export function useDeleteScan() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/discoveryscans/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: invalidate,
  });
}

/** One target per line: a range, optionally followed by a name after whitespace. */
export function parseTargetLines(text: string): { Range: string; Name?: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const [range, ...name] = line.split(/\s+/);
      return name.length > 0 ? { Range: range ?? '', Name: name.join(' ') } : { Range: range ?? '' };
    });
}

export function splitLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
