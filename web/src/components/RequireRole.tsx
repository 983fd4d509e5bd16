import type { ReactNode } from 'react';
import { useSignedInSession } from '../api/session';
import { hasRole, type Role } from '../api/types';
import { NotFoundPage } from '../features/errors/NotFoundPage';

/** The server enforces roles; this only keeps pages the user cannot use out of sight. */
export function RequireRole({ minRole, children }: { minRole: Role; children: ReactNode }) {
  const session = useSignedInSession();
  if (!hasRole(session.User.Role, minRole)) return <NotFoundPage notAllowed />;
  return children;
}
