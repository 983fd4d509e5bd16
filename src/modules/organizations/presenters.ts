import type { Organization } from './service.js';

/** An organisation as the account and the session name it. */
export const toOrganizationSummaryDto = (o: Organization) => ({ Id: o.id, Name: o.name });
