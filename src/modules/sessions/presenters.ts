import { toOrganizationSummaryDto } from '../organizations/presenters.js';
import type { Organization } from '../organizations/service.js';
import { toUserSummaryDto } from '../users/presenters.js';
import type { User } from '../users/service.js';

/** A web session: who is signed in, where, and the CSRF token that unsafe requests carry. */
export const toSessionDto = (user: User, organization: Organization, csrfToken: string) => ({
  User: toUserSummaryDto(user),
  Organization: toOrganizationSummaryDto(organization),
  CsrfToken: csrfToken,
});
