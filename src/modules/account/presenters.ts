import { toOrganizationSummaryDto } from '../organizations/presenters.js';
import type { Organization } from '../organizations/service.js';
import type { Principal } from '../principal.js';
import { toUserSummaryDto } from '../users/presenters.js';
import type { User } from '../users/service.js';

/** Who the caller is, in which organisation, and how they signed in. */
export const toAccountDetailsDto = (user: User, organization: Organization, principal: Principal) => ({
  User: toUserSummaryDto(user),
  Organization: toOrganizationSummaryDto(organization),
  AuthenticatedWith: principal.kind === 'apiKey' ? ('ApiKey' as const) : ('Session' as const),
  AccessKey: principal.kind === 'apiKey' ? principal.accessKey : null,
});
