import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api } from './client';
import { queryClient } from './queryClient';
import type { RequestOf, Session } from './types';

export const sessionKey = ['session'] as const;

/** null: nobody is signed in. */
async function fetchSession(signal: AbortSignal): Promise<Session | null> {
  try {
    return await api<Session>('/session', { signal, expectUnauthorized: true });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: ({ signal }) => fetchSession(signal),
    staleTime: 5 * 60_000,
  });
}

/** The signed-in session, for components rendered under RequireAuth. */
export function useSignedInSession(): Session {
  const { data } = useSession();
  if (!data) throw new Error('useSignedInSession used outside RequireAuth');
  return data;
}

export function csrfToken(): string | undefined {
  return queryClient.getQueryData<Session | null>(sessionKey)?.CsrfToken;
}

// Whether the last session ended by "Sign out" (go to /sign-in) rather than by expiry
// (go to /sign-in?next=… so the user comes back to where they were).
let signedOutOnPurpose = false;

export function endedBySignOut(): boolean {
  return signedOutOnPurpose;
}

/** The server no longer knows the session: forget it; RequireAuth sends the user to sign in. */
export function sessionExpired(): void {
  if (queryClient.getQueryData<Session | null>(sessionKey)) {
    signedOutOnPurpose = false;
    queryClient.setQueryData(sessionKey, null);
  }
}

// Data cached for one user must not show to the next one who signs in on this browser.
function forgetUserData(): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionKey[0] });
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestOf<'signIn'>) =>
      api<Session>('/session', { method: 'POST', body, expectUnauthorized: true }),
    onSuccess: (session) => {
      signedOutOnPurpose = false;
      forgetUserData();
      client.setQueryData(sessionKey, session);
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      try {
        await api<void>('/session', { method: 'DELETE', expectUnauthorized: true });
      } catch (error) {
        // Already ended on the server: the outcome the user asked for.
        if (!(error instanceof ApiError && error.status === 401)) throw error;
      }
    },
    onSuccess: () => {
      signedOutOnPurpose = true;
      client.setQueryData(sessionKey, null);
      forgetUserData();
    },
  });
}
