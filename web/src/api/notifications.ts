import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import type { RequestOf, ResponseOf } from './types';

export type NotificationOptions = ResponseOf<'getNotificationOptions'>;
export type EndpointList = ResponseOf<'listNotificationEndpoints'>;
export type NotificationEndpoint = EndpointList['Items'][number];
export type CreatedEndpoint = ResponseOf<'createNotificationEndpoint', 201>;
export type NewEndpoint = RequestOf<'createNotificationEndpoint'>;
export type EndpointKind = NewEndpoint['Kind'];
export type RuleList = ResponseOf<'listNotificationRules'>;
export type NotificationRule = RuleList['Items'][number];
export type NewRule = RequestOf<'createNotificationRule'>;
export type DeliveryPage = ResponseOf<'listNotificationDeliveries'>;
export type Delivery = DeliveryPage['Items'][number];
export type DeliveryState = Delivery['State'];

const key = ['notifications'] as const;
const endpointsKey = [...key, 'endpoints'] as const;
const rulesKey = [...key, 'rules'] as const;
const deliveriesKey = [...key, 'deliveries'] as const;

export function useNotificationOptions() {
  return useQuery({
    queryKey: [...key, 'options'],
    queryFn: ({ signal }) => api<NotificationOptions>('/notifications/options', { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** At most 100 an organisation: one answer. Refreshed while the page is open (failures, disabling). */
export function useEndpoints() {
  return useQuery({
    queryKey: endpointsKey,
    queryFn: ({ signal }) => api<EndpointList>('/notifications/endpoints', { signal }),
    refetchInterval: 10_000,
  });
}

export function useRules() {
  return useQuery({
    queryKey: rulesKey,
    queryFn: ({ signal }) => api<RuleList>('/notifications/rules', { signal }),
  });
}

/** An endpoint's delivery log, newest first, refreshed every few seconds while shown. */
export function useDeliveries(endpointId: string | null, state: DeliveryState | null) {
  return useInfiniteQuery({
    queryKey: [...deliveriesKey, endpointId, state],
    queryFn: ({ pageParam, signal }) =>
      api<DeliveryPage>(`/notifications/endpoints/${encodeURIComponent(endpointId!)}/deliveries`, {
        query: { PageSize: 25, Cursor: pageParam, State: state ?? undefined },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    enabled: endpointId !== null,
    refetchInterval: 5_000,
  });
}

function useInvalidating<A, R>(fn: (args: A) => Promise<R>, keys: readonly (readonly string[])[] = [key]) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => Promise.all(keys.map((k) => client.invalidateQueries({ queryKey: k }))),
  });
}

export function useCreateEndpoint() {
  return useMutation({
    // The answer holds the signing secret: keep it no longer than the dialog that shows it.
    gcTime: 0,
    mutationFn: (body: NewEndpoint) =>
      api<CreatedEndpoint>('/notifications/endpoints', { method: 'POST', body }),
  });
}

export function useRefreshEndpoints() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: endpointsKey });
}

export function useUpdateEndpoint() {
  return useInvalidating(({ id, ...body }: RequestOf<'updateNotificationEndpoint'> & { id: string }) =>
    api<NotificationEndpoint>(`/notifications/endpoints/${encodeURIComponent(id)}`, {
      method: 'PATCH',
      body,
    }),
  );
}

export function useEnableEndpoint() {
  return useInvalidating((id: string) =>
    api<NotificationEndpoint>(`/notifications/endpoints/${encodeURIComponent(id)}/enable`, {
      method: 'POST',
    }),
  );
}

export function useDeleteEndpoint() {
  return useInvalidating((id: string) =>
    api<void>(`/notifications/endpoints/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  );
}

export function useTestEndpoint() {
  return useInvalidating((id: string) =>
    api<Delivery>(`/notifications/endpoints/${encodeURIComponent(id)}/test`, { method: 'POST' }),
  );
}

export function useCreateRule() {
  return useInvalidating((body: NewRule) =>
    api<NotificationRule>('/notifications/rules', { method: 'POST', body }),
  );
}

export function useUpdateRule() {
  return useInvalidating(({ id, ...body }: RequestOf<'updateNotificationRule'> & { id: string }) =>
    api<NotificationRule>(`/notifications/rules/${encodeURIComponent(id)}`, { method: 'PATCH', body }),
  );
}

export function useDeleteRule() {
  return useInvalidating((id: string) =>
    api<void>(`/notifications/rules/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  );
}

export function useRedeliver() {
  return useInvalidating((id: string) =>
    api<Delivery>(`/notifications/deliveries/${encodeURIComponent(id)}/redeliver`, { method: 'POST' }),
  );
}
