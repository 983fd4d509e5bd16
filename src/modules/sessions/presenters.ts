import { toOrganizationSummaryDto } from '../organizations/presenters.js';
import type { Organization, OrganizationService } from '../organizations/service.js';
import { toUserSummaryDto } from '../users/presenters.js';
import type { User, UserService } from '../users/service.js';

/** A web session: who is signed in, where, and the CSRF token that unsafe requests carry. */
export const toSessionDto = (
  user: User,
  organization: Organization,
  csrfToken: string,
  others: {
    memberships: { organization: Organization; user: User }[];
    installationAdmin: boolean;
    signedInWith: 'password' | 'sso';
  },
) => ({
  User: toUserSummaryDto(user),
  Organization: toOrganizationSummaryDto(organization),
  CsrfToken: csrfToken,
  Organizations: others.memberships.map((m) => ({
    ...toOrganizationSummaryDto(m.organization),
    Role: m.user.role,
  })),
  InstallationAdmin: others.installationAdmin,
  SignedInWith: others.signedInWith === 'sso' ? ('SingleSignOn' as const) : ('Password' as const),
});

/** The session's body for a membership: its organisation and the person's other active ones. */
export async function sessionBody(
  deps: { users: UserService; organizations: OrganizationService },
  user: User,
  csrfToken: string,
  signedInWith: 'password' | 'sso' = 'password',
) {
  const [organizations, memberships, person] = await Promise.all([
    deps.organizations.list(),
    deps.users.membershipsOf(user.personId),
    deps.users.person(user.personId),
  ]);
  const byId = new Map(organizations.map((o) => [o.id, o]));
  const organization = byId.get(user.organizationId) ?? (await deps.organizations.get(user.organizationId));
  const usable = memberships.flatMap((m) => {
    const org = byId.get(m.organizationId);
    return m.active && org?.active ? [{ organization: org, user: m }] : [];
  });
  return toSessionDto(user, organization, csrfToken, {
    memberships: usable,
    installationAdmin: person.installationAdmin,
    signedInWith,
  });
}
