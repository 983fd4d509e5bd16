import { Type } from 'typebox';

const Days = Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()]);
const SlaSchema = Type.Object(
  { Critical: Days, High: Days, Medium: Days, Low: Days, Info: Days },
  {
    additionalProperties: false,
    description: 'Days to fix a finding, counted from first seen; null: no deadline.',
  },
);
export const SettingsSchema = Type.Object({ SlaDays: SlaSchema }, { additionalProperties: false });
