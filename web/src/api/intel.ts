import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ApiError, api } from './client';
import type { CveIntel, FeedName, FeedStatus, IntelLoad, IntelLoadList, IntelLoadState } from './types';
import { uploadFile } from './upload';

// Public vulnerability intelligence: what the feeds say about a CVE, and (Admins) the feeds' loads.

export type {
  CveIntel,
  CvssAssessment,
  CvssMetric,
  FeedName,
  FeedStatus,
  IntelLoad,
  IntelLoadState,
} from './types';

export const FEED_NAMES: readonly FeedName[] = ['nvd', 'cve5', 'kev', 'epss', 'osv'];

/** What each feed is, for people. */
export const FEEDS: Record<FeedName, { label: string; description: string }> = {
  nvd: { label: 'NVD', description: 'NVD CVE API 2.0: CVSS, CWE, references, affected products' },
  cve5: { label: 'CVE 5', description: 'CVE JSON 5 records from CNAs and CISA-ADP' },
  kev: { label: 'CISA KEV', description: 'Known Exploited Vulnerabilities catalogue' },
  epss: { label: 'EPSS', description: 'FIRST’s Exploit Prediction Scoring System' },
  osv: { label: 'OSV', description: 'Open Source Vulnerabilities advisories for packages' },
};

/** The label of a feed the server names, even one this app does not know yet. */
export function feedLabel(feed: string): string {
  return (FEEDS as Record<string, { label: string } | undefined>)[feed]?.label ?? feed;
}

export const intelKey = ['intel'] as const;

/**
 * What the feeds say about one CVE; null when no feed loaded here knows it (the server's 404),
 * which is an answer, not an error.
 */
export function useCveIntel(cve: string | undefined) {
  return useQuery({
    queryKey: [...intelKey, 'cve', cve],
    queryFn: async ({ signal }) => {
      try {
        return await api<CveIntel>(`/intel/cves/${encodeURIComponent(cve ?? '')}`, { signal });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    enabled: !!cve,
    staleTime: 5 * 60_000,
  });
}

export function isRunning(state: IntelLoadState | undefined): boolean {
  return state === 'Running';
}

/** Every feed's records and loads, and the sync settings; followed while a load runs. */
export function useFeedStatus() {
  return useQuery({
    queryKey: [...intelKey, 'feeds'],
    queryFn: ({ signal }) => api<FeedStatus>('/intel/feeds', { signal }),
    refetchInterval: (query) =>
      query.state.data?.Items.some((item) => isRunning(item.LastLoad?.State)) ? 2000 : false,
  });
}

/** The last 100 loads, newest first. */
export function useIntelLoads() {
  return useQuery({
    queryKey: [...intelKey, 'loads'],
    queryFn: ({ signal }) => api<IntelLoadList>('/intel/loads', { signal }),
    select: (data) => data.Items,
    refetchInterval: (query) =>
      query.state.data?.Items.some((item) => isRunning(item.State)) ? 2000 : false,
  });
}

/** One load, asked again every second until it has ended. */
export function useIntelLoad(id: string) {
  const query = useQuery({
    queryKey: [...intelKey, 'load', id],
    queryFn: ({ signal }) => api<IntelLoad>(`/intel/loads/${encodeURIComponent(id)}`, { signal }),
    refetchInterval: (q) => (isRunning(q.state.data?.State) ? 1000 : false),
    enabled: !!id,
  });
  useRefreshWhenEnded(query.data);
  return query;
}

// A load that ends has changed vulnerabilities and re-scored findings in every organisation.
function useRefreshWhenEnded(current: IntelLoad | undefined) {
  const client = useQueryClient();
  const previous = useRef(current?.State);
  useEffect(() => {
    const was = previous.current;
    previous.current = current?.State;
    if (current && isRunning(was) && !isRunning(current.State)) {
      for (const key of [intelKey, ['vulnerabilities'], ['findings']]) {
        void client.invalidateQueries({ queryKey: key });
      }
    }
  }, [client, current]);
}

/**
 * Sends a feed file (plain or gzip) as the raw request body; resolves with the Running load.
 * Without `feed` the server tells the feed from the content.
 */
export function uploadFeed(
  file: File,
  options: { feed?: FeedName; signal?: AbortSignal },
  onProgress: (fraction: number) => void,
): Promise<IntelLoad> {
  return uploadFile<IntelLoad>({
    path: '/intel/loads',
    file,
    query: { Feed: options.feed, FileName: file.name ? file.name.slice(0, 255) : undefined },
    signal: options.signal,
    onProgress,
  });
}
