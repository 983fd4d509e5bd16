import { Type } from 'typebox';
import { SessionSchema } from '../sessions/schemas.js';

const Time = Type.String({ format: 'date-time' });
const code = (description = 'The 6 digits the authenticator app shows now (spaces are ignored).') =>
  Type.String({ minLength: 1, maxLength: 32, description, examples: ['123456'] });
const Code = code();
const ChallengeToken = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The `ChallengeToken` of the 202 answer to POST /session.',
});
const RecoveryCodes = Type.Array(Type.String({ examples: ['abcd-efgh-jkmn-pqrs'] }), {
  description: 'Ten one-time recovery codes, shown only now: each signs in once in place of a code.',
});

export const MfaStatusSchema = Type.Object(
  {
    Enabled: Type.Boolean({ description: 'A second factor is active: password sign-in asks for a code.' }),
    EnabledAt: Type.Union([Time, Type.Null()]),
    RecoveryCodesLeft: Type.Integer({ description: 'Unused recovery codes (0 without a factor).' }),
    Pending: Type.Boolean({ description: 'A set-up was started and not confirmed with a code.' }),
    Required: Type.Boolean({ description: 'The organisation requires a second factor (RequireMfa).' }),
    PasswordUser: Type.Boolean({
      description: 'The account signs in with a password: only such accounts have a second factor.',
    }),
  },
  { additionalProperties: false },
);

export const EnrolmentSchema = Type.Object(
  {
    Secret: Type.String({ description: 'The TOTP secret in base32, for typing into an app by hand.' }),
    OtpauthUri: Type.String({ description: 'The otpauth:// URI (SHA-1, 6 digits, 30 seconds).' }),
    QrCode: Type.String({
      description: 'The URI as a QR code: an SVG data URL (data:image/svg+xml;base64,…).',
    }),
  },
  { additionalProperties: false },
);

export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const ConfirmBody = Type.Object({ Code }, { additionalProperties: false });

export const ProofBody = Type.Object(
  {
    Password: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Your password…' })),
    Code: Type.Optional(code('…or a current code of your authenticator app (one of the two).')),
  },
  { additionalProperties: false },
);

export const RecoveryCodesSchema = Type.Object({ RecoveryCodes }, { additionalProperties: false });

export const SecondStepSchema = Type.Object(
  {
    Step: Type.Union([Type.Literal('Code'), Type.Literal('Enrol')], {
      description:
        'Code: give a code of your authenticator app or a recovery code (POST /session/mfa). Enrol: your organisation requires a second factor and you have none: set one up (POST /session/mfa/enrolment, then /session/mfa/enrolment/confirm).',
    }),
    ChallengeToken: Type.String({ description: 'Single use; send it with the next step.' }),
    ExpiresAt: Type.String({
      format: 'date-time',
      description: '5 minutes from now (10 to set a factor up).',
    }),
  },
  {
    additionalProperties: false,
    description: 'The password was right; a second step is needed before any session.',
  },
);

export const SecondFactorBody = Type.Object(
  {
    ChallengeToken,
    Code: Type.Optional(Code),
    RecoveryCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'One of your recovery codes, in place of Code (dashes and case are ignored).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChallengeBody = Type.Object({ ChallengeToken }, { additionalProperties: false });

export const ChallengeCodeBody = Type.Object({ ChallengeToken, Code }, { additionalProperties: false });

export const EnrolledSessionSchema = Type.Object(
  { ...SessionSchema.properties, RecoveryCodes },
  { additionalProperties: false },
);

export const MfaUsersSchema = Type.Object(
  {
    Items: Type.Array(
      Type.Object(
        {
          UserId: Type.String({ format: 'uuid' }),
          EnabledAt: Type.Union([Time, Type.Null()]),
          RecoveryCodesLeft: Type.Integer(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'The users of your organisation with an active second factor.',
  },
);
