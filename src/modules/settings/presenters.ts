import type { SlaDays } from './service.js';

// How settings look on the wire: the severities' SLAs as SlaDays, the KEV SLA beside them.

export const toSettingsDto = ({ Kev, ...severities }: SlaDays) => ({ SlaDays: severities, KevSlaDays: Kev });
