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
import { type TSchema, Type } from 'typebox';
import type { Config } from '../config.js';
import { type Access, DEFAULT_AUTH_METHODS, describeAccess } from './access.js';
import { CHANNELS, type Channel } from './channel-names.js';
import type { DeprecationRegistry } from './deprecations.js';
import { problemExample } from './problems/examples.js';
import type { TypedApp } from './types.js';

// Routes name their channels from here.
export { BOTH, CHANNELS, type Channel } from './channel-names.js';

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

/** A problem response, with an example of its own status (the shared schema's example is a 400). */
const problemRef = (status: number, description: string, instance: string, example?: object) => ({
  description,
  content: {
    'application/problem+json': {
      schema: Type.Ref('Problem'),
      example: { ...problemExample(status, instance), ...example },
    },
  },
});

/** The problem responses every route can give, by what the route does. */
function problemResponses(schema: FastifySchema, access: Access, instance: string): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const add = (status: number, description: string) => {
    responses[status] = problemRef(status, description, instance);
  };
  if (schema.body || schema.querystring || schema.params) add(400, 'The request is not valid: see `errors`.');
  if ('scanNode' in access) add(401, 'Missing, unknown or revoked node key.');
  else if (!('public' in access)) {
    add(401, 'Missing or invalid API credentials.');
    add(403, 'Your role does not allow this action.');
  }
  if (schema.params) add(404, 'No such resource in your organisation.');
  if (schema.body) {
    add(413, 'The request body is too large.');
    add(415, 'The request body is not application/json.');
  }
  add(429, 'Too many requests: wait `Retry-After` seconds.');
  add(500, 'Unexpected error; quote the correlation id.');
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

/** OpenAPI security alternatives: both API key headers, or the session cookie; a node's key. */
function securityOf(access: Access): Record<string, string[]>[] {
  if ('public' in access) return [];
  if ('scanNode' in access) return [{ NodeKey: [] }];
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
  const instance = `/api/${ctx.channel}${def.url.replace(/:([A-Za-z]+)/g, '{$1}')}`;
  const schema = {
    ...def.schema,
    description: [def.schema.description, `**Access:** ${describeAccess(access)}`]
      .filter(Boolean)
      .join('\n\n'),
    security: securityOf(access),
    response: {
      ...problemResponses(def.schema, access, instance),
      ...(deprecation
        ? {
            410: problemRef(
              410,
              `Removed on ${deprecation.removalOn}: use ${deprecation.replacement}.`,
              instance,
              {
                detail: `This endpoint was removed on ${deprecation.removalOn}. Use ${deprecation.replacement} instead; see the 'latest' channel of the API documentation.`,
                replacement: deprecation.replacement,
              },
            ),
          }
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
      ...(limit ? { throttle: limit } : {}),
    },
  } as unknown as RouteOptions);
}

/** A route of a group: the group names its tags and (by default) its channels. */
export type GroupRoute<S extends FastifySchema> = Omit<
  RouteDefinition<S>,
  'method' | 'url' | 'channels' | 'schema'
> & {
  /** The channels that serve this route when not the group's. */
  channels?: readonly Channel[];
  schema: S & { operationId: string; summary: string };
};

type Declare = <S extends FastifySchema>(url: string, def: GroupRoute<S>) => void;

/**
 * The routes of one module in one channel, declared as `group.get(url, { access, schema, handler })`:
 * what every route of the module shares (its OpenAPI tags, the channels that serve it, both unless
 * said) is said once.
 */
export function routeGroup(
  app: TypedApp,
  ctx: ChannelContext,
  shared: { tags: string[]; channels?: readonly Channel[] },
): Record<'get' | 'post' | 'put' | 'patch' | 'delete', Declare> {
  const declare =
    (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'): Declare =>
    <S extends FastifySchema>(url: string, { channels, schema, ...def }: GroupRoute<S>) =>
      route<S>(app, ctx, {
        ...def,
        method,
        url,
        channels: channels ?? shared.channels ?? CHANNELS,
        schema: { ...schema, tags: shared.tags },
      } as RouteDefinition<S>);
  return {
    get: declare('GET'),
    post: declare('POST'),
    put: declare('PUT'),
    patch: declare('PATCH'),
    delete: declare('DELETE'),
  };
}

/** The answer of a route that answers nothing (204). */
export const noContent = (description: string) => ({ type: 'null', description });

/** A 200 answer of a list that is JSON, or with `Accept: text/csv` every row as CSV. */
export const jsonOrCsv = <T extends TSchema>(description: string, schema: T) => ({
  description,
  content: {
    'application/json': { schema },
    'text/csv': { schema: { type: 'string' } },
  },
});
