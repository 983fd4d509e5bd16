import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ApiError, api } from './client';
import { uploadFile } from './upload';

// Public vulnerability intelligence: what the feeds say about a CVE, and (Admins) the feeds' loads.

export type FeedName = 'nvd' | 'cve5' | 'kev' | 'epss' | 'osv';
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

export interface CvssMetric {
  /** "AV" */
  Key: string;
  /** "Attack Vector" */
  Name: string;
  /** "N" */
  Value: string;
  /** "Network" */
  Label: string;
}

export interface CvssAssessment {
  /** "2.0", "3.0", "3.1", "4.0" */
  Version: string;
  Vector: string;
  BaseScore: number | null;
  /** Critical, High, Medium, Low or None; null when the vector is not valid. */
  Severity: string | null;
  /** Who assessed: "nvd@nist.gov", a CNA's address… */
  Source: string | null;
  /** "Primary" or "Secondary". */
  Type: string | null;
  /** The base metrics, in the specification's order. */
  Metrics: CvssMetric[];
  /** Why the vector is not valid, when it is not. */
  Error: string | null;
}

export interface CveIntel {
  Cve: string;
  Status: string | null;
  Rejected: boolean;
  Description: string | null;
  PublishedAt: string | null;
  ModifiedAt: string | null;
  Cvss: CvssAssessment[];
  Cwe: string[];
  References: string[];
  Epss: { Score: number; Percentile: number; ScoreDate: string | null } | null;
  Kev: {
    Name: string | null;
    Vendor: string | null;
    Product: string | null;
    /** Days (YYYY-MM-DD). */
    DateAdded: string;
    DueDate: string | null;
    RequiredAction: string | null;
    KnownRansomwareUse: boolean;
  } | null;
  Advisories: { Id: string; Summary: string | null; Packages: string[] }[];
  /** vendor:product pairs the CPE configurations name as vulnerable. */
  AffectedProducts: string[];
  Sources: { Feed: string; Source: string; LoadedAt: string }[];
}

export type IntelLoadState = 'Running' | 'Completed' | 'Failed';

export interface IntelLoad {
  Id: string;
  Feed: FeedName;
  /** The file name, path or URL the records came from. */
  Source: string;
  State: IntelLoadState;
  /** The date the file speaks for, ISO 8601 UTC: KEV catalogue version, EPSS score date, NVD page timestamp. */
  DataDate: string | null;
  /** That date as the file wrote it (KEV "2025.08.25"); older servers send only DataDate, in this form. */
  DataDateAsGiven?: string | null;
  Added: number;
  Updated: number;
  Unchanged: number;
  Skipped: number;
  Warnings: string[];
  Error: string | null;
  StartedAt: string;
  FinishedAt: string | null;
}

export interface FeedStatus {
  Items: {
    Feed: FeedName;
    Records: number;
    /** How current the feed's data is (ISO 8601 UTC): the newest date its files stated, else its newest record. */
    DataDate: string | null;
    /** Holds records older than StaleAfterDays at the server's time. */
    Stale: boolean;
    LastLoad: IntelLoad | null;
    LastCompletedLoad: IntelLoad | null;
  }[];
  /** The server's time: staleness is judged by it, never by the browser's clock. */
  Now: string;
  StaleAfterDays: number;
  /** At least one feed is stale. */
  Stale: boolean;
  /** The URLs the scheduled sync downloads; empty: off. */
  SyncUrls: string[];
  SyncHours: number | null;
  LastSync: {
    StartedAt: string | null;
    FinishedAt: string | null;
    Errors: { Url: string; Error: string }[];
  } | null;
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
    queryFn: ({ signal }) => api<{ Items: IntelLoad[] }>('/intel/loads', { signal }),
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
