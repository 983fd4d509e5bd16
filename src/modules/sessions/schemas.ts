import { Type } from 'typebox';
import { RoleSchema, UserSummarySchema } from '../users/schemas.js';

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
    Organizations: Type.Array(
      Type.Object(
        { Id: Type.String({ format: 'uuid' }), Name: Type.String(), Role: RoleSchema },
        { additionalProperties: false },
      ),
      {
        description:
          'Every active organisation the person belongs to, with their role there, the current one included: POST /session/organization switches.',
      },
    ),
    InstallationAdmin: Type.Boolean({
      description: 'Creates, renames and deactivates organisations (/installation/organizations).',
    }),
    SignedInWith: Type.Union([Type.Literal('Password'), Type.Literal('SingleSignOn')], {
      description:
        'A session of an organisation’s single sign-on is bound to that organisation: it cannot switch.',
    }),
  },
  { additionalProperties: false },
);

export const SwitchOrganizationSchema = Type.Object(
  { OrganizationId: Type.String({ format: 'uuid', description: 'One of the session’s Organizations.' }) },
  { additionalProperties: false },
);
