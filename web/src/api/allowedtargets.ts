import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { RequestOf, ResponseOf } from './types';

export type AllowedTargetPage = ResponseOf<'listAllowedTargets'>;
export type AllowedTarget = AllowedTargetPage['Items'][number];
export type AllowedTargetKind = AllowedTarget['Kind'];
export type NewAllowedTarget = RequestOf<'createAllowedTarget'>;
export type TargetCheck = ResponseOf<'checkScanTargets'>;
export type TargetVerdict = TargetCheck['Items'][number];
export type TargetRule = NonNullable<TargetVerdict['Rule']>;

/** Where the discovery-scan page links when nothing may be scanned yet. */
export const ALLOWED_TARGETS_PATH = '/settings#allowed-targets';

const allowedTargetsKey = ['allowedtargets'] as const;

/** The organisation keeps at most 2000 entries: one page of the largest size holds the usual cases. */
export function useAllowedTargets() {
  return useQuery({
    queryKey: allowedTargetsKey,
    queryFn: ({ signal }) => api<AllowedTargetPage>('/allowedtargets', { query: { PageSize: 1000 }, signal }),
  });
}

export function useAddAllowedTarget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewAllowedTarget) => api<AllowedTarget>('/allowedtargets', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: allowedTargetsKey }),
  });
}

export function useRemoveAllowedTarget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/allowedtargets/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: allowedTargetsKey }),
  });
}

/**
 * The server's verdict on scan targets as they are typed (pass the debounced list); disabled
 * while there is nothing to check. Follows the policy: refetched when entries change.
 */
export function useCheckTargets(body: RequestOf<'checkScanTargets'> | null) {
  return useQuery({
    queryKey: [...allowedTargetsKey, 'check', body],
    queryFn: ({ signal }) =>
      api<TargetCheck>('/allowedtargets/check', { method: 'POST', body: body!, signal }),
    enabled: body !== null && body.Targets.length > 0,
    placeholderData: keepPreviousData,
  });
}
