import { BOTH, type ChannelRoutes, route } from '../../http/channels.js';
import { registerValidators } from '../../http/validation.js';
import { EVENT_TYPES } from './catalogue.js';
import { toEventTypeDto } from './presenters.js';
import { CloudEventSchema, EventTypeListSchema, EventTypesQuery, eventPayloadComponents } from './schemas.js';

/**
 * The events catalogue: what Rampart tells notification receivers, with each payload's schema.
 * Both channels serve it, and both documents carry every payload schema and the CloudEvents
 * envelope among their components, so that integrations generate types from either.
 */
export const eventRoutes = (): ChannelRoutes => (app, ctx) => {
  app.addSchema(CloudEventSchema);
  for (const schema of eventPayloadComponents()) app.addSchema(schema);
  // A schema added here gives the channel's context a schema store of its own, and Fastify then
  // builds that context's validators with its default compiler (lax: it coerces bodies and drops
  // unknown properties). Rampart's own compilers are set again for the whole channel.
  registerValidators(app);

  route(app, ctx, {
    method: 'GET',
    url: '/events/types',
    channels: BOTH,
    access: { role: 'Analyst' },
    schema: {
      operationId: 'listEventTypes',
      summary: 'The catalogue of events, with their payload schemas',
      description: [
        'Every event type Rampart publishes (the CloudEvents `type` is `rampart.<Type>`), its payload’s current version and JSON Schema, and the facets notification rules can filter it on. `Type` narrows the list to one.',
        'Events are delivered in a CloudEvents 1.0 envelope (the `CloudEvent` component); each payload schema is also the component `Event.<Type>.v<Version>` of this document. See docs/events.md for delivery and versioning.',
      ].join('\n\n'),
      tags: ['Events'],
      querystring: EventTypesQuery,
      response: { 200: EventTypeListSchema },
    },
    handler: async (request) => ({
      Items: EVENT_TYPES.filter((t) => !request.query.Type || t === request.query.Type).map(toEventTypeDto),
    }),
  });
};
