import { Type } from 'typebox';

export const InstallationOrganizationSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Name: Type.String(),
    Active: Type.Boolean({
      description: 'false: deactivated; its people cannot sign in to it, its keys stop.',
    }),
    Members: Type.Integer({ description: 'Its users, active or not.' }),
    CreatedAt: Type.String({ format: 'date-time' }),
    DeactivatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
);

export const InstallationOrganizationListSchema = Type.Object(
  { Items: Type.Array(InstallationOrganizationSchema) },
  { additionalProperties: false },
);

export const CreateOrganizationSchema = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 200, examples: ['Acme Europe'] }),
    AdminEmail: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 320,
        description:
          'Its first Admin: a person of another organisation joins with their own password; a new one gets a generated password, shown once (AdminPassword). Default: you.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreatedOrganizationSchema = Type.Object(
  {
    Organization: InstallationOrganizationSchema,
    Admin: Type.Object(
      { Id: Type.String({ format: 'uuid' }), Email: Type.String(), NewPerson: Type.Boolean() },
      { additionalProperties: false },
    ),
    AdminPassword: Type.Union([Type.String(), Type.Null()], {
      description: 'The new Admin’s temporary password, shown only now; null when they already had one.',
    }),
  },
  { additionalProperties: false },
);

export const UpdateOrganizationSchema = Type.Object(
  {
    Name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    Active: Type.Optional(
      Type.Boolean({
        description:
          'false deactivates: its sessions end and its API keys stop at once, its schedules wait; its data is kept. true reactivates.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
