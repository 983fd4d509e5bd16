import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { RequestOf, ResponseOf } from './types';

export type ScanGroupPage = ResponseOf<'listScanGroups'>;
export type ScanGroup = ResponseOf<'getScanGroup'>;
export type ScanGroupBody = RequestOf<'createScanGroup'>;
export type GroupSystemScans = ResponseOf<'listScanGroupSystemScans'>;
export type GroupWebScans = ResponseOf<'listScanGroupWebScans'>;

export const scanGroupsKey = ['scan-groups'] as const;
const one = (id: string) => `/scangroups/${encodeURIComponent(id)}`;

export function useScanGroups() {
  return useInfiniteQuery({
    queryKey: [...scanGroupsKey, 'list'],
    queryFn: ({ pageParam, signal }) =>
      api<ScanGroupPage>('/scangroups', { query: { PageSize: 50, Cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
  });
}

export function useScanGroup(id: string) {
  return useQuery({
    queryKey: [...scanGroupsKey, 'detail', id],
    queryFn: ({ signal }) => api<ScanGroup>(one(id), { signal }),
  });
}

/** The group's system and web scans (monitoring adds and removes them as hosts come and go). */
export function useGroupScans(id: string) {
  const system = useQuery({
    queryKey: [...scanGroupsKey, 'system-scans', id],
    queryFn: ({ signal }) => api<GroupSystemScans>(`${one(id)}/systemscans`, { signal }),
  });
  const web = useQuery({
    queryKey: [...scanGroupsKey, 'web-scans', id],
    queryFn: ({ signal }) => api<GroupWebScans>(`${one(id)}/webscans`, { signal }),
  });
  return { system, web };
}

export function useSaveScanGroup(id?: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ScanGroupBody) =>
      id
        ? api<ScanGroup>(one(id), { method: 'PUT', body })
        : api<ScanGroup>('/scangroups', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: scanGroupsKey }),
  });
}

export function useDeleteScanGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(one(id), { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: scanGroupsKey }),
  });
}
