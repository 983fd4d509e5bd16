import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { toSettingsDto } from './presenters.js';
import { SettingsChangeSchema, SettingsSchema } from './schemas.js';
import type { SettingsService } from './service.js';

export const settingsRoutes =
  (settings: SettingsService): ChannelRoutes =>
  (app, ctx) => {
    route(app, ctx, {
      method: 'GET',
      url: '/settings',
      channels: BOTH,
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getSettings',
        summary: 'Organisation settings',
        tags: ['Settings'],
        response: { 200: SettingsSchema },
      },
      handler: async (request) => toSettingsDto(await settings.sla(contextOf(request).organizationId)),
    });

    route(app, ctx, {
      method: 'PUT',
      url: '/settings',
      channels: BOTH,
      access: { role: 'Manager' },
      schema: {
        operationId: 'updateSettings',
        summary: 'Change organisation settings',
        description: 'New due dates apply to findings created or re-scored from now on.',
        tags: ['Settings'],
        body: SettingsChangeSchema,
        response: { 200: SettingsSchema },
      },
      handler: async (request) =>
        toSettingsDto(
          await settings.setSla(contextOf(request), request.body.SlaDays, request.body.KevSlaDays),
        ),
    });
  };
