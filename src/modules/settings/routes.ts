import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { contextOf } from '../../http/request-context.js';
import { toSettingsDto } from './presenters.js';
import { SettingsChangeSchema, SettingsSchema } from './schemas.js';
import type { SettingsService } from './service.js';

export const settingsRoutes =
  (settings: SettingsService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Settings'] });
    group.get('/settings', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getSettings',
        summary: 'Organisation settings',
        response: { 200: SettingsSchema },
      },
      handler: async (request) => toSettingsDto(await settings.get(contextOf(request).organizationId)),
    });

    group.put('/settings', {
      access: { role: 'Manager' },
      schema: {
        operationId: 'updateSettings',
        summary: 'Change organisation settings',
        description:
          'New due dates apply to findings created or re-scored from now on. Changing `AuditRetentionDays` or `RequireMfa` requires the Admin role (403 otherwise).',
        body: SettingsChangeSchema,
        response: { 200: SettingsSchema },
      },
      handler: async (request) => {
        const context = contextOf(request);
        const { AuditRetentionDays, RequireMfa } = request.body;
        // The Admins' settings first: when the caller may not change them, nothing changes.
        if (AuditRetentionDays !== undefined) await settings.setAuditRetention(context, AuditRetentionDays);
        if (RequireMfa !== undefined) await settings.setRequireMfa(context, RequireMfa);
        return toSettingsDto(
          await settings.setSla(
            context,
            request.body.SlaDays,
            request.body.KevSlaDays,
            request.body.TimeZone,
          ),
        );
      },
    });
  };
