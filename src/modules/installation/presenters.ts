import type { InstallationOrganization } from './service.js';

export const toInstallationOrganizationDto = (o: InstallationOrganization) => ({
  Id: o.id,
  Name: o.name,
  Active: o.active,
  Members: o.members,
  CreatedAt: o.createdAt.toISOString(),
  DeactivatedAt: o.deactivatedAt ? o.deactivatedAt.toISOString() : null,
});
