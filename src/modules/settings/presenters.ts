import type { SlaDays } from './service.js';

// How settings look on the wire: the severities' SLAs as SlaDays, the KEV SLA beside them.

export const toSettingsDto = ({ Kev, ...severities }: SlaDays, auditRetentionDays: number | null) => ({
  SlaDays: severities,
  KevSlaDays: Kev,
  AuditRetentionDays: auditRetentionDays,
});
