import { Type } from 'typebox';
import { UserSummarySchema } from '../users/schemas.js';

export const AccountDetailsSchema = Type.Object(
  {
    User: UserSummarySchema,
    Organization: Type.Object(
      { Id: Type.String({ format: 'uuid' }), Name: Type.String() },
      { additionalProperties: false },
    ),
    AuthenticatedWith: Type.Union([Type.Literal('ApiKey'), Type.Literal('Session')]),
    AccessKey: Type.Union([Type.String(), Type.Null()], {
      description: 'The access key of the calling API key; null for a web session.',
    }),
  },
  { additionalProperties: false },
);

export const ChangePasswordSchema = Type.Object(
  {
    CurrentPassword: Type.String({ minLength: 1, maxLength: 256 }),
    NewPassword: Type.String({ minLength: 1, maxLength: 256, description: 'At least 12 characters.' }),
  },
  { additionalProperties: false },
);
