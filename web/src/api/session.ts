import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, apiWithStatus } from './client';
import { queryClient } from './queryClient';
import type { EnrolledSession, MfaEnrolment, RequestOf, SecondStep, Session } from './types';

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

/** A session that just started: the user's cached data goes, the session takes its place. */
function started(session: Session): void {
  signedOutOnPurpose = false;
  forgetUserData();
  queryClient.setQueryData(sessionKey, session);
}

/**
 * The password step: a session, or (202) the second step it needs first — a code, or setting a
 * factor up when the organisation requires one (docs/mfa.md).
 */
export function useSignIn() {
  return useMutation({
    mutationFn: async (body: RequestOf<'signIn'>) => {
      const answer = await apiWithStatus<Session | SecondStep>('/session', {
        method: 'POST',
        body,
        expectUnauthorized: true,
      });
      return answer.status === 202
        ? { secondStep: answer.body as SecondStep }
        : { session: answer.body as Session };
    },
    onSuccess: (result) => {
      if (result.session) started(result.session);
    },
  });
}

/** The second step: a code of the authenticator app, or a recovery code. */
export function useSignInSecondFactor() {
  return useMutation({
    mutationFn: (body: RequestOf<'signInSecondFactor'>) =>
      api<Session>('/session/mfa', { method: 'POST', body, expectUnauthorized: true }),
    onSuccess: started,
  });
}

/** Setting a factor up during the sign-in: a new secret for the authenticator app. */
export function useSignInStartEnrolment() {
  return useMutation({
    gcTime: 0,
    mutationFn: (body: RequestOf<'signInStartEnrolment'>) =>
      api<MfaEnrolment>('/session/mfa/enrolment', { method: 'POST', body, expectUnauthorized: true }),
  });
}

/**
 * Confirms the new factor: the session and its recovery codes. The session is kept back until
 * the codes have been seen (`start` then), since signing in leaves the page that shows them.
 */
export function useSignInConfirmEnrolment() {
  return useMutation({
    gcTime: 0,
    mutationFn: (body: RequestOf<'signInConfirmEnrolment'>) =>
      api<EnrolledSession>('/session/mfa/enrolment/confirm', {
        method: 'POST',
        body,
        expectUnauthorized: true,
      }),
  });
}

/**
 * Into another of the person's organisations (one of the session's `Organizations`): a new
 * session there, with its own CSRF token, the old one ended; or (202) the second step that
 * organisation needs first, taken as at sign-in. Nothing cached of the old organisation stays.
 */
export function useSwitchOrganization() {
  return useMutation({
    mutationFn: async (organizationId: string) => {
      const answer = await apiWithStatus<Session | SecondStep>('/session/organization', {
        method: 'POST',
        body: { OrganizationId: organizationId } satisfies RequestOf<'switchOrganization'>,
      });
      return answer.status === 202
        ? { secondStep: answer.body as SecondStep }
        : { session: answer.body as Session };
    },
    onSuccess: (result) => {
      if (result.session) started(result.session);
    },
  });
}

/** Starts a session the page kept back (after showing recovery codes). */
export function startSession({ RecoveryCodes: _codes, ...session }: EnrolledSession): Session {
  started(session);
  return session;
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
