import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { RequestOf, ResponseOf } from './types';

export type SsoProviderPage = ResponseOf<'listSsoProviders'>;
export type SsoProvider = SsoProviderPage['Items'][number];
export type NewSsoProvider = RequestOf<'createSsoProvider'>;
export type SsoProviderChanges = RequestOf<'updateSsoProvider'>;
export type SsoSettings = ResponseOf<'getSsoSettings'>;
export type SignInProvider = ResponseOf<'listSignInProviders'>['Items'][number];

const providersKey = ['ssoproviders'] as const;
const settingsKey = ['ssosettings'] as const;

/** The providers the sign-in page offers (anonymous). */
export function useSignInProviders() {
  return useQuery({
    queryKey: ['signin-providers'],
    queryFn: ({ signal }) =>
      api<ResponseOf<'listSignInProviders'>>('/auth/oidc/providers', { signal, expectUnauthorized: true }),
    staleTime: 60_000,
  });
}

export function useSsoProviders(enabled = true) {
  return useQuery({
    queryKey: providersKey,
    queryFn: ({ signal }) => api<SsoProviderPage>('/ssoproviders', { signal }),
    enabled,
  });
}

export function useAddSsoProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewSsoProvider) => api<SsoProvider>('/ssoproviders', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}

export function useChangeSsoProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: SsoProviderChanges }) =>
      api<SsoProvider>(`/ssoproviders/${encodeURIComponent(id)}`, { method: 'PATCH', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}

export function useRemoveSsoProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/ssoproviders/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}

export function useSsoSettings(enabled = true) {
  return useQuery({
    queryKey: settingsKey,
    queryFn: ({ signal }) => api<SsoSettings>('/ssosettings', { signal }),
    enabled,
  });
}

export function useSaveSsoSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: SsoSettings) => api<SsoSettings>('/ssosettings', { method: 'PUT', body }),
    onSuccess: (settings) => client.setQueryData(settingsKey, settings),
  });
}
