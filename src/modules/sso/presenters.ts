import type { SsoProvider } from './service.js';

/** A provider on the wire: never its client secret, only whether there is one. */
export const toSsoProviderDto = (p: SsoProvider, redirectUri: string) => ({
  Id: p.id,
  Name: p.name,
  IssuerUrl: p.issuerUrl,
  ClientId: p.clientId,
  HasClientSecret: p.hasClientSecret,
  Scopes: p.scopes,
  GroupsClaim: p.groupsClaim,
  DefaultRole: p.defaultRole,
  RoleMappings: p.roleMappings.map((m) => ({ Group: m.group, Role: m.role })),
  Enabled: p.enabled,
  RedirectUri: redirectUri,
  CreatedAt: p.createdAt.toISOString(),
  UpdatedAt: p.updatedAt.toISOString(),
});
