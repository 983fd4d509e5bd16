import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { sessionKey } from './session';
import type { AccountDetails, NotificationPreferences, RequestOf } from './types';

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

const notificationsKey = ['account', 'notifications'] as const;

export function useNotificationPreferences() {
  return useQuery({
    queryKey: notificationsKey,
    queryFn: ({ signal }) => api<NotificationPreferences>('/account/notifications', { signal }),
  });
}

export function useSaveNotificationPreferences() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestOf<'setNotificationPreferences'>) =>
      api<NotificationPreferences>('/account/notifications', { method: 'PUT', body }),
    onSuccess: (saved) => client.setQueryData(notificationsKey, saved),
  });
}
