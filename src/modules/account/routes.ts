import { Type } from 'typebox';
import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf, principalOf } from '../../http/request-context.js';
import type { OrganizationService } from '../organizations/service.js';
import { UserSummarySchema } from '../users/schemas.js';
import type { UserService } from '../users/service.js';
import { toAccountDetailsDto } from './presenters.js';

const AccountDetailsSchema = Type.Object(
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

const ChangePasswordSchema = Type.Object(
  {
    CurrentPassword: Type.String({ minLength: 1, maxLength: 256 }),
    NewPassword: Type.String({ minLength: 1, maxLength: 256, description: 'At least 12 characters.' }),
  },
  { additionalProperties: false },
);

export const accountRoutes =
  (users: UserService, organizations: OrganizationService): ChannelRoutes =>
  (app, ctx) => {
    route(app, ctx, {
      method: 'GET',
      url: '/account/details',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getAccountDetails',
        summary: 'The calling user and their organisation',
        tags: ['Account'],
        response: { 200: AccountDetailsSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        const principal = principalOf(request);
        const [user, organization] = await Promise.all([
          users.get(context, principal.userId),
          organizations.get(principal.organizationId),
        ]);
        return toAccountDetailsDto(user, organization, principal);
      },
    });

    route(app, ctx, {
      method: 'POST',
      url: '/account/password',
      channels: ['latest'],
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'changePassword',
        summary: 'Change your password',
        description: 'Requires the current password. Every other session of yours ends.',
        tags: ['Account'],
        body: ChangePasswordSchema,
        response: { 204: { type: 'null', description: 'Changed.' } },
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        await users.changeOwnPassword(contextOf(request), principal.userId, {
          currentPassword: request.body.CurrentPassword,
          newPassword: request.body.NewPassword,
          keepSessionId: principal.kind === 'session' ? principal.sessionId : undefined,
        });
        return reply.code(204).send();
      },
    });
  };
