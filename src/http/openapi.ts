import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Channel } from './channels.js';

const DESCRIPTIONS: Record<Channel, string> = {
  latest:
    'The `latest` channel: current API development. It may introduce breaking changes without prior notice.',
  integration:
    'The `integration` channel: for programs integrating with Rampart. It follows `latest` except that when ' +
    '`latest` breaks an endpoint, the old variant stays here for a while, marked deprecated, and answers ' +
    'with a `deprecated` header naming its removal date.',
};

const INTRO = `

**Authentication.** Send the two parts of an API key in the headers \`ApiAccessKey\` and \`ApiSecretKey\`
on every request that requires authentication; both names and values are case-sensitive. Create keys in
the web application (My profile → Configure API Keys) or with \`rampart apikey create\`, and check them
with \`GET /api/<channel>/authenticationcheck\`. Each operation states whether it is anonymous or which
role it needs (ReadOnly < Analyst < Manager < Admin).

**Throttling.** Requests are limited per client (per API key; per source address when anonymous).
Over the limit the answer is 429 with \`Retry-After\` (seconds) and \`RateLimit-*\` headers.

**Errors.** Every 4xx and 5xx answer is an RFC 9457 \`application/problem+json\` document.

**Conventions.** JSON property names are PascalCase and case-sensitive; an unknown or mis-cased property
is refused with a 400 that names it. Ids are UUIDs, times ISO 8601 UTC. Paths match case-insensitively.`;

/**
 * One OpenAPI document per channel: this plugin is registered inside the channel's own
 * encapsulated context, so it sees that channel's routes and no other.
 */
export async function registerChannelDocs(
  app: FastifyInstance,
  options: { channel: Channel; baseUrl: string; version: string },
): Promise<void> {
  const { channel } = options;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `Rampart API — ${channel} channel`,
        version: options.version,
        description: DESCRIPTIONS[channel] + INTRO,
      },
      servers: [{ url: options.baseUrl }],
      components: {
        securitySchemes: {
          ApiAccessKey: {
            type: 'apiKey',
            in: 'header',
            name: 'ApiAccessKey',
            description: 'The access key (public part).',
          },
          ApiSecretKey: {
            type: 'apiKey',
            in: 'header',
            name: 'ApiSecretKey',
            description: 'The secret key, shown once at creation.',
          },
          SessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'rampart_session',
            description:
              'The web application session, from POST /api/latest/session. Changes also need the X-CSRF-Token header.',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  await app.register(swaggerUi, {
    routePrefix: `/apidoc/${channel}`,
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: true,
  });
  app.get(
    `/apidoc/${channel}/documentation.json`,
    { schema: { hide: true }, config: { access: { public: true } } },
    async () => app.swagger(),
  );
}
