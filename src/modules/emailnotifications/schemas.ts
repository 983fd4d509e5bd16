import { Type } from 'typebox';
import { EMAIL_EVENT_TYPES } from './service.js';

const Mode = Type.Union([Type.Literal('Immediate'), Type.Literal('DailyDigest')], {
  description:
    'Immediate: one email per event as it happens. DailyDigest: one email a day with the events of the day before, in the organisation’s time zone.',
});

export const EmailPreferencesBody = Type.Object(
  {
    EventTypes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 100,
      uniqueItems: true,
      description: `The event types to receive by email (from the event catalogue: ${EMAIL_EVENT_TYPES.join(', ')}); an empty list receives none.`,
    }),
    Mode,
  },
  { additionalProperties: false },
);

export const EmailPreferencesSchema = Type.Object(
  {
    EventTypes: Type.Array(Type.String()),
    Mode,
    UpdatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    AvailableEventTypes: Type.Array(
      Type.Object({ Type: Type.String(), Title: Type.String() }, { additionalProperties: false }),
      { description: 'The event types this user may choose (some are for Admins only).' },
    ),
    Email: Type.Object(
      {
        Configured: Type.Boolean({
          description: 'Whether the server has an SMTP server (RAMPART_SMTP_URL); without one, email waits.',
        }),
        Address: Type.String({ description: 'Where this user’s email goes: their account’s address.' }),
      },
      { additionalProperties: false },
    ),
    Recent: Type.Array(
      Type.Object(
        {
          EventType: Type.String(),
          Mode,
          State: Type.Union([
            Type.Literal('Pending'),
            Type.Literal('Sent'),
            Type.Literal('Failed'),
            Type.Literal('Skipped'),
          ]),
          Attempts: Type.Integer(),
          LastError: Type.Union([Type.String(), Type.Null()]),
          CreatedAt: Type.String({ format: 'date-time' }),
          SentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      {
        description: 'This user’s latest email, newest first: sent, waiting (with the last error) or failed.',
      },
    ),
  },
  { additionalProperties: false },
);
