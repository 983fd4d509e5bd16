import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { Page } from './types';

/** Whether the organisation has any asset yet (a brand-new organisation is offered demo data). */
export function useHasAssets() {
  return useQuery({
    queryKey: ['assets', 'any'],
    queryFn: async ({ signal }) =>
      (await api<Page<unknown>>('/assets', { query: { PageSize: 1 }, signal })).Items.length > 0,
  });
}

export interface DemoLoaded {
  Assets: number;
  Findings: number;
  Tickets: number;
}

export function useLoadDemo() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<DemoLoaded>('/demo', { method: 'POST', body: {} }),
    // Everything may have changed: assets, findings, tickets, the exposure counts.
    onSuccess: () => client.invalidateQueries(),
  });
}
