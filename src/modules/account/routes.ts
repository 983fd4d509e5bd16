import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { contextOf, principalOf } from '../../http/request-context.js';
import type { OrganizationService } from '../organizations/service.js';
import type { UserService } from '../users/service.js';
import { toAccountDetailsDto } from './presenters.js';
import { AccountDetailsSchema, ChangePasswordSchema } from './schemas.js';

export const accountRoutes =
  (users: UserService, organizations: OrganizationService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Account'] });
    group.get('/account/details', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getAccountDetails',
        summary: 'The calling user and their organisation',
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

    group.post('/account/password', {
      channels: ['latest'],
      access: { role: 'ReadOnly', via: ['session'] },
      schema: {
        operationId: 'changePassword',
        summary: 'Change your password',
        description: 'Requires the current password. Every other session of yours ends.',
        body: ChangePasswordSchema,
        response: { 204: noContent('Changed.') },
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
