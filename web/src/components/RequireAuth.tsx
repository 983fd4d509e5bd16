import { Center } from '@mantine/core';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { endedBySignOut, useSession } from '../api/session';
import { signInPath } from '../paths';
import { FullPageLoader } from './FullPageLoader';
import { QueryError } from './QueryError';

/**
 * Renders its children only with a session. Without one (never signed in, signed out, or the
 * server answered 401 somewhere) it sends the user to sign in and, unless they signed out,
 * remembers where they were.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();

  if (session.isPending) return <FullPageLoader label="Loading your session…" />;
  if (session.data === undefined) {
    return (
      <Center mih="100vh" p="md">
        <QueryError error={session.error} onRetry={() => session.refetch()} />
      </Center>
    );
  }
  if (session.data === null) {
    const to = endedBySignOut()
      ? '/sign-in'
      : signInPath(location.pathname + location.search + location.hash);
    return <Navigate to={to} replace />;
  }
  return children;
}
