import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { AssetPage, DemoLoaded } from './types';

/** Whether the organisation has any asset yet (a brand-new organisation is offered demo data). */
export function useHasAssets() {
  return useQuery({
    queryKey: ['assets', 'any'],
    queryFn: async ({ signal }) =>
      (await api<AssetPage>('/assets', { query: { PageSize: 1 }, signal })).Items.length > 0,
  });
}

export function useLoadDemo() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<DemoLoaded>('/demo', { method: 'POST', body: {} }),
    // Everything may have changed: assets, findings, tickets, the exposure counts.
    onSuccess: () => client.invalidateQueries(),
  });
}
