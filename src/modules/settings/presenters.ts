import type { OrganizationSettings } from './service.js';

// How settings look on the wire: the severities' SLAs as SlaDays, the KEV SLA beside them.

export const toSettingsDto = ({
  sla: { Kev, ...severities },
  timeZone,
  auditRetentionDays,
  requireMfa,
}: OrganizationSettings) => ({
  SlaDays: severities,
  KevSlaDays: Kev,
  TimeZone: timeZone,
  AuditRetentionDays: auditRetentionDays,
  RequireMfa: requireMfa,
});
