import { Type } from 'typebox';

export const ApiKeySchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Name: Type.String({ examples: ['CI pipeline'] }),
    AccessKey: Type.String({ examples: ['7Q2M4K9ZB1X8C3V6N5LA'] }),
    CreatedAt: Type.String({ format: 'date-time' }),
    LastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Approximate: recorded in batches (RAMPART_LAST_USED_FLUSH_SECONDS).',
    }),
    ExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    RevokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    Status: Type.Union([Type.Literal('Active'), Type.Literal('Expired'), Type.Literal('Revoked')]),
  },
  { additionalProperties: false },
);

export const ApiKeyListSchema = Type.Object(
  {
    Items: Type.Array(ApiKeySchema),
    NextCursor: Type.Null({ description: 'A user has few keys: always one page.' }),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

export const CreateApiKeySchema = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 100, examples: ['CI pipeline'] }),
    ExpiresInDays: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Omit for a key that does not expire.' }),
    ),
  },
  { additionalProperties: false },
);

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    SecretKey: Type.String({ description: 'Shown only in this answer: store it safely.' }),
  },
  { additionalProperties: false },
);
