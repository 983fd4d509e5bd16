import { Type } from 'typebox';

const Days = Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()]);
const SlaSchema = Type.Object(
  { Critical: Days, High: Days, Medium: Days, Low: Days, Info: Days },
  {
    additionalProperties: false,
    description: 'Days to fix a finding, counted from first seen; null: no deadline.',
  },
);
const KevDays = Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], {
  description:
    "Days to fix a finding whose vulnerability is in CISA KEV, counted from first seen; the sooner of this and its severity SLA applies. null: by severity alone. (CISA's own due date is shown on the finding as KevDueDate.)",
});
const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "The organisation's IANA time zone (e.g. Europe/Berlin; default UTC): its days in history and trends, and when the daily history snapshot is taken (00:10 there).",
});
const AuditRetentionDays = Type.Union([Type.Integer({ minimum: 30, maximum: 3650 }), Type.Null()], {
  description:
    'Days audit log entries are kept (30 to 3650; 365 unless set), then removed by the daily purge; null: kept for ever. Only an Admin may change it.',
});
const RequireMfa = Type.Boolean({
  description:
    'Password users must have a second factor (TOTP) to sign in: one without is asked to set one up at sign-in, before any session (docs/mfa.md). false unless set; only an Admin may change it. API keys are unaffected.',
});
export const SettingsSchema = Type.Object(
  { SlaDays: SlaSchema, KevSlaDays: KevDays, TimeZone, AuditRetentionDays, RequireMfa },
  { additionalProperties: false },
);
/** A change of settings: a KEV SLA, time zone, audit retention or RequireMfa left out stays as it was. */
export const SettingsChangeSchema = Type.Object(
  {
    SlaDays: SlaSchema,
    KevSlaDays: Type.Optional(KevDays),
    TimeZone: Type.Optional(TimeZone),
    AuditRetentionDays: Type.Optional(AuditRetentionDays),
    RequireMfa: Type.Optional(RequireMfa),
  },
  { additionalProperties: false },
);
