import { type ChannelRoutes, routeGroup } from '../../http/channels.js';
import { IdParams } from '../../http/params.js';
import { contextOf, principalOf } from '../../http/request-context.js';
import { toApiKeyDto, toApiKeyListDto, toCreatedApiKeyDto } from './presenters.js';
import { ApiKeyListSchema, ApiKeySchema, CreateApiKeySchema, CreatedApiKeySchema } from './schemas.js';
import type { ApiKeyService } from './service.js';

/** The caller's own keys. Creating keys is done while signed in (web app) or with the CLI. */
export const apiKeyRoutes =
  (apiKeys: ApiKeyService): ChannelRoutes =>
  (app, ctx) => {
    const group = routeGroup(app, ctx, { tags: ['API keys'], channels: ['latest'] });
    group.get('/apikeys', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'listApiKeys',
        summary: 'Your own API keys',
        response: { 200: ApiKeyListSchema },
      },
      handler: async (request) => {
        const keys = await apiKeys.listForUser(contextOf(request), principalOf(request).userId);
        return toApiKeyListDto(keys);
      },
    });

    group.delete('/apikeys/:Id', {
      access: { role: 'ReadOnly' },
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke one of your API keys',
        description: 'Takes effect at once on this instance, and on others through Redis when configured.',
        params: IdParams,
        response: { 200: ApiKeySchema },
      },
      handler: async (request) => {
        const key = await apiKeys.revoke(contextOf(request), request.params.Id, principalOf(request).userId);
        return toApiKeyDto(key);
      },
    });

    group.post('/apikeys', {
      access: { role: 'ReadOnly', via: ['session'] },
      // Its answer shows a secret once: a retry is told it was carried out, not shown the secret.
      idempotency: 'secret',
      schema: {
        operationId: 'createApiKey',
        summary: 'Create an API key for yourself',
        description:
          'Done while signed in to the web application (My profile → Configure API Keys). The secret is in this answer only.',
        body: CreateApiKeySchema,
        response: { 201: CreatedApiKeySchema },
      },
      handler: async (request, reply) => {
        const { key, secretKey } = await apiKeys.create(contextOf(request), {
          userId: principalOf(request).userId,
          name: request.body.Name,
          expiresInDays: request.body.ExpiresInDays,
        });
        return reply.code(201).send(toCreatedApiKeyDto(key, secretKey));
      },
    });
  };
