import { Type } from 'typebox';
import { UserSummarySchema } from '../users/schemas.js';

export const SignInSchema = Type.Object(
  {
    Email: Type.String({ minLength: 1, maxLength: 320, examples: ['ada@example.com'] }),
    Password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object(
  {
    User: UserSummarySchema,
    Organization: Type.Object(
      { Id: Type.String({ format: 'uuid' }), Name: Type.String() },
      { additionalProperties: false },
    ),
    CsrfToken: Type.String({
      description: 'Send it in the X-CSRF-Token header of every state-changing request.',
    }),
  },
  { additionalProperties: false },
);
