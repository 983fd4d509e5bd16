import type { Static } from 'typebox';
import { type ChannelRoutes, noContent, routeGroup } from '../../http/channels.js';
import { IdParams } from '../../http/params.js';
import { contextOf } from '../../http/request-context.js';
import { bodyValidatorBy } from '../../http/validation.js';
import {
  settingsFromDto,
  systemSettingsFromDto,
  toScanTemplateDto,
  webSettingsFromDto,
} from './presenters.js';
import {
  type DiscoverySettingsSchema,
  ScanTemplateBody,
  ScanTemplateListQuery,
  ScanTemplateListSchema,
  ScanTemplateSchema,
  type SystemSettingsSchema,
  scanTemplateBodySchema,
  type WebSettingsSchema,
} from './schemas.js';
import type { ScanTemplateService } from './service.js';
import type { ScanTemplateInput } from './types.js';

export const scanTemplateRoutes =
  (templates: ScanTemplateService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['Scan templates'] });
    // The body is checked against its own Kind's schema (the documented one is their union), so
    // a bad Settings is told that kind's problems only, not every kind's.
    const validatorCompiler = bodyValidatorBy(scanTemplateBodySchema);
    /** The body as the service takes it; the validator has checked Settings against the Kind. */
    const input = (b: Static<typeof ScanTemplateBody>): ScanTemplateInput => {
      const common = { name: b.Name, description: b.Description ?? null };
      const kind = b.Kind ?? 'Discovery';
      if (kind === 'System')
        return {
          ...common,
          kind,
          settings: systemSettingsFromDto(b.Settings as Static<typeof SystemSettingsSchema>),
        };
      if (kind === 'Web')
        return {
          ...common,
          kind,
          settings: webSettingsFromDto(b.Settings as Static<typeof WebSettingsSchema>),
        };
      return {
        ...common,
        kind,
        settings: settingsFromDto(b.Settings as Static<typeof DiscoverySettingsSchema>),
      };
    };

    group.get('/scantemplates', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listScanTemplates',
        summary: 'Scan templates: the built-in ones, then the organisation’s own',
        description:
          'Built-in templates (such as the original service’s "Host Discovery [T1]") belong to every organisation and cannot be changed.',
        querystring: ScanTemplateListQuery,
        response: { 200: ScanTemplateListSchema },
      },
      handler: async (request) => {
        const items = await templates.list(contextOf(request), request.query.Kind);
        return { Items: items.map(toScanTemplateDto), TotalCount: items.length };
      },
    });

    group.get('/scantemplates/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'getScanTemplate',
        summary: 'One scan template',
        params: IdParams,
        response: { 200: ScanTemplateSchema },
      },
      handler: async (request) =>
        toScanTemplateDto(await templates.get(contextOf(request), request.params.Id)),
    });

    group.post('/scantemplates', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'createScanTemplate',
        summary: 'Create a scan template',
        description:
          'Ports, timing, rates and budgets of a scan of its `Kind` (Discovery when left out); `Settings` must be that kind’s. `PerHostInFlight` may not exceed `MaxInFlight`, budgets nest (port ≤ host ≤ run, request ≤ URL ≤ run); names are unique per kind (409).',
        body: ScanTemplateBody,
        response: { 201: ScanTemplateSchema },
      },
      validatorCompiler,
      handler: async (request, reply) => {
        const t = await templates.create(contextOf(request), input(request.body));
        return reply.code(201).send(toScanTemplateDto(t));
      },
    });

    group.put('/scantemplates/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'updateScanTemplate',
        summary: 'Change one of the organisation’s scan templates',
        description:
          'Built-in templates answer 409. Scans using the template use the new settings from their next run.',
        params: IdParams,
        body: ScanTemplateBody,
        response: { 200: ScanTemplateSchema },
      },
      validatorCompiler,
      handler: async (request) =>
        toScanTemplateDto(await templates.update(contextOf(request), request.params.Id, input(request.body))),
    });

    group.delete('/scantemplates/:Id', {
      access: { role: 'Admin' },
      schema: {
        operationId: 'deleteScanTemplate',
        summary: 'Delete one of the organisation’s scan templates',
        description: 'Built-in templates, and templates a scan uses, answer 409.',
        params: IdParams,
        response: { 204: noContent('Deleted.') },
      },
      handler: async (request, reply) => {
        await templates.delete(contextOf(request), request.params.Id);
        return reply.code(204).send();
      },
    });
  };
