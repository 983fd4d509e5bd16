import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { api, apiWithStatus } from './client';
import type {
  AssetDetail,
  AssetKind,
  AssetPage,
  AssetService,
  InstalledSoftwarePage,
  QueryOf,
  RequestOf,
} from './types';

export type { AssetService, InstalledSoftware } from './types';

export const assetsKey = ['assets'] as const;
const PAGE_SIZE = 50;

export const ASSET_KINDS: readonly AssetKind[] = [
  'Host',
  'WebApplication',
  'ContainerImage',
  'CodeRepository',
];

/** The filters the assets page offers (part of the list's query). */
export type AssetFilter = Pick<QueryOf<'listAssets'>, 'Search' | 'Kind' | 'Tag'>;

function assetQuery(filter: AssetFilter) {
  return { Search: filter.Search || undefined, Kind: filter.Kind || undefined, Tag: filter.Tag || undefined };
}

export function useAssets(filter: AssetFilter) {
  return useInfiniteQuery({
    queryKey: [...assetsKey, 'list', filter],
    queryFn: ({ pageParam, signal }) =>
      api<AssetPage>('/assets', {
        query: { ...assetQuery(filter), PageSize: PAGE_SIZE, Cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

export function downloadAssetsCsv(filter: AssetFilter) {
  return api<Blob>('/assets', { query: assetQuery(filter), accept: 'text/csv' });
}

export function useAsset(id: string) {
  return useQuery({
    queryKey: [...assetsKey, 'detail', id],
    queryFn: ({ signal }) => api<AssetDetail>(`/assets/${encodeURIComponent(id)}`, { signal }),
  });
}

export type NewAsset = RequestOf<'createAsset'>;

export function useCreateAsset() {
  const client = useQueryClient();
  return useMutation({
    // 201: a new asset; 200: the addresses matched an existing one, which absorbed the report.
    mutationFn: async (body: NewAsset) => {
      const { status, body: asset } = await apiWithStatus<AssetDetail>('/assets', { method: 'POST', body });
      return { asset, merged: status === 200 };
    },
    onSuccess: () => client.invalidateQueries({ queryKey: assetsKey }),
  });
}

export type AssetChanges = RequestOf<'updateAsset'>;

export function useUpdateAsset(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: AssetChanges) =>
      api<AssetDetail>(`/assets/${encodeURIComponent(id)}`, { method: 'PATCH', body }),
    onSuccess: (detail) => {
      client.setQueryData([...assetsKey, 'detail', id], detail);
      return client.invalidateQueries({ queryKey: [...assetsKey, 'list'] });
    },
  });
}

export function useDeleteAsset(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<void>(`/assets/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: [...assetsKey, 'list'] }),
        client.invalidateQueries({ queryKey: ['findings'] }),
      ]),
  });
}

/** Splits "a, b,c" into ["a", "b", "c"]. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

export function useAssetServices(id: string, enabled: boolean) {
  return useQuery({
    queryKey: [...assetsKey, 'services', id],
    queryFn: ({ signal }) => api<AssetService[]>(`/assets/${encodeURIComponent(id)}/services`, { signal }),
    enabled,
  });
}

/** The software installed on an asset, by name, a page at a time. */
export function useAssetSoftware(id: string, search: string) {
  return useInfiniteQuery({
    queryKey: [...assetsKey, 'software', id, search],
    queryFn: ({ pageParam, signal }) =>
      api<InstalledSoftwarePage>(`/assets/${encodeURIComponent(id)}/software`, {
        query: { Search: search || undefined, PageSize: PAGE_SIZE, Cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}
