import { Type } from 'typebox';
import { ROLES } from '../../db/schema.js';

export const RoleSchema = Type.Union(
  [Type.Literal('ReadOnly'), Type.Literal('Analyst'), Type.Literal('Manager'), Type.Literal('Admin')],
  { description: `One of ${ROLES.join(' < ')} (each includes the rights of those before it).` },
);

export const UserSummarySchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Name: Type.String({ examples: ['Ada Lovelace'] }),
    Email: Type.String({ examples: ['ada@example.com'] }),
    Role: RoleSchema,
  },
  { additionalProperties: false },
);

export const UserSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Name: Type.String(),
    Email: Type.String(),
    Role: RoleSchema,
    Active: Type.Boolean(),
    CreatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const UserListSchema = Type.Object(
  {
    Items: Type.Array(UserSchema),
    NextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as Cursor for the next page; null on the last.',
    }),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const ListQuerySchema = Type.Object(
  {
    PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    Cursor: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const CreateUserSchema = Type.Object(
  {
    Email: Type.String({ minLength: 3, maxLength: 320, examples: ['ada@example.com'] }),
    Name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    Role: RoleSchema,
    Password: Type.Optional(
      Type.String({
        minLength: 12,
        maxLength: 256,
        description: 'At least 12 characters. Without it the user cannot sign in until an Admin sets one.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateUserSchema = Type.Object(
  {
    Name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    Role: Type.Optional(RoleSchema),
    Active: Type.Optional(
      Type.Boolean({ description: 'false deactivates: their sessions end and their API keys stop working.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ResetPasswordSchema = Type.Object({}, { additionalProperties: false });

export const GeneratedPasswordSchema = Type.Object(
  { Password: Type.String({ description: 'A temporary password, shown only now.' }) },
  { additionalProperties: false },
);
