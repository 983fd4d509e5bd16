import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { ApiKey, CreatedApiKey, Page } from './types';

const apiKeysKey = ['apikeys'] as const;

export function useApiKeys() {
  return useQuery({
    queryKey: apiKeysKey,
    queryFn: ({ signal }) => api<Page<ApiKey>>('/apikeys', { signal }),
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    // The answer holds the secret key: keep it no longer than the dialog that shows it.
    gcTime: 0,
    mutationFn: (body: { Name: string; ExpiresInDays?: number }) =>
      api<CreatedApiKey>('/apikeys', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: apiKeysKey }),
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<ApiKey>(`/apikeys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: apiKeysKey }),
  });
}
