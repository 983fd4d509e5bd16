import { titleOf } from '../../mail/templates.js';
import type { EmailMode, QueueRow } from './repository.js';
import type { EmailPreferences } from './service.js';

const modeDto = (mode: EmailMode) => (mode === 'Digest' ? ('DailyDigest' as const) : ('Immediate' as const));
export const modeOfDto = (mode: 'Immediate' | 'DailyDigest'): EmailMode =>
  mode === 'DailyDigest' ? 'Digest' : 'Immediate';

export const toEmailPreferencesDto = (
  p: EmailPreferences,
  available: string[],
  email: { configured: boolean; address: string },
  recent: QueueRow[],
) => ({
  EventTypes: p.eventTypes,
  Mode: modeDto(p.mode),
  UpdatedAt: p.updatedAt?.toISOString() ?? null,
  AvailableEventTypes: available.map((t) => ({ Type: t, Title: titleOf(t) })),
  Email: { Configured: email.configured, Address: email.address },
  Recent: recent.map((r) => ({
    EventType: r.event_type,
    Mode: modeDto(r.mode),
    State: r.state,
    Attempts: r.attempts,
    LastError: r.last_error,
    CreatedAt: r.created_at.toISOString(),
    SentAt: r.sent_at?.toISOString() ?? null,
  })),
});
