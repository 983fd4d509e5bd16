import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client';
import { sessionKey } from './session';
import type { RequestOf, ResponseOf, User, UserPage } from './types';

const usersKey = ['users'] as const;
const PAGE_SIZE = 50;

export function useUsers() {
  return useInfiniteQuery({
    queryKey: usersKey,
    queryFn: ({ pageParam, signal }) =>
      api<UserPage>('/users', { query: { PageSize: PAGE_SIZE, Cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.NextCursor ?? undefined,
  });
}

export type NewUser = RequestOf<'createUser'>;

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewUser) => api<User>('/users', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: usersKey }),
  });
}

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: RequestOf<'updateUser'> & { id: string }) =>
      api<User>(`/users/${encodeURIComponent(id)}`, { method: 'PATCH', body }),
    onSuccess: async () => {
      // An Admin may have changed their own role: the navigation depends on it.
      await Promise.all([
        client.invalidateQueries({ queryKey: usersKey }),
        client.invalidateQueries({ queryKey: sessionKey }),
      ]);
    },
  });
}

export function useResetPassword() {
  return useMutation({
    // The answer holds a password: keep it no longer than the dialog that shows it.
    gcTime: 0,
    mutationFn: (id: string) =>
      api<ResponseOf<'resetUserPassword'>>(`/users/${encodeURIComponent(id)}/password`, {
        method: 'POST',
        body: {},
      }),
  });
}

/** Everyone in the organisation, for names of assignees and authors and the Assignee select. */
export function useUserDirectory() {
  return useQuery({
    queryKey: [...usersKey, 'directory'],
    queryFn: ({ signal }) => api<UserPage>('/users', { query: { PageSize: 500 }, signal }),
    select: (page) => page.Items,
    staleTime: 5 * 60_000,
  });
}
