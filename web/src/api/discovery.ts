import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from './client';
import { scanHooks } from './scans';
import type { QueryOf, RequestOf, ResponseOf } from './types';

export type DiscoveryScanPage = ResponseOf<'listDiscoveryScans'>;
export type DiscoveryScan = DiscoveryScanPage['Items'][number];
export type DiscoveryRun = NonNullable<DiscoveryScan['LastRun']>;
export type DiscoveryScanBody = RequestOf<'createDiscoveryScan'>;
export type DiscoveryReport = ResponseOf<'listDiscoveryReportHosts'>;
export type DiscoveryHost = DiscoveryReport['Items'][number];
export type HostStatus = DiscoveryHost['Status'];
export type ScanRunPage = ResponseOf<'listScanRuns'>;
export type ScanRun = ScanRunPage['Items'][number];

/** Discovery scans have no latest-run answer: their runs are read as reports of hosts. */
export const discoveryScans = scanHooks<DiscoveryScan, DiscoveryScanBody, never>(
  '/discoveryscans',
  'discovery-scans',
  'runs',
);

const discoveryKey = discoveryScans.key;

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
