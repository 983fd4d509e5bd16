import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { api } from './client';
import type {
  BulkResult,
  FindingDetail,
  FindingFilter,
  FindingPage,
  FindingSort,
  FindingState,
  RequestOf,
  Severity,
} from './types';

export const findingsKey = ['findings'] as const;
const PAGE_SIZE = 50;

export const SEVERITIES: readonly Severity[] = ['Critical', 'High', 'Medium', 'Low', 'Info'];
export const FINDING_STATES: readonly FindingState[] = [
  'Open',
  'Reopened',
  'Fixed',
  'RiskAccepted',
  'FalsePositive',
];
export const OPEN_STATES: readonly FindingState[] = ['Open', 'Reopened'];

/** Where a person may move a finding from each state (as the server allows). */
export const FINDING_TRANSITIONS: Record<FindingState, readonly FindingState[]> = {
  Open: ['Fixed', 'FalsePositive', 'RiskAccepted'],
  Reopened: ['Fixed', 'FalsePositive', 'RiskAccepted'],
  Fixed: ['Reopened'],
  RiskAccepted: ['Open'],
  FalsePositive: ['Open'],
};

/** The longest a risk may be accepted. */
export const MAX_RISK_ACCEPTANCE_DAYS = 365;

/** The filter as query parameters: empty values left out, lists repeated. */
export function filterQuery(filter: FindingFilter) {
  return {
    State: filter.State?.length ? filter.State : undefined,
    Confidence: filter.Confidence,
    Severity: filter.Severity?.length ? filter.Severity : undefined,
    AssetId: filter.AssetId || undefined,
    VulnerabilityId: filter.VulnerabilityId || undefined,
    Tag: filter.Tag || undefined,
    Cve: filter.Cve || undefined,
    Kev: filter.Kev ? true : undefined,
    RiskMin: filter.RiskMin || undefined,
    Search: filter.Search || undefined,
    ImportId: filter.ImportId || undefined,
    ImportChange: filter.ImportId ? filter.ImportChange : undefined,
    ScanId: filter.ScanId || undefined,
    ScanGroupId: filter.ScanGroupId || undefined,
    // The times behind a dashboard figure.
    FirstSeenAfter: filter.FirstSeenAfter || undefined,
    FirstSeenBefore: filter.FirstSeenBefore || undefined,
    FixedAfter: filter.FixedAfter || undefined,
    FixedBefore: filter.FixedBefore || undefined,
    DueBefore: filter.DueBefore || undefined,
  };
}

export function useFindings(filter: FindingFilter, sort: FindingSort, pageSize = PAGE_SIZE) {
  return useInfiniteQuery({
    queryKey: [...findingsKey, 'list', filter, sort, pageSize],
    queryFn: ({ pageParam, signal }) =>
      api<FindingPage>('/findings', {
        // The exact total is counted once, with the first page; the next pages skip it.
        query: {
          ...filterQuery(filter),
          Sort: sort,
          PageSize: pageSize,
          Cursor: pageParam,
          IncludeTotal: pageParam === undefined,
        },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    // A new filter keeps the old rows on screen until its answer arrives: no flashing table.
    placeholderData: keepPreviousData,
  });
}

/** How many findings match: one row asked for, the total read. */
export function useFindingCount(filter: FindingFilter) {
  return useQuery({
    queryKey: [...findingsKey, 'count', filter],
    queryFn: ({ signal }) =>
      api<FindingPage>('/findings', {
        query: { ...filterQuery(filter), PageSize: 1, IncludeTotal: true },
        signal,
      }),
    select: (page) => page.TotalCount,
  });
}

export function downloadFindingsCsv(filter: FindingFilter, sort: FindingSort) {
  return api<Blob>('/findings', { query: { ...filterQuery(filter), Sort: sort }, accept: 'text/csv' });
}

export function useFinding(id: string) {
  return useQuery({
    queryKey: [...findingsKey, 'detail', id],
    queryFn: ({ signal }) => api<FindingDetail>(`/findings/${encodeURIComponent(id)}`, { signal }),
  });
}

/** `Until` (ISO date-time) is required for RiskAccepted. */
export type StateChange = RequestOf<'changeFindingState'>;

// A finding's state feeds lists, counts, tickets and the overview: refresh all of them.
function useInvalidateWork() {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: findingsKey }),
      client.invalidateQueries({ queryKey: ['tickets'] }),
    ]);
}

export function useChangeFindingState(id: string) {
  const client = useQueryClient();
  const invalidate = useInvalidateWork();
  return useMutation({
    mutationFn: (body: StateChange) =>
      api<FindingDetail>(`/findings/${encodeURIComponent(id)}/state`, { method: 'POST', body }),
    onSuccess: (detail) => {
      client.setQueryData([...findingsKey, 'detail', id], detail);
      return invalidate();
    },
  });
}

export function useOverrideSeverity(id: string) {
  const client = useQueryClient();
  const invalidate = useInvalidateWork();
  return useMutation({
    mutationFn: (body: RequestOf<'overrideFindingSeverity'>) =>
      api<FindingDetail>(`/findings/${encodeURIComponent(id)}/severity`, { method: 'POST', body }),
    onSuccess: (detail) => {
      client.setQueryData([...findingsKey, 'detail', id], detail);
      return invalidate();
    },
  });
}

export function useBulkState() {
  const invalidate = useInvalidateWork();
  return useMutation({
    mutationFn: (body: RequestOf<'bulkChangeFindingState'>) =>
      api<BulkResult>('/findings/bulk/state', { method: 'POST', body }),
    onSuccess: () => invalidate(),
  });
}

export function useBulkTicket() {
  const invalidate = useInvalidateWork();
  return useMutation({
    mutationFn: (body: RequestOf<'bulkLinkFindingsToTicket'>) =>
      api<BulkResult>('/findings/bulk/ticket', { method: 'POST', body }),
    onSuccess: () => invalidate(),
  });
}
