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
export const SettingsSchema = Type.Object(
  { SlaDays: SlaSchema, KevSlaDays: KevDays, TimeZone },
  { additionalProperties: false },
);
/** A change of settings: a KEV SLA or time zone left out stays as it was. */
export const SettingsChangeSchema = Type.Object(
  { SlaDays: SlaSchema, KevSlaDays: Type.Optional(KevDays), TimeZone: Type.Optional(TimeZone) },
  { additionalProperties: false },
);
