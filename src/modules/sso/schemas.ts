import { Type } from 'typebox';
import { RoleSchema } from '../users/schemas.js';

const RoleMappingSchema = Type.Object(
  {
    Group: Type.String({ minLength: 1, maxLength: 200, examples: ['rampart-admins'] }),
    Role: RoleSchema,
  },
  { additionalProperties: false },
);

const DefaultRoleSchema = Type.Union([RoleSchema, Type.Null()], {
  description:
    'The role of a user none of whose groups is mapped (and of a user created on first sign-in with no mapped group); null: such users are refused.',
});

export const SsoProviderSchema = Type.Object(
  {
    Id: Type.String({ format: 'uuid' }),
    Name: Type.String({
      description: 'Shown on the sign-in page: "Sign in with <Name>".',
      examples: ['Acme Entra ID'],
    }),
    IssuerUrl: Type.String({ examples: ['https://login.example.com/realms/acme'] }),
    ClientId: Type.String({ examples: ['rampart'] }),
    HasClientSecret: Type.Boolean({
      description: 'Whether a client secret is kept; the secret itself is never returned.',
    }),
    Scopes: Type.Array(Type.String(), { examples: [['openid', 'email', 'profile', 'groups']] }),
    GroupsClaim: Type.String({
      description: 'The ID token claim that holds the user’s groups.',
      examples: ['groups'],
    }),
    DefaultRole: DefaultRoleSchema,
    RoleMappings: Type.Array(RoleMappingSchema, {
      description: 'Group → role; a user gets the highest role of their mapped groups, at every sign-in.',
    }),
    Enabled: Type.Boolean(),
    RedirectUri: Type.String({
      description: 'The callback address to register at the provider (from RAMPART_BASE_URL).',
      examples: [
        'https://rampart.example.com/api/latest/auth/oidc/0193a5c4-7f10-7c3e-9d41-0000000e57a7/callback',
      ],
    }),
    CreatedAt: Type.String({ format: 'date-time' }),
    UpdatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const SsoProviderListSchema = Type.Object(
  {
    Items: Type.Array(SsoProviderSchema),
    NextCursor: Type.Null({ description: 'Always null: the list comes whole.' }),
    TotalCount: Type.Integer(),
  },
  { additionalProperties: false },
);

const fields = {
  Name: Type.String({ minLength: 1, maxLength: 100, examples: ['Acme Entra ID'] }),
  IssuerUrl: Type.String({
    minLength: 1,
    maxLength: 500,
    description:
      'The provider’s issuer identifier: https (http only for a loopback issuer, and loopback only when the server sets RAMPART_SSO_ALLOW_LOOPBACK=true); its /.well-known/openid-configuration is read at each sign-in.',
    examples: ['https://login.example.com/realms/acme'],
  }),
  ClientId: Type.String({ minLength: 1, maxLength: 500, examples: ['rampart'] }),
  ClientSecret: Type.Union([Type.String({ minLength: 1, maxLength: 1000 }), Type.Null()], {
    description:
      'The client secret (sent with HTTP Basic to the token endpoint); null for a public client (PKCE only). Stored, never returned or logged; on a change, leave it out to keep the one there is.',
  }),
  Scopes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    minItems: 1,
    maxItems: 30,
    description: 'Must include openid (default openid, email, profile).',
  }),
  GroupsClaim: Type.String({ minLength: 1, maxLength: 100, description: 'Default groups.' }),
  DefaultRole: DefaultRoleSchema,
  RoleMappings: Type.Array(RoleMappingSchema, { maxItems: 200 }),
  Enabled: Type.Boolean({ description: 'Default true.' }),
};

export const CreateSsoProviderSchema = Type.Object(
  {
    Name: fields.Name,
    IssuerUrl: fields.IssuerUrl,
    ClientId: fields.ClientId,
    ClientSecret: Type.Optional(fields.ClientSecret),
    Scopes: Type.Optional(fields.Scopes),
    GroupsClaim: Type.Optional(fields.GroupsClaim),
    DefaultRole: Type.Optional(fields.DefaultRole),
    RoleMappings: Type.Optional(fields.RoleMappings),
    Enabled: Type.Optional(fields.Enabled),
  },
  {
    additionalProperties: false,
    examples: [
      {
        Name: 'Acme Keycloak',
        IssuerUrl: 'https://login.example.com/realms/acme',
        ClientId: 'rampart',
        ClientSecret: 'the client secret from the provider',
        Scopes: ['openid', 'email', 'profile'],
        GroupsClaim: 'groups',
        DefaultRole: 'ReadOnly',
        RoleMappings: [{ Group: 'rampart-admins', Role: 'Admin' }],
      },
    ],
  },
);

export const UpdateSsoProviderSchema = Type.Object(
  {
    Name: Type.Optional(fields.Name),
    IssuerUrl: Type.Optional(fields.IssuerUrl),
    ClientId: Type.Optional(fields.ClientId),
    ClientSecret: Type.Optional(fields.ClientSecret),
    Scopes: Type.Optional(fields.Scopes),
    GroupsClaim: Type.Optional(fields.GroupsClaim),
    DefaultRole: Type.Optional(fields.DefaultRole),
    RoleMappings: Type.Optional(fields.RoleMappings),
    Enabled: Type.Optional(fields.Enabled),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SsoSettingsSchema = Type.Object(
  {
    SsoOnly: Type.Boolean({
      description:
        'true: the organisation’s people sign in to the web app through a provider only; password sign-in is refused (403 sso-required). API keys keep working.',
    }),
  },
  { additionalProperties: false },
);

export const SignInProvidersSchema = Type.Object(
  {
    Items: Type.Array(
      Type.Object(
        {
          Id: Type.String({ format: 'uuid' }),
          Name: Type.String({ examples: ['Acme Entra ID'] }),
          StartUrl: Type.String({ description: 'Where the browser goes to sign in with this provider.' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ProviderParams = Type.Object(
  { ProviderId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
