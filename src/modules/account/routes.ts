import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { contextOf, principalOf } from '../../http/request-context.js';
import { modeOfDto, toEmailPreferencesDto } from '../emailnotifications/presenters.js';
import { EmailPreferencesBody, EmailPreferencesSchema } from '../emailnotifications/schemas.js';
import type { EmailNotificationService } from '../emailnotifications/service.js';
import type { OrganizationService } from '../organizations/service.js';
import type { UserService } from '../users/service.js';
import { toAccountDetailsDto } from './presenters.js';
import { AccountDetailsSchema, ChangePasswordSchema } from './schemas.js';

export const accountRoutes =
  (users: UserService, organizations: OrganizationService, email: EmailNotificationService): ChannelRoutes =>
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

    /** The caller's email preferences, what they may choose, and their latest email. */
    const preferencesOf = async (request: Parameters<typeof contextOf>[0]) => {
      const context = contextOf(request);
      const user = await users.get(context, principalOf(request).userId);
      const [preferences, recent] = await Promise.all([email.preferences(context), email.recent(context)]);
      return toEmailPreferencesDto(
        preferences,
        email.availableTypes(user.role),
        { configured: email.emailConfigured, address: user.email },
        recent,
      );
    };

    group.get('/account/notifications', {
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getNotificationPreferences',
        summary: 'Your email notification preferences',
        description:
          'Which event types you receive by email, at once or in a daily digest; whether the server can send email at all; your latest email with its state.',
        response: { 200: EmailPreferencesSchema },
      },
      handler: (request) => preferencesOf(request),
    });

    group.put('/account/notifications', {
      channels: ['latest'],
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'setNotificationPreferences',
        summary: 'Choose the email notifications you receive',
        description:
          'Replaces your choice. An unknown event type, or one only Admins receive, is a 400 naming it (`/EventTypes/<index>`).',
        body: EmailPreferencesBody,
        response: { 200: EmailPreferencesSchema },
      },
      handler: async (request) => {
        await email.setPreferences(contextOf(request), {
          eventTypes: request.body.EventTypes,
          mode: modeOfDto(request.body.Mode),
        });
        return preferencesOf(request);
      },
    });
  };
