import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { RequestOf, Settings } from './types';

const settingsKey = ['settings'] as const;

export function useSettings() {
  return useQuery({
    queryKey: settingsKey,
    queryFn: ({ signal }) => api<Settings>('/settings', { signal }),
  });
}

export function useSaveSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestOf<'updateSettings'>) => api<Settings>('/settings', { method: 'PUT', body }),
    onSuccess: (settings) => client.setQueryData(settingsKey, settings),
  });
}
