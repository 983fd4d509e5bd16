import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyInstance,
  FastifySchema,
  RawServerDefault,
  RouteGenericInterface,
  RouteOptions,
} from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { type Access, DEFAULT_AUTH_METHODS, describeAccess } from './access.js';
import type { DeprecationRegistry } from './deprecations.js';
import type { TypedApp } from './types.js';

export const CHANNELS = ['latest', 'integration'] as const;
export type Channel = (typeof CHANNELS)[number];
export const BOTH: readonly Channel[] = CHANNELS;

/** What a module's routes need to know about the channel they are being registered in. */
export interface ChannelContext {
  channel: Channel;
  config: Config;
  deprecations: DeprecationRegistry;
}

export type ChannelRoutes = (app: TypedApp, ctx: ChannelContext) => void;

export type RouteDefinition<S extends FastifySchema> = RouteOptions<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider
> & {
  /** The channels that serve this route. */
  channels: readonly Channel[];
  access: Access;
  /** A stricter or looser throttle than the global one. */
  throttle?: { limit: number; windowSeconds: number };
  schema: S & { operationId: string; summary: string; tags: string[] };
};

const problemRef = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
});

/** The problem responses every route can give, by what the route does. */
function problemResponses(schema: FastifySchema, access: Access): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  if (schema.body || schema.querystring || schema.params) {
    responses[400] = problemRef('The request is not valid: see `errors`.');
  }
  if (!('public' in access)) {
    responses[401] = problemRef('Missing or invalid API credentials.');
    responses[403] = problemRef('Your role does not allow this action.');
  }
  if (schema.params) responses[404] = problemRef('No such resource in your organisation.');
  if (schema.body) {
    responses[413] = problemRef('The request body is too large.');
    responses[415] = problemRef('The request body is not application/json.');
  }
  responses[429] = problemRef('Too many requests: wait `Retry-After` seconds.');
  responses[500] = problemRef('Unexpected error; quote the correlation id.');
  return responses;
}

/** Fail closed: an API route that does not say who may call it stops the app from starting. */
export function requireAccessDeclarations(app: FastifyInstance): void {
  app.addHook('onRoute', (r) => {
    if (r.url.toLowerCase().startsWith('/api/') && !r.config?.access) {
      throw new Error(`Route ${r.method} ${r.url} declares no access (public or a role)`);
    }
  });
}

/** OpenAPI security alternatives: both API key headers, or the session cookie. */
function securityOf(access: Access): Record<string, string[]>[] {
  if ('public' in access) return [];
  const via = access.via ?? DEFAULT_AUTH_METHODS;
  return [
    ...(via.includes('apiKey') ? [{ ApiAccessKey: [], ApiSecretKey: [] }] : []),
    ...(via.includes('session') ? [{ SessionCookie: [] }] : []),
  ];
}

/** Registers a route in the current channel when it serves it; no-op otherwise. */
export function route<S extends FastifySchema>(
  app: TypedApp,
  ctx: ChannelContext,
  def: RouteDefinition<S>,
): void {
  if (!def.channels.includes(ctx.channel)) return;
  const { channels: _channels, access, throttle, ...options } = def;
  const override = ctx.config.throttleRoutes[def.schema.operationId];
  const limit = override ? { limit: override.Limit, windowSeconds: override.Window } : throttle;
  const deprecation = ctx.deprecations.find(ctx.channel, def.method as string, def.url);
  const schema = {
    ...def.schema,
    description: [def.schema.description, `**Access:** ${describeAccess(access)}`]
      .filter(Boolean)
      .join('\n\n'),
    security: securityOf(access),
    response: {
      ...problemResponses(def.schema, access),
      ...(deprecation
        ? { 410: problemRef(`Removed on ${deprecation.removalOn}: use ${deprecation.replacement}.`) }
        : {}),
      ...(def.schema.response as object),
    },
    ...(deprecation ? { deprecated: true } : {}),
  };
  app.route({
    ...options,
    schema,
    config: {
      ...(options.config as object),
      access,
      channel: ctx.channel,
      deprecation,
      ...(limit ? { rateLimit: { max: limit.limit, timeWindow: limit.windowSeconds * 1000 } } : {}),
    },
  } as unknown as RouteOptions);
}
