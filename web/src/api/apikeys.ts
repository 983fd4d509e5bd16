import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { ApiKey, ApiKeyPage, CreatedApiKey, RequestOf } from './types';

const apiKeysKey = ['apikeys'] as const;

export function useApiKeys() {
  return useQuery({
    queryKey: apiKeysKey,
    queryFn: ({ signal }) => api<ApiKeyPage>('/apikeys', { signal }),
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    // The answer holds the secret key: keep it no longer than the dialog that shows it.
    gcTime: 0,
    mutationFn: (body: RequestOf<'createApiKey'>) => api<CreatedApiKey>('/apikeys', { method: 'POST', body }),
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
