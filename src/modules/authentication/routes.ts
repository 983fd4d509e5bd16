import { Type } from 'typebox';
import { type ChannelRoutes, routeGroup } from '../../http/channels.js';

export const authenticationRoutes = (): ChannelRoutes => (app, ctx) => {
  const group = routeGroup(app, ctx, { tags: ['Authentication'] });
  group.get('/authenticationcheck', {
    access: { role: 'ReadOnly' },
    schema: {
      operationId: 'authenticationCheck',
      summary: 'Check an API key',
      description:
        'Answers 200 with the text `Authenticated` when the `ApiAccessKey` and `ApiSecretKey` headers hold an ' +
        'active API key; 401 otherwise, with the same problem whatever was wrong.',
      response: {
        200: {
          description: 'The key is valid.',
          content: {
            'text/plain': { schema: Type.Literal('Authenticated', { examples: ['Authenticated'] }) },
          },
        },
      },
    },
    // Not async: integrations call this most, and an async handler costs a promise and a
    // microtask per call for nothing it waits for.
    handler: (_request, reply) => {
      reply.type('text/plain; charset=utf-8').send('Authenticated');
    },
  });
};
