import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { MfaEnrolment, MfaStatus, RequestOf, ResponseOf } from './types';

// Two-step verification (a TOTP second factor) in My profile, and an Admin's reset of a user's.

const statusKey = ['account', 'mfa'] as const;
const usersKey = ['users', 'mfa'] as const;

export function useMfaStatus() {
  return useQuery({
    queryKey: statusKey,
    queryFn: ({ signal }) => api<MfaStatus>('/account/mfa', { signal }),
  });
}

export function useStartMfaEnrolment() {
  return useMutation({
    // The answer holds the secret: keep it no longer than the form that shows it.
    gcTime: 0,
    mutationFn: () => api<MfaEnrolment>('/account/mfa/enrolment', { method: 'POST', body: {} }),
  });
}

export function useConfirmMfaEnrolment() {
  const client = useQueryClient();
  return useMutation({
    gcTime: 0,
    mutationFn: (body: RequestOf<'confirmMfaEnrolment'>) =>
      api<ResponseOf<'confirmMfaEnrolment'>>('/account/mfa/enrolment/confirm', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: statusKey }),
  });
}

export function useRegenerateRecoveryCodes() {
  const client = useQueryClient();
  return useMutation({
    gcTime: 0,
    mutationFn: (body: RequestOf<'regenerateRecoveryCodes'>) =>
      api<ResponseOf<'regenerateRecoveryCodes'>>('/account/mfa/recoverycodes', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: statusKey }),
  });
}

export function useDisableMfa() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestOf<'disableMfa'>) =>
      api<void>('/account/mfa/disable', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: statusKey }),
  });
}

/** The organisation's users with a second factor, by id (Admins). */
export function useMfaUsers(enabled: boolean) {
  return useQuery({
    queryKey: usersKey,
    queryFn: ({ signal }) => api<ResponseOf<'listMfaUsers'>>('/users/mfa', { signal }),
    select: (answer) => new Map(answer.Items.map((item) => [item.UserId, item])),
    enabled,
  });
}

export function useResetUserMfa() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/users/${encodeURIComponent(id)}/mfa`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: usersKey }),
  });
}
