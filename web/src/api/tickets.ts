import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { api } from './client';
import type { Priority, RequestOf, ResponseOf, TicketDetail, TicketPage, TicketState } from './types';

export const ticketsKey = ['tickets'] as const;
const PAGE_SIZE = 50;

export const TICKET_STATES: readonly TicketState[] = ['Open', 'InProgress', 'Reopened', 'Resolved', 'Closed'];
export const OPEN_TICKET_STATES: readonly TicketState[] = ['Open', 'InProgress', 'Reopened'];
export const PRIORITIES: readonly Priority[] = ['Critical', 'High', 'Medium', 'Low'];

/** Where a person may move a ticket from each state (as the server allows). */
export const TICKET_TRANSITIONS: Record<TicketState, readonly TicketState[]> = {
  Open: ['InProgress', 'Resolved', 'Closed'],
  InProgress: ['Open', 'Resolved', 'Closed'],
  Reopened: ['InProgress', 'Resolved', 'Closed'],
  Resolved: ['Closed', 'Reopened'],
  Closed: ['Reopened'],
};

/** The button that moves a ticket into each state. */
export const TICKET_MOVE_LABELS: Record<TicketState, string> = {
  InProgress: 'Start work',
  Resolved: 'Resolve',
  Closed: 'Close',
  Reopened: 'Reopen',
  Open: 'Back to open',
};

export function useTickets(states: readonly TicketState[], pageSize = PAGE_SIZE) {
  return useInfiniteQuery({
    queryKey: [...ticketsKey, 'list', states, pageSize],
    queryFn: ({ pageParam, signal }) =>
      api<TicketPage>('/tickets', {
        query: { State: states.length ? states : undefined, PageSize: pageSize, Cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

export function useTicketCount(states: readonly TicketState[]) {
  return useQuery({
    queryKey: [...ticketsKey, 'count', states],
    queryFn: ({ signal }) => api<TicketPage>('/tickets', { query: { State: states, PageSize: 1 }, signal }),
    select: (page) => page.TotalCount,
  });
}

export function useTicket(id: string) {
  return useQuery({
    queryKey: [...ticketsKey, 'detail', id],
    queryFn: ({ signal }) => api<TicketDetail>(`/tickets/${encodeURIComponent(id)}`, { signal }),
  });
}

export type NewTicket = RequestOf<'createTicket'>;

export function useCreateTicket() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewTicket) => api<TicketDetail>('/tickets', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ticketsKey }),
  });
}

export type TicketChanges = RequestOf<'updateTicket'>;

function useTicketChanged() {
  const client = useQueryClient();
  return (detail: TicketDetail) => {
    client.setQueryData([...ticketsKey, 'detail', detail.Id], detail);
    return client.invalidateQueries({ queryKey: ticketsKey, predicate: (q) => q.queryKey[1] !== 'detail' });
  };
}

export function useUpdateTicket() {
  const changed = useTicketChanged();
  return useMutation({
    mutationFn: ({ id, ...body }: TicketChanges & { id: string }) =>
      api<TicketDetail>(`/tickets/${encodeURIComponent(id)}`, { method: 'PATCH', body }),
    onSuccess: changed,
  });
}

export function useAddComment(id: string) {
  const changed = useTicketChanged();
  return useMutation({
    mutationFn: (body: RequestOf<'commentTicket'>) =>
      api<TicketDetail>(`/tickets/${encodeURIComponent(id)}/comments`, { method: 'POST', body }),
    onSuccess: changed,
  });
}

export function useUnlinkFindings(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (findingIds: string[]) =>
      api<ResponseOf<'unlinkTicketFindings'>>(`/tickets/${encodeURIComponent(id)}/findings/unlink`, {
        method: 'POST',
        body: { FindingIds: findingIds },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ticketsKey }),
  });
}
