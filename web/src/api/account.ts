import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { sessionKey } from './session';
import type { AccountDetails, RequestOf } from './types';

export function useAccountDetails() {
  return useQuery({
    queryKey: ['account', 'details'],
    queryFn: ({ signal }) => api<AccountDetails>('/account/details', { signal }),
  });
}

export function useChangePassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestOf<'changePassword'>) =>
      api<void>('/account/password', { method: 'POST', body }),
    // The server may rotate this session (and its CSRF token) along with the others it ends.
    onSuccess: () => client.invalidateQueries({ queryKey: sessionKey }),
  });
}
