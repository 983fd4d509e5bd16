import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { FAVICON_SVG, LOGO_SVG, THEME_CSS } from './apidoc-theme.js';
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
on every request that requires authentication; the values are case-sensitive (header names, as everywhere
in HTTP, are not). Create keys in the web application (My profile → Configure API Keys) or with
\`rampart apikey create\`, and check them with \`GET /api/<channel>/authenticationcheck\`. Each operation
states whether it is anonymous or which role it needs (ReadOnly < Analyst < Manager < Admin).

**Throttling.** Requests are limited per client (per API key; per source address when anonymous).
Over the limit the answer is 429 with \`Retry-After\` (seconds) and \`RateLimit-*\` headers.

**Errors.** Every 4xx and 5xx answer is an RFC 9457 \`application/problem+json\` document.

**Retries.** The POSTs that change something take an \`Idempotency-Key\` header (a UUID): sent again
with the same key and the same request within 24 hours, they answer their first answer with
\`Idempotent-Replayed: true\` instead of acting twice (draft-ietf-httpapi-idempotency-key-header).

**Conventions.** JSON property names are PascalCase and case-sensitive; an unknown or mis-cased property
is refused with a 400 that names it. Ids are UUIDs, times ISO 8601 UTC. Paths match case-insensitively.`;

/**
 * The page's own policy. The stock one adds `upgrade-insecure-requests` (the page and every "Try it
 * out" call over plain http go to https and fail) and allows `https:` styles and fonts it never
 * uses; the page needs only its own files, the logo as a data: image, and inline styles (Swagger UI
 * sets some, as the web app's Mantine does).
 */
export const APIDOC_CSP =
  "default-src 'self'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'self'; " +
  "form-action 'self'";

/**
 * The server the documentation names, relative to the page it is read from, so that "Try it out"
 * calls the origin the reader used (whatever name or proxy that is): the path prefix of
 * RAMPART_BASE_URL (`/` without one), never its scheme and host.
 */
export function serverUrlOf(baseUrl: string): string {
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return prefix === '' ? '/' : prefix;
}

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
      servers: [{ url: serverUrlOf(options.baseUrl), description: 'This Rampart server' }],
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
          NodeKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A scan node’s own key, from POST /scannodes/enrol (shown once): `Authorization: Bearer rsn_…`. Only the node protocol accepts it.',
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
    staticCSP: APIDOC_CSP,
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG) },
    theme: {
      title: `Rampart API — ${channel}`,
      favicon: [
        { filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON_SVG },
      ],
      css: [{ filename: 'rampart.css', content: THEME_CSS }],
    },
  });
  app.get(
    `/apidoc/${channel}/documentation.json`,
    { schema: { hide: true }, config: { access: { public: true } } },
    async () => app.swagger(),
  );
}
