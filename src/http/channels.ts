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
import { Problems, type ProblemType, problemTypeUri } from '../problems/catalogue.js';
import { type Access, DEFAULT_AUTH_METHODS, describeAccess } from './access.js';
import { CHANNELS, type Channel } from './channel-names.js';
import type { DeprecationRegistry } from './deprecations.js';
import {
  IDEMPOTENCY_HEADER,
  type IdempotencyDeclaration,
  IdempotencyHeaders,
  type IdempotencyMode,
  idempotencyModeOf,
} from './idempotency.js';
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
  /**
   * Idempotency-Key (src/http/idempotency.ts) is taken by every POST that a principal calls:
   * `'streamed'` for a route that reads its body as a stream itself (it calls settleStreamedBody
   * before it acts), `'secret'` for one whose success answer shows a secret once (kept without its
   * body), `false` for a POST that changes nothing (a query, a check). docs/idempotency.md.
   */
  idempotency?: IdempotencyDeclaration;
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

const IDEMPOTENCY_PROBLEMS: Record<number, { problem: ProblemType; description: string; detail: string }> = {
  400: {
    problem: Problems.IdempotencyKeyInvalid,
    description: `The ${IDEMPOTENCY_HEADER} header is empty, longer than 255 characters, not printable ASCII or sent twice.`,
    detail:
      'The Idempotency-Key is 300 characters long, more than 255. Send one key of 1 to 255 printable ASCII characters (a UUID is best), bare or as a quoted string.',
  },
  409: {
    problem: Problems.IdempotencyKeyInUse,
    description: `The first request with this ${IDEMPOTENCY_HEADER} is still being processed: retry once it has been answered.`,
    detail: 'A request with this Idempotency-Key is still being processed: retry once it has been answered.',
  },
  422: {
    problem: Problems.IdempotencyKeyReused,
    description: `${Problems.IdempotencyKeyReused.title}: the key was first sent with another method, path, query or body.`,
    detail:
      'Idempotency-Key is already used with a different payload: it was first sent with another body, query string or path. Send a new key for each new request; a key is kept 24 hours.',
  },
};

/** A retry of a route whose answer shows a secret once: carried out, not shown again. */
const SECRET_GONE = {
  problem: Problems.IdempotencyAnswerGone,
  description: `A retry with the same ${IDEMPOTENCY_HEADER}: the request was carried out, but its answer shows a secret once and is not given again (\`firstStatus\`, \`Location\`).`,
  detail:
    'The request with this Idempotency-Key was carried out (status 201), but its answer cannot be given again: it showed a secret once, and Rampart never stores secrets. Do not send it again with a new key unless you mean to act twice.',
};

/**
 * The answers Idempotency-Key adds to a route's (400, 409, 422): a status the route answers
 * already keeps its own schema and example, its description telling both.
 */
function idempotencyResponses(
  responses: Record<string, unknown>,
  instance: string,
  mode: IdempotencyMode,
): Record<string, unknown> {
  const out = { ...responses };
  const problems = mode === 'secret' ? { ...IDEMPOTENCY_PROBLEMS, 410: SECRET_GONE } : IDEMPOTENCY_PROBLEMS;
  for (const [status, { problem, description, detail }] of Object.entries(problems)) {
    const own = out[status] as { description?: string } | undefined;
    if (own && typeof own.description === 'string') {
      out[status] = { ...own, description: `${own.description} Or: ${description}` };
    } else {
      out[status] = problemRef(Number(status), description, instance, {
        type: problemTypeUri(problem),
        title: problem.title,
        detail,
      });
    }
  }
  return out;
}

/** A route's own header schema (an object's) with Idempotency-Key added. */
function withIdempotencyHeader(own: TSchema | undefined): TSchema {
  if (!own) return IdempotencyHeaders;
  const properties = (own as { properties?: Record<string, unknown> }).properties ?? {};
  return { ...own, properties: { ...properties, ...IdempotencyHeaders.properties } } as TSchema;
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
  const { channels: _channels, access, throttle, idempotency: declared, ...options } = def;
  const idempotency: IdempotencyMode | undefined = idempotencyModeOf(String(def.method), access, declared);
  const override = ctx.config.throttleRoutes[def.schema.operationId];
  const limit = override ? { limit: override.Limit, windowSeconds: override.Window } : throttle;
  const deprecation = ctx.deprecations.find(ctx.channel, def.method as string, def.url);
  const instance = `/api/${ctx.channel}${def.url.replace(/:([A-Za-z]+)/g, '{$1}')}`;
  const responses = {
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
  };
  const schema = {
    ...def.schema,
    ...(idempotency
      ? {
          headers: withIdempotencyHeader(def.schema.headers as TSchema | undefined),
        }
      : {}),
    description: [def.schema.description, `**Access:** ${describeAccess(access)}`]
      .filter(Boolean)
      .join('\n\n'),
    security: securityOf(access),
    response: idempotency ? idempotencyResponses(responses, instance, idempotency) : responses,
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
      ...(idempotency ? { idempotency } : {}),
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
